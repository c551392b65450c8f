"""The wire as `botwire decode` and `botwire encode` see it: bytes into dicts
and back, through the command's own JSON code (libbotwire_json), so the
dicts are exactly the JSON the command writes, parsed."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from ._ffi import ffi, jlib, string
from .types import BotwireError

Message = Dict[str, Any]
Data = Union[bytes, bytearray, memoryview]


def protocols() -> List[str]:
    """The protocols' names: kobuki, p2os, lobot, create, rbsm, rflex."""
    return (string(jlib.bw_json_protocols()) or "").split(", ")


class Decoder:
    """A streaming decoder, as `botwire decode --proto P` is: ``feed``
    bytes as they arrive (any split) and get the messages they complete;
    ``close`` gives what the held bytes still give and the final
    ``{"type": "stats", ...}``. The input may be raw bytes or a
    `botwire record` file's text (told by its first line, as the command
    does: its messages then have "t" and "from").

    ``side``: who sent raw bytes, "robot" (the default) or "host"; for a
    record, None decodes both sides. ``model``: a model's dialect (rbsm:
    "deployed"; create: "create2"). ``frames``: one list per frame instead
    of one dict per message (`--frames`).
    """

    def __init__(self, proto: str, side: Optional[str] = None, *, model: Optional[str] = None,
                 frames: bool = False) -> None:
        err = ffi.new("char[1024]")
        pd = ffi.new("bw_json_decoder_t **")
        rc = jlib.bw_json_decoder_new(pd, proto.encode(), model.encode() if model else ffi.NULL,
                                      side.encode() if side else ffi.NULL, frames, err, 1024)
        if rc < 0:
            raise BotwireError(string(err) or proto, rc)
        self._d = ffi.gc(pd[0], jlib.bw_json_decoder_free)
        self._len = ffi.new("size_t *")
        self._warn = ffi.new("char[256]")
        self.warnings: List[str] = []
        self.proto = proto

    def _take(self) -> List[Any]:
        text = jlib.bw_json_decoder_text(self._d, self._len)
        n = self._len[0]
        while jlib.bw_json_decoder_next_warning(self._d, self._warn, 256):
            self.warnings.append(string(self._warn) or "")
        if n == 0:
            return []
        # Whole lines, none holding a raw newline (JSON escapes them): one
        # array for json.loads, far faster than a call per line.
        lines = ffi.buffer(text, n)[:].rstrip(b"\n").replace(b"\n", b",")
        return json.loads(b"[" + lines + b"]")

    def feed(self, data: Data) -> List[Any]:
        """Pushes bytes; returns the messages (dicts) they complete."""
        rc = jlib.bw_json_decoder_push(self._d, ffi.from_buffer(data), len(data))
        if rc < 0:
            raise BotwireError("decode: out of memory" if rc == -12 else "decode: closed", rc)
        return self._take()

    def close(self) -> List[Any]:
        """The end of input: the last messages, then the stats dict."""
        rc = jlib.bw_json_decoder_finish(self._d)
        if rc < 0:
            raise BotwireError("decode: finished already" if rc == -14 else "decode: out of memory",
                               rc)
        return self._take()


def decode(proto: str, data: Union[Data, str, "os.PathLike[str]"],
           side: Optional[str] = None, *, model: Optional[str] = None,
           frames: bool = False) -> Iterator[Any]:
    """Yields the messages of ``data`` as `botwire decode --proto P` writes
    them (one dict per message, "type" and its fields in wire units; the
    last one {"type": "stats", ...}). ``data`` is bytes, or the path (str)
    of a file: raw bytes or a `botwire record` file. ``side`` is the
    command's --from: None decodes raw bytes as the robot's and both sides
    of a record; ``model`` and ``frames`` as in Decoder."""
    d = Decoder(proto, side, model=model, frames=frames)
    if isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    break
                yield from d.feed(chunk)
    else:
        yield from d.feed(data)
    yield from d.close()


def encode(proto: str, msg: Union[Message, Iterable[Message]]) -> bytes:
    """The frame of one message (a dict as decode gives it), or of a list
    of messages (one frame carrying them all), as `botwire encode` writes
    it. A stats dict gives b"". BotwireError with the command's reason for
    a bad message (unknown type or field, value out of range)."""
    if not isinstance(msg, dict):
        msg = list(msg)
    text = json.dumps(msg).encode()
    err = ffi.new("char[1024]")
    n = ffi.new("size_t *")
    cap = 512
    while True:
        out = ffi.new(f"uint8_t[{cap}]")
        rc = jlib.bw_json_encode(proto.encode(), text, len(text), out, cap, n, err, 1024)
        if rc == -2 and n[0] > cap:  # BW_ENOSPC: the size needed is in n
            cap = n[0]
            continue
        if rc < 0:
            raise BotwireError(string(err) or f"encode: {rc}", rc)
        return b"" if rc == 1 else bytes(ffi.buffer(out, n[0]))


@dataclass(frozen=True)
class Chunk:
    """A record line: ``t`` (s since the recording started), ``side``
    ("robot": bytes read, "host": bytes sent) and the bytes."""
    t: float
    side: str
    data: bytes


@dataclass(frozen=True)
class Record:
    """A `botwire record` file (docs/record-format.md): its header (url,
    family, start) and its chunks in order."""
    header: Dict[str, Any]
    chunks: List[Chunk]

    @property
    def family(self) -> Optional[str]:
        """The family it was recorded from."""
        return self.header.get("family")

    def data(self, side: str) -> bytes:
        """Every byte of one side, in order."""
        return b"".join(c.data for c in self.chunks if c.side == side)

    def __iter__(self) -> Iterator[Chunk]:
        """The chunks in order: ``for c in read_record(path)``."""
        return iter(self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)


def read_record(path: Union[str, "os.PathLike[str]"]) -> Record:
    """Reads a record file, JSON Lines or MCAP (docs/record-format.md; from
    MCAP its wire, /wire/robot and /wire/host): BotwireError for a file
    that is not one, or whose part cannot be read ("line N: ...",
    "offset N: ..."; `botwire record --recover` mends the MCAP file of a
    recorder that was killed)."""
    err = ffi.new("char[512]")
    out = ffi.new("bw_json_record_t **")
    rc = jlib.bw_json_record_read(out, os.fsencode(path), err, 512)
    if rc < 0:
        raise BotwireError(string(err) or f"read_record: {rc}", rc)
    r = ffi.gc(out[0], jlib.bw_json_record_free)
    header = json.loads(ffi.string(jlib.bw_json_record_header(r)))
    t = ffi.new("double *")
    side = ffi.new("int *")
    data = ffi.new("const uint8_t **")
    n = ffi.new("size_t *")
    chunks: List[Chunk] = []
    for i in range(jlib.bw_json_record_chunks(r)):
        jlib.bw_json_record_chunk(r, i, t, side, data, n)
        chunks.append(Chunk(t[0], "robot" if side[0] else "host",
                            bytes(ffi.buffer(data[0], n[0]))))
    return Record(header, chunks)
