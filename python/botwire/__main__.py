"""python3 -m botwire: the wire's commands from the package, and the rest
through the botwire command.

    python3 -m botwire decode --proto P [--from SIDE] [--model M] [--frames] [FILE]
    python3 -m botwire columns --proto P [--from SIDE] [--model M] FILE -o OUT.npz
    python3 -m botwire protocols
    python3 -m botwire COMMAND ...      (record, sim, drive, ...: `botwire COMMAND`)

decode writes what `botwire decode` writes, byte for byte (the same
library writes it), reading FILE or standard input: raw bytes or a record.
columns saves decode_columns' arrays to a NumPy .npz file, one array per
"TYPE.MEMBER" (masked members as "TYPE.MEMBER" and "TYPE.MEMBER.mask").
Every other command runs the botwire command of the package's build or
install, or the first on PATH.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import Any, BinaryIO, List, Optional

from . import codec
from ._ffi import ffi, jlib, string
from .types import BotwireError

USAGE = __doc__.split("\n\n")[1]


def _input(path: Optional[str]) -> BinaryIO:
    if path is None or path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as e:
        raise SystemExit(f"botwire decode: {path}: {e.strerror}")


def _wire_args(name: str, args: List[str], columns: bool) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=f"python3 -m botwire {name}",
                                description="as `botwire decode`" if not columns else
                                "decode_columns into a NumPy .npz file")
    p.add_argument("--proto", required=True, help="the protocol: " + ", ".join(codec.protocols()))
    p.add_argument("--from", dest="side", choices=("robot", "host"),
                   help="whose bytes: raw input is the robot's unless told; a record: both")
    p.add_argument("--model", help="a model's dialect (create: create2; rbsm: deployed)")
    if columns:
        p.add_argument("file", help="raw bytes or a record")
        p.add_argument("-o", "--output", required=True, help="the .npz file to write")
    else:
        p.add_argument("--frames", action="store_true", help="one array per frame")
        p.add_argument("file", nargs="?", help="raw bytes or a record (default: standard input)")
    return p.parse_args(args)


def decode(args: List[str]) -> int:
    a = _wire_args("decode", args, columns=False)
    err = ffi.new("char[1024]")
    pd = ffi.new("bw_json_decoder_t **")
    rc = jlib.bw_json_decoder_new(pd, a.proto.encode(), a.model.encode() if a.model else ffi.NULL,
                                  a.side.encode() if a.side else ffi.NULL, a.frames, err, 1024)
    if rc < 0:
        print(f"botwire decode: {string(err)}", file=sys.stderr)
        return 2
    d = ffi.gc(pd[0], jlib.bw_json_decoder_free)
    n = ffi.new("size_t *")
    warn = ffi.new("char[256]")
    out = sys.stdout.buffer

    def flush() -> None:
        text = jlib.bw_json_decoder_text(d, n)
        out.write(ffi.buffer(text, n[0]))
        while jlib.bw_json_decoder_next_warning(d, warn, 256):
            print(f"botwire decode: {string(warn)}", file=sys.stderr)

    with _input(a.file) as f:
        while True:
            chunk = f.read1(1 << 16) if hasattr(f, "read1") else f.read(1 << 16)
            if not chunk:
                break
            if jlib.bw_json_decoder_push(d, ffi.from_buffer(chunk), len(chunk)) < 0:
                print("botwire decode: out of memory", file=sys.stderr)
                return 1
            flush()
    if jlib.bw_json_decoder_finish(d) < 0:
        print("botwire decode: out of memory", file=sys.stderr)
        return 1
    flush()
    out.flush()
    return 0


def columns(args: List[str]) -> int:
    a = _wire_args("columns", args, columns=True)
    try:
        import numpy as np
    except ImportError:
        print("botwire columns: needs NumPy (Debian's python3-numpy)", file=sys.stderr)
        return 1
    if not os.path.exists(a.file):
        print(f"botwire columns: {a.file}: no such file", file=sys.stderr)
        return 1
    try:
        cols = codec.decode_columns(a.proto, a.file, a.side, model=a.model)
    except BotwireError as e:
        print(f"botwire columns: {e}", file=sys.stderr)
        return 2
    arrays: dict[str, Any] = {}
    for kind, members in cols.items():
        for member, arr in members.items():
            if isinstance(arr, np.ma.MaskedArray):
                arrays[f"{kind}.{member}.mask"] = arr.mask | np.zeros(arr.shape, bool)
                arr = arr.data
            arrays[f"{kind}.{member}"] = arr
    np.savez(a.output, **arrays)
    rows = sum(len(next(iter(m.values()))) for m in cols.values() if m)
    print(f"botwire columns: {len(arrays)} arrays, {rows} messages of {len(cols)} types "
          f"into {a.output}", file=sys.stderr)
    return 0


def _tool() -> Optional[str]:
    """The botwire command: the package's build's or install's, else PATH's."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs: List[str] = []
    try:
        from . import _paths
        if hasattr(_paths, "tool_dirs"):  # a wheel's has none
            dirs = _paths.tool_dirs(here)
    except ImportError:
        pass
    for d in dirs:
        path = os.path.join(d, "botwire")
        if os.access(path, os.X_OK):
            return path
    return shutil.which("botwire")


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print("usage:\n" + USAGE)
        return 0 if args else 2
    cmd, rest = args[0], args[1:]
    if cmd == "decode":
        return decode(rest)
    if cmd == "columns":
        return columns(rest)
    if cmd == "protocols":
        print(", ".join(codec.protocols()))
        return 0
    tool = _tool()
    if not tool:
        print(f"python3 -m botwire {cmd}: needs the botwire command (make install, or put it "
              "on PATH); the package itself runs decode, columns and protocols", file=sys.stderr)
        return 2
    os.execv(tool, [tool, cmd] + rest)
    return 127  # not reached


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
