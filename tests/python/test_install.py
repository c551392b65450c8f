"""The package installed (cmake --install into a scratch prefix, as make
install does) and from the build tree, each in a fresh python3 whose only
path to it is one PYTHONPATH: it finds its libraries, drives, decodes."""

import os
import subprocess

from conftest import BUILD, run_python

PROBE = r"""
import botwire, os, sys
print(os.path.realpath(botwire.__file__))
print(os.path.realpath(botwire.LIBRARY))
print(os.path.realpath(botwire.JSON_LIBRARY))
with botwire.Base("sim:p2os", clock="virtual") as b:
    b.drive(0.3, 0)
    b.step(2)
    print(b.truth.x - 1.0 > 0.3)
print(list(botwire.decode("kobuki", bytes.fromhex("aa55040902 0b0004"), "host"))[0])
"""


def check(out, where):
    lines = out.splitlines()
    assert lines[0].startswith(where + "/"), lines[0]
    assert lines[1].startswith(where + "/") and lines[2].startswith(where + "/"), lines
    assert lines[3] == "True"
    assert lines[4] == "{'type': 'request_extra', 'flags': 11}"


def test_installed_prefix(tmp):
    prefix = os.path.join(tmp, "prefix")
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], capture_output=True,
                       text=True, env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    site = os.path.join(prefix, "lib", "python3", "dist-packages")
    assert os.path.isfile(os.path.join(site, "botwire", "py.typed"))
    r = run_python(["-c", PROBE], pythonpath=site, cwd=tmp)
    assert r.returncode == 0, r.stderr
    check(r.stdout, os.path.realpath(prefix))
    # Moved elsewhere, the prefix still works: the package finds its
    # libraries relative to itself.
    moved = os.path.join(tmp, "moved")
    os.rename(prefix, moved)
    r = run_python(["-c", PROBE], pythonpath=os.path.join(moved, "lib", "python3",
                                                          "dist-packages"), cwd=tmp)
    assert r.returncode == 0, r.stderr
    check(r.stdout, os.path.realpath(moved))


def test_build_tree(tmp):
    r = run_python(["-c", PROBE], cwd=tmp)
    assert r.returncode == 0, r.stderr
    check(r.stdout, os.path.realpath(BUILD))


def test_without_a_path_it_is_not_found(tmp):
    r = run_python(["-c", "import botwire"], pythonpath=None, cwd=tmp)
    assert r.returncode != 0 and "No module named 'botwire'" in r.stderr
