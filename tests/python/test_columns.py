"""botwire.decode_columns against botwire.decode (itself tested equal to
`botwire decode`): on a record of every family and on every file of
tests/data, each column holds, row by row, the value decode gives that
member of that message type (missing where a message leaves it out), with
messages inside another's array as rows of their own type carrying the
holder's "t" and "from"."""

import os
import sys
from collections import defaultdict

import numpy as np
import pytest

import botwire
from conftest import DATA, FAMILIES
from test_codec import HEX_FILES, hex_bytes

MISSING = object()


def expected(messages):
    """{type: [row dict]} as decode_columns lays them out."""
    rows = defaultdict(list)

    def add(m, holder):
        row = {}
        for k, v in m.items():
            if k == "type":
                continue
            if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
                for inner in v:
                    add(inner, m)
                continue
            # an empty array is masked whole, as a missing one
            row[k] = MISSING if v == [] else v
        if holder is not None:
            for k in ("t", "from"):
                if k in holder:
                    row[k] = holder[k]
        rows[m["type"]].append(row)

    for m in messages:
        if m["type"] != "stats":
            add(m, None)
    return rows


def cell(col, i):
    """Row i of a column as decode gives it, or MISSING."""
    v = col[i]
    if v is np.ma.masked:
        return MISSING
    if isinstance(v, np.ma.MaskedArray):
        if v.mask is not np.ma.nomask and v.mask.all():
            return MISSING
        return unmask(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v.item() if isinstance(v, np.generic) else v


def unmask(v):
    """A masked row as its list: masked elements are past the row's end."""
    if v.ndim == 1:
        return [x.item() for x, m in zip(v.data, np.ma.getmaskarray(v)) if not m]
    return [r for r in (unmask(x) for x in v) if r]


def check(got, messages):
    want = expected(messages)
    assert sorted(got) == sorted(want)
    for kind, rows in want.items():
        keys = {k for r in rows for k in r}
        assert sorted(got[kind]) == sorted(keys), kind
        for k in keys:
            col = got[kind][k]
            assert len(col) == len(rows), (kind, k)
            for i, r in enumerate(rows):
                g = cell(col, i)
                w = r.get(k, MISSING)
                if w is MISSING and g is MISSING:
                    continue
                assert g == w and type(g) is type(w), f"{kind}.{k} row {i}: {g!r} != {w!r}"


@pytest.mark.parametrize("family", FAMILIES)
def test_record_columns_agree_with_decode(records, family):
    path = records[family]
    got = botwire.decode_columns(family, path)
    check(got, list(botwire.decode(family, path)))
    # A record's columns carry its times, s from the start, rising.
    for kind, cols in got.items():
        assert cols["t"].dtype == np.float64, kind
        assert (np.diff(cols["t"]) >= 0).all() or kind in ("reply", "stream"), kind
    for side in ("robot", "host"):
        check(botwire.decode_columns(family, path, side),
              list(botwire.decode(family, path, side)))


@pytest.mark.parametrize("name", HEX_FILES)
@pytest.mark.parametrize("side", ["robot", "host"])
def test_raw_columns_agree_with_decode(name, side):
    proto = name.split("_")[0]
    data = hex_bytes(os.path.join(DATA, name))
    check(botwire.decode_columns(proto, data, side), list(botwire.decode(proto, data, side)))


def test_kobuki_columns_shapes():
    """The natural arrays: int64 per field, the analog inputs rows x 4, the
    gyro's samples rows x samples x 3, masked where a frame had fewer."""
    sim = botwire.Sim("kobuki")
    data = bytearray()
    for _ in range(200):
        sim.step(sim.next_deadline)
        data += sim.output()
    sim.close()
    cols = botwire.decode_columns("kobuki", bytes(data))
    basic = cols["basic_sensor_data"]
    n = len(basic["timestamp"])
    assert n >= 90 and basic["left_encoder"].dtype == np.int64
    assert not isinstance(basic["left_encoder"], np.ma.MaskedArray)
    assert cols["general_purpose_input"]["analog"].shape == (n, 4)
    samples = cols["raw_gyro"]["samples"]
    assert samples.ndim == 3 and samples.shape[0] == n and samples.shape[2] == 3
    assert "t" not in basic  # raw bytes: no times


def test_missing_members_are_masked():
    """p2os commands: "arg" in some, not in others (masked there); the
    member of mixed kinds (int here, text there) an object column."""
    msgs = [{"type": "command", "name": "enable", "arg": 1},
            {"type": "command", "name": "pulse"},
            {"type": "command", "name": "say", "arg": "hi"}]
    data = b"".join(botwire.encode("p2os", m) for m in msgs)
    cols = botwire.decode_columns("p2os", data, "host")["command"]
    assert cols["cmd"].tolist() == [4, 0, 15]
    arg = cols["arg"]
    assert isinstance(arg, np.ma.MaskedArray) and arg.dtype == object
    assert np.ma.getmaskarray(arg).tolist() == [False, True, False]
    assert arg[0] == 1 and arg[2] == "hi"


def test_bad_protocol():
    with pytest.raises(botwire.BotwireError, match="unknown protocol"):
        botwire.decode_columns("nope", b"")


def test_columns_need_no_compiled_module(monkeypatch, records):
    """The columns are filled in C by libbotwire_json itself: without
    botwire._tape (a python3 with no headers at build time) they are the
    same."""
    want = botwire.decode_columns("p2os", records["p2os"])
    monkeypatch.setattr(botwire.codec, "_tape", None)
    got = botwire.decode_columns("p2os", records["p2os"])
    assert sorted(got) == sorted(want)
    for kind in want:
        for k in want[kind]:
            assert np.array_equal(np.ma.getdata(got[kind][k]), np.ma.getdata(want[kind][k])), k


def test_columns_without_numpy_say_what_to_install(monkeypatch):
    """Without NumPy the error names it and where it comes from, as
    `botwire columns` does, not a bare ModuleNotFoundError."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy then fails
    with pytest.raises(ModuleNotFoundError, match=r"needs NumPy \(Debian's python3-numpy"):
        botwire.decode_columns("kobuki", b"")
