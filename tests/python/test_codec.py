"""botwire.decode, Decoder and encode against `botwire decode` and
`botwire encode`: the same messages (compared as parsed JSON, message by
message) on a record of every family, raw bytes of each side, any split;
encode(decode(x)) == x on the tests' golden frames."""

import json
import os

import pytest

import botwire
from conftest import CLI, DATA, FAMILIES, SOURCE, cli


def cli_decode(proto, path, *opts):
    r = cli("decode", "--proto", proto, *opts, path)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.decode().splitlines()]


def same(got, want):
    """Equal as the JSON they write: members in the same order, 1 and 1.0
    told apart (== alone would take either)."""
    return json.dumps(got) == json.dumps(want)


@pytest.fixture(params=["tape", "text"])
def way(request, monkeypatch):
    """Both ways the package builds its dicts: from the decoder's tape in C
    (botwire._tape) and, where that module is not built, from its text."""
    if request.param == "text":
        monkeypatch.setattr(botwire.codec, "_tape", None)
    else:
        assert botwire.codec._tape is not None, "botwire._tape was not built"
    return request.param


@pytest.mark.parametrize("family", FAMILIES)
def test_record_decodes_as_the_cli(records, family, way):
    path = records[family]
    want = cli_decode(family, path)
    got = list(botwire.decode(family, path))
    # More than the stats: the robot's first words at least. How many more
    # is the machine's pace (a recorder held back through its 0.4 s of a
    # Pioneer has the handshake and a packet or two).
    assert len(want) >= 3 and want[-1]["type"] == "stats"
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert same(g, w), f"message {i}: {g} != {w}"
    # Each side, and one array per frame, as --from and --frames give them.
    for opts, kw in ((["--from", "robot"], {"side": "robot"}), (["--from", "host"], {"side": "host"}),
                     (["--frames"], {"frames": True})):
        assert same(list(botwire.decode(family, path, **kw)), cli_decode(family, path, *opts))


def hex_bytes(path):
    """A tests/data .hex file's bytes ('#' comments)."""
    text = "".join(line.split("#", 1)[0] for line in open(path))
    return bytes.fromhex(text.replace(",", " "))


HEX_FILES = sorted(f for f in os.listdir(DATA) if f.endswith(".hex"))


@pytest.mark.parametrize("name", HEX_FILES)
@pytest.mark.parametrize("side", ["robot", "host"])
def test_raw_bytes_decode_as_the_cli_in_any_split(name, side, way):
    """Golden, noisy and malformed bytes alike: the same messages and the
    same counts, whatever the split."""
    proto = name.split("_")[0]
    path = os.path.join(DATA, name)
    want = cli_decode(proto, path, "--hex", "--from", side)
    data = hex_bytes(path)
    assert same(list(botwire.decode(proto, data, side)), want)
    for step in (1, 3, 7):
        d = botwire.Decoder(proto, side)
        got = []
        for i in range(0, len(data), step):
            got += d.feed(data[i:i + step])
        got += d.close()
        assert same(got, want), f"split every {step} bytes"


# The golden frames: the streams of good frames in tests/data, by side.
GOLDEN = [("create_golden.hex", "host"), ("create_golden_robot.hex", "robot"),
          ("kobuki_feedback.hex", "robot"), ("p2os_golden.hex", "host"),
          ("rbsm_golden.hex", "robot"), ("rflex_golden.hex", "robot")]


@pytest.mark.parametrize("name,side", GOLDEN)
def test_encode_of_decode_is_the_golden_bytes(name, side):
    proto = name.split("_")[0]
    data = hex_bytes(os.path.join(DATA, name))
    frames = list(botwire.decode(proto, data, side, frames=True))
    stats = frames.pop()
    assert stats["type"] == "stats" and stats["skipped_bytes"] == 0 and stats["frames"] > 0
    assert b"".join(botwire.encode(proto, f) for f in frames) == data
    assert botwire.encode(proto, stats) == b""


JSONL = sorted(f for f in os.listdir(DATA) if f.endswith(".jsonl") and "record" not in f)


