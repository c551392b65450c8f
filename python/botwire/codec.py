"""The wire as `botwire decode` and `botwire encode` see it: bytes into dicts
and back, through the command's own code (libbotwire_json), so the dicts
are exactly the JSON the command writes, parsed. The decoder writes them
as a tape of typed entries (botwire/json.h, BW_JSON_TAPE) that botwire._tape
turns into dicts in C, with no text between; without that module (a
build without Python's headers) they come through the text and json."""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from ._ffi import ffi, jlib, string

_tape: Optional[ModuleType]
try:
    from . import _tape
except ImportError:  # built without Python's headers: the JSON text
    _tape = None

BW_JSON_TAPE = 4
BW_JSON_COLUMNS = 8
_PIECE = 1 << 15  # bytes pushed at once
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
                 frames: bool = False, _columns: bool = False) -> None:
        err = ffi.new("char[1024]")
        pd = ffi.new("bw_json_decoder_t **")
        rc = jlib.bw_json_decoder_new(pd, proto.encode(), model.encode() if model else ffi.NULL,
                                      side.encode() if side else ffi.NULL, frames, err, 1024)
        if rc < 0:
            raise BotwireError(string(err) or proto, rc)
        self._d = ffi.gc(pd[0], jlib.bw_json_decoder_free)
        if _columns:  # decode_columns: the messages into columns, no dicts
            self._tape = False
            if jlib.bw_json_decoder_options(self._d, BW_JSON_COLUMNS) < 0:
                raise BotwireError("decode_columns: out of memory", -12)
        else:
            self._tape = _tape is not None and \
                jlib.bw_json_decoder_options(self._d, BW_JSON_TAPE) == 0
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
        if self._tape and _tape is not None:
            objects: List[Any] = _tape.objects(ffi.buffer(text, n))
            return objects
        # Whole lines, none holding a raw newline (JSON escapes them): one
        # array for json.loads, far faster than a call per line.
        lines = ffi.buffer(text, n)[:].rstrip(b"\n").replace(b"\n", b",")
        parsed: List[Any] = json.loads(b"[" + lines + b"]")
        return parsed

    def _check(self, rc: int) -> None:
        """BotwireError for a push's or finish's failure, with its reason."""
        if rc >= 0:
            return
        while jlib.bw_json_decoder_next_warning(self._d, self._warn, 256):
            self.warnings.append(string(self._warn) or "")
        why = self.warnings[-1] if rc == -1 and self.warnings else \
            "out of memory" if rc == -12 else "finished already" if rc == -14 else str(rc)
        raise BotwireError(f"decode: {why}", rc)

    def feed(self, data: Data) -> List[Any]:
        """Pushes bytes; returns the messages (dicts) they complete."""
        if len(data) > _PIECE:
            # In pieces: the tape (or text) of each stays small, in cache.
            view = memoryview(data).cast("B")
            out: List[Any] = []
            for at in range(0, len(view), _PIECE):
                out += self.feed(view[at:at + _PIECE])
            return out
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
    of a file: raw bytes or a `botwire record` file, read as it is
    iterated. ``side`` is the command's --from: None decodes raw bytes as
    the robot's and both sides of a record; ``model`` and ``frames`` as in
    Decoder (a bad protocol, side or model: BotwireError at once)."""
    d = Decoder(proto, side, model=model, frames=frames)
    # A list per piece of input, chained in C: no Python frame per message.
    return itertools.chain.from_iterable(_pieces(d, data))


def _pieces(d: Decoder, data: Union[Data, str, "os.PathLike[str]"]) -> Iterator[List[Any]]:
    for piece in _raw_pieces(data):
        yield d.feed(piece)
    yield d.close()


def decode_columns(proto: str, data: Union[Data, str, "os.PathLike[str]"],
                   side: Optional[str] = None, *, model: Optional[str] = None) -> Dict[str, Dict[str, Any]]:
    """The messages of ``data`` (as ``decode`` takes it) as columns, for
    NumPy, pandas and plots: ``{type: {member: numpy array}}``, one value
    per message of the type, in order, the same numbers ``decode`` gives
    (wire units). Integers are int64, "t" (a record's, s) float64, booleans
    bool, strings (hex bytes, names, "from") object arrays; an array member
    is a 2-D array (rows x elements), an array of arrays 3-D (Kobuki's
    raw_gyro samples: rows x samples x 3); where rows differ in length, as
    long as the longest, a numpy.ma.MaskedArray masked past each row's end.
    A member some messages of the type leave out is masked where it is
    missing (an empty array is masked whole, as a missing one). A message
    inside another's array (a Create stream's packets) is a row of its own
    type, with the "t" and "from" of the message that holds it. The final
    stats are left out (``decode`` has them). The columns are filled in C as
    the messages decode (botwire/json.h, BW_JSON_COLUMNS); needs NumPy
    (Debian's python3-numpy).

        cols = botwire.decode_columns("kobuki", open("kobuki.bin", "rb").read())
        cols["basic_sensor_data"]["left_encoder"]    # int64 array, ticks
    """
    try:
        import numpy as np
    except ImportError as e:  # as `botwire columns` says it
        raise ModuleNotFoundError("botwire.decode_columns needs NumPy (Debian's python3-numpy, "
                                  "or pip install numpy)", name="numpy") from e
    d = Decoder(proto, side, model=model, _columns=True)
    for piece in _raw_pieces(data):
        d._check(jlib.bw_json_decoder_push(d._d, ffi.from_buffer(piece), len(piece)))
    d._check(jlib.bw_json_decoder_finish(d._d))
    out: Dict[str, Dict[str, Any]] = {}
    rows = ffi.new("size_t *")
    for i in range(jlib.bw_json_decoder_types(d._d)):
        kind = string(jlib.bw_json_decoder_type(d._d, i, rows)) or ""
        if kind != "stats":
            out[kind] = {}  # every type, those with no members too
    col = ffi.new("bw_json_column_t *")
    for i in range(jlib.bw_json_decoder_columns(d._d)):
        if jlib.bw_json_decoder_column(d._d, i, col) < 0:
            raise BotwireError("decode_columns: out of memory", -12)
        kind = string(col.type) or ""
        if kind != "stats":
            out[kind][string(col.name) or ""] = _column(np, col, d)
    return out


def _raw_pieces(data: Union[Data, str, "os.PathLike[str]"]) -> Iterator[Any]:
    if isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    return
                yield chunk
    else:
        yield data


def _view(np: Any, ptr: Any, n: int, dtype: Any, owner: Decoder) -> Any:
    """The n values of dtype at ptr, the decoder's memory, as a NumPy array
    with no copy (the caller's to change: the decoder is done with it); the
    array keeps the decoder, and so the memory, alive through the pointer
    it reads."""
    if n == 0:
        return np.empty(0, dtype)
    kept = ffi.gc(ffi.cast("char *", ptr), lambda _p, o=owner: None)
    return np.frombuffer(ffi.buffer(kept, n * np.dtype(dtype).itemsize), dtype)


def _column(np: Any, c: Any, owner: Decoder) -> Any:
    """A bw_json_column_t as a NumPy array over the decoder's own memory
    (finished: it changes no more)."""
    rows = c.rows
    kind = c.kind.decode()
    if kind in "ir":
        a = _view(np, c.values, rows, np.int64 if kind == "i" else np.float64, owner)
    elif kind == "b":
        a = _view(np, c.values, rows, np.bool_, owner)
    elif kind == "s":
        a = _strings(np, c)
    else:
        flat = _view(np, c.values, c.nvalues, np.int64, owner)
        lens = _view(np, c.lens, rows, np.int32, owner)
        inner = _view(np, c.inner, c.ninner, np.int32, owner) if c.depth == 2 else None
        a = _ragged(np, flat, lens, inner)
    if c.present == ffi.NULL:
        return a
    present = _view(np, c.present, rows, np.bool_, owner)
    shaped = present.reshape(present.shape + (1,) * (a.ndim - 1))
    missing = np.broadcast_to(~shaped, a.shape)
    return np.ma.masked_array(a, mask=np.ma.getmaskarray(a) | missing)


def _strings(np: Any, c: Any) -> Any:
    """A column of strings (names, hex bytes, "from"; numbers as text where
    a member mixes them with strings) as an object array."""
    rows = c.rows
    data = ffi.buffer(c.values, c.nvalues)[:] if c.nvalues else b""
    ends = np.frombuffer(ffi.buffer(c.ends, 8 * rows), np.int64).tolist() if rows else []
    tags = ffi.buffer(c.tags, rows)[:] if rows else b""
    made: Dict[Any, Any] = {}
    out = np.empty(rows, dtype=object)
    start = 0
    for i, (end, tag) in enumerate(zip(ends, tags)):
        key = (tag, data[start:end])
        v = made.get(key)
        if v is None and tag:
            raw = key[1]
            v = (raw.decode() if tag == 115 else raw.hex() if tag == 104 else int(raw) if tag == 105
                 else float(raw) if tag == 114 else raw == b"true")
            made[key] = v
        out[i] = v
        start = end
    return out


def _ragged(np: Any, flat: Any, counts: Any, inner: Any) -> Any:
    """Arrays of integers, counts[r] elements in row r (each an array of
    inner[k] integers when inner is given) as one array of rows x the
    longest (x the longest inner): plain when every row is as long, else
    masked where a row is shorter."""
    rows = len(counts)
    if inner is None:
        longest = int(counts.max()) if rows else 0
        if rows and (counts == longest).all():
            return flat.reshape(rows, longest)
        row = np.repeat(np.arange(rows), counts)
        pos = np.arange(len(flat)) - np.repeat(np.cumsum(counts) - counts, counts)
        out = np.zeros((rows, longest), np.int64)
        hole = np.ones((rows, longest), np.bool_)
        out[row, pos] = flat
        hole[row, pos] = False
        return np.ma.masked_array(out, mask=hole)
    longest = int(counts.max()) if rows else 0
    deepest = int(inner.max()) if len(inner) else 0
    if rows and (counts == longest).all() and (inner == deepest).all():
        return flat.reshape(rows, longest, deepest)
    # row and position of each inner array, then of each integer in it
    arr_row = np.repeat(np.arange(rows), counts)
    arr_pos = np.arange(len(inner)) - np.repeat(np.cumsum(counts) - counts, counts)
    row = np.repeat(arr_row, inner)
    pos = np.repeat(arr_pos, inner)
    sub = np.arange(len(flat)) - np.repeat(np.cumsum(inner) - inner, inner)
    out = np.zeros((rows, longest, deepest), np.int64)
    hole = np.ones((rows, longest, deepest), np.bool_)
    out[row, pos, sub] = flat
    hole[row, pos, sub] = False
    return np.ma.masked_array(out, mask=hole)


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
