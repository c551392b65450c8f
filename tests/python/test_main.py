"""python3 -m botwire: decode writes `botwire decode`'s bytes exactly (a
record of every family, raw bytes on standard input); columns saves
decode_columns' arrays; other commands run the build's botwire command;
bad arguments get one line and a non-zero exit."""

import os
import subprocess

import numpy as np
import pytest

import botwire
from conftest import BUILD, FAMILIES, PYTHON, cli, fresh_env


def module(*args, stdin=None, cwd=None):
    return subprocess.run([PYTHON, "-m", "botwire"] + list(args), input=stdin, capture_output=True,
                          env=fresh_env(os.path.join(BUILD, "python")), timeout=120, cwd=cwd)


@pytest.mark.parametrize("family", FAMILIES)
def test_decode_is_the_cli_byte_for_byte(records, family):
    want = cli("decode", "--proto", family, records[family])
    got = module("decode", "--proto", family, records[family])
    assert want.returncode == 0 and got.returncode == 0, got.stderr
    assert len(want.stdout.splitlines()) >= 3  # the stats and more (as in test_codec)
    assert got.stdout == want.stdout
    want = cli("decode", "--proto", family, "--from", "host", "--frames", records[family])
    got = module("decode", "--proto", family, "--from", "host", "--frames", records[family])
    assert got.stdout == want.stdout


def test_decode_standard_input():
    raw = botwire.encode("kobuki", {"type": "request_extra", "flags": 11})
    got = module("decode", "--proto", "kobuki", "--from", "host", stdin=raw)
    assert got.returncode == 0, got.stderr
    assert got.stdout.decode().splitlines()[0] == '{"type":"request_extra","flags":11}'


def test_columns_npz(records, tmp):
    out = os.path.join(tmp, "k.npz")
    r = module("columns", "--proto", "kobuki", records["kobuki"], "-o", out)
    assert r.returncode == 0, r.stderr
    saved = np.load(out, allow_pickle=True)
    cols = botwire.decode_columns("kobuki", records["kobuki"])
    enc = cols["basic_sensor_data"]["left_encoder"]
    assert len(enc) > 5
    assert (saved["basic_sensor_data.left_encoder"] == enc).all()
    assert (saved["basic_sensor_data.t"] == cols["basic_sensor_data"]["t"]).all()


def test_other_commands_run_the_tool(tmp):
    out = os.path.join(tmp, "r.jsonl")
    r = module("record", "sim:p2os", "-o", out, "--for", "0.2")
    assert r.returncode == 0, r.stderr
    assert botwire.read_record(out).family == "p2os"


@pytest.mark.parametrize("args, says", [
    (["decode", "--proto", "nope", "-"], b"unknown protocol"),
    (["decode"], b"--proto"),
    (["decode", "--proto", "kobuki", "/no/such/file"], b"/no/such/file"),
    (["columns", "--proto", "kobuki", "/no/such/file", "-o", "x.npz"], b"/no/such/file"),
])
def test_bad_arguments(args, says, tmp):
    r = module(*args, stdin=b"", cwd=tmp)
    assert r.returncode != 0
    assert says in r.stderr and b"Traceback" not in r.stderr
    assert not os.path.exists(os.path.join(tmp, "x.npz"))
