"""The Python package's tests (run by ctest as python_package, in an empty
environment): BOTWIRE_BUILD, BOTWIRE_SOURCE and BOTWIRE_CLI say where the
build, the sources and the botwire tool are; nothing else of the caller's
environment is used."""

import os
import subprocess
import sys
from typing import Dict, List, Optional

import pytest

BUILD = os.environ.get("BOTWIRE_BUILD") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build")
BUILD = os.path.abspath(BUILD)
SOURCE = os.path.abspath(os.environ.get("BOTWIRE_SOURCE") or
                         os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("BOTWIRE_CLI") or os.path.join(BUILD, "botwire")
PYTHON = sys.executable
DATA = os.path.join(SOURCE, "tests", "data")
FAMILIES = ("kobuki", "p2os", "lobot", "create", "rbsm", "rflex")

sys.path.insert(0, os.path.join(BUILD, "python"))


def fresh_env(pythonpath: Optional[str]) -> Dict[str, str]:
    """An environment with nothing of the caller's: a fixed PATH and the
    one PYTHONPATH given."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def run_python(args: List[str], pythonpath: Optional[str] = os.path.join(BUILD, "python"),
               **kw) -> subprocess.CompletedProcess:
    """A fresh python3 (the one running the tests) in a fresh environment.
    Its timeout, as cli()'s, is only a hang's guard: they take seconds."""
    return subprocess.run([PYTHON] + args, env=fresh_env(pythonpath), capture_output=True,
                          text=True, timeout=kw.pop("timeout", 120), **kw)


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    """The botwire tool."""
    return subprocess.run([CLI] + list(args), capture_output=True, timeout=120,
                          env=fresh_env(None), **kw)


@pytest.fixture
def tmp(tmp_path):
    return str(tmp_path)


@pytest.fixture(scope="session")
def records(tmp_path_factory):
    """A record of every family's emulated robot, driven meanwhile (real
    processes: `botwire record`), for every test that reads one (none
    writes to them)."""
    d = tmp_path_factory.mktemp("records")
    out = {}
    for family in FAMILIES:
        path = str(d / f"{family}.jsonl")
        r = cli("record", f"sim:{family}", "-o", path, "--for", "0.4", "--v", "0.1", "--w", "0.2")
        assert r.returncode == 0, r.stderr
        out[family] = path
    return out