@pytest.mark.parametrize("name", JSONL)
def test_encode_as_the_cli(name):
    """Every message of the tests' JSON Lines: the CLI's bytes, and
    encode(decode(x)) == x on them."""
    proto = name.split("_")[0]
    path = os.path.join(DATA, name)
    r = cli("encode", "--proto", proto, path)
    assert r.returncode == 0, r.stderr
    msgs = [json.loads(line) for line in open(path) if line.strip()]
    data = b"".join(botwire.encode(proto, m) for m in msgs)
    assert data == r.stdout
    side = "host" if "host" in name else "robot"
    frames = list(botwire.decode(proto, data, side, frames=True))[:-1]
    assert b"".join(botwire.encode(proto, f) for f in frames) == data


def test_errors_carry_the_cli_message(tmp):
    line = '{"type":"base_control","speed":100000,"radius":0}'
    path = os.path.join(tmp, "bad.jsonl")
    open(path, "w").write(line + "\n")
    r = cli("encode", "--proto", "kobuki", path)
    assert r.returncode == 1
    with pytest.raises(botwire.BotwireError) as e:
        botwire.encode("kobuki", json.loads(line))
    # botwire encode: line 1: <the reason>
    assert r.stderr.decode().strip() == f"botwire encode: line 1: {e.value}"
    with pytest.raises(botwire.BotwireError, match='unknown protocol "roomba"'):
        botwire.Decoder("roomba")
    with pytest.raises(botwire.BotwireError, match="no model"):
        botwire.Decoder("rbsm", model="hal")


def test_read_record(records):
    rec = botwire.read_record(records["kobuki"])
    assert rec.family == "kobuki" and rec.header["url"] == "sim:kobuki"
    assert {c.side for c in rec.chunks} == {"robot", "host"}
    assert all(a.t <= b.t for a, b in zip(rec.chunks, rec.chunks[1:]))
    # A record iterates over its chunks (list() of it raised TypeError).
    assert list(rec) == rec.chunks and len(rec) == len(rec.chunks) > 0
    # The robot's bytes alone decode as the record's robot side does.
    robot = [m for m in botwire.decode("kobuki", records["kobuki"], "robot")]
    raw = list(botwire.decode("kobuki", rec.data("robot"), "robot"))
    strip = lambda ms: [{k: v for k, v in m.items() if k not in ("t", "from", "damaged_lines")}
                        for m in ms]
    assert strip(raw) == strip(robot)


def test_read_record_mcap(tmp, records):
    # Every family's record as MCAP (`botwire convert`): the same header
    # and chunks, to the microsecond, as its JSON Lines.
    for family in FAMILIES:
        path = os.path.join(tmp, f"{family}.mcap")
        r = cli("convert", records[family], path)
        assert r.returncode == 0, r.stderr
        a, b = botwire.read_record(records[family]), botwire.read_record(path)
        assert b.header == dict(a.header, format="mcap") and len(b) == len(a) > 0
        assert all(x.side == y.side and x.data == y.data and abs(x.t - y.t) < 1e-9
                   for x, y in zip(a, b)), family
    # A recorder killed mid-run: its cut-off end named by its offset.
    data = open(path, "rb").read()
    cut = os.path.join(tmp, "cut.mcap")
    open(cut, "wb").write(data[: len(data) // 2])
    with pytest.raises(botwire.BotwireError, match=r"cut\.mcap: offset \d+: "):
        botwire.read_record(cut)
    with pytest.raises(botwire.BotwireError, match="not a botwire record"):
        botwire.read_record(os.path.join(SOURCE, "README.md"))


def test_damaged_record_line(tmp, records):
    lines = open(records["p2os"]).read().splitlines()
    lines.insert(3, lines[3][:17])  # a recorder killed mid-line
    path = os.path.join(tmp, "damaged.jsonl")
    open(path, "w").write("\n".join(lines) + "\n")
    d = botwire.Decoder("p2os")
    got = d.feed(open(path, "rb").read()) + d.close()
    assert got == cli_decode("p2os", path)
    assert got[-1]["damaged_lines"] == 1 and d.warnings[0].startswith("line 4: ")
    with pytest.raises(botwire.BotwireError, match="line 4"):
        botwire.read_record(path)


def test_protocols():
    assert botwire.protocols() == list(FAMILIES)
