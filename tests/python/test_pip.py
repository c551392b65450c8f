"""pip install ./python into a venv of Debian's python3 (its cffi through
--system-site-packages), offline, as docs/python.md tells a user to: with
a build, the wheel carries its libraries next to the package; from the
sdist (no build), the package is pure Python and finds the libraries
through the dynamic linker, or says clearly that it cannot. pip uninstall
leaves nothing behind, and building writes nothing into the source tree
(pip builds there). The backend is python/botwire_build.py."""

import base64
import csv
import hashlib
import io
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from typing import Dict, List

from conftest import BUILD, PYTHON, SOURCE

PACKAGE_SOURCE = os.path.join(SOURCE, "python")

PROBE = r"""
import botwire, importlib.metadata, math, os
print(os.path.dirname(os.path.realpath(botwire.__file__)))
print(botwire.LIBRARY)
print(botwire.JSON_LIBRARY)
print(importlib.metadata.version("botwire") == botwire.__version__)
with botwire.Base("sim:kobuki", clock="virtual") as b:
    start = b.truth
    b.drive(0.2, 0.0)
    b.step(2.0)
    print(math.hypot(b.truth.x - start.x, b.truth.y - start.y) > 0.3)
print(list(botwire.decode("kobuki", bytes.fromhex("aa55040902 0b0004"), "host"))[0])
"""
DECODED = "{'type': 'request_extra', 'flags': 11}"


def env_in(tmp: str, **more: str) -> Dict[str, str]:
    """Nothing of the caller's: no PYTHONPATH, no PIP_*, a HOME and a TMPDIR
    of the test's, and no pip configuration file (PIP_CONFIG_FILE=/dev/null
    is pip's way to read none, the machine's /etc/pip.conf included).
    Bytecode is written: the source tree must stay clean anyway, and
    uninstall must take the venv's away."""
    for d in ("home", "tmp", "elsewhere"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": os.path.join(tmp, "home"),
           "TMPDIR": os.path.join(tmp, "tmp"), "PIP_CONFIG_FILE": os.devnull}
    env.update(more)
    return env


def run(args: List[str], env: Dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    # 180 s: only a hang's guard (pip builds and installs in seconds, in
    # tens of seconds on a loaded machine).
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def make_venv(tmp: str) -> str:
    venv = os.path.join(tmp, "venv")
    r = run([PYTHON, "-m", "venv", "--system-site-packages", venv], env_in(tmp), tmp)
    assert r.returncode == 0, f"{r.stderr} (python3-venv: scripts/deps.sh installs it)"
    return venv


def pip(venv: str, tmp: str, *args: str, cwd: str, **env: str) -> subprocess.CompletedProcess:
    r = run([os.path.join(venv, "bin", "python"), "-m", "pip", "--disable-pip-version-check"]
            + list(args), env_in(tmp, **env), cwd)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def in_venv(venv: str, tmp: str, code: str, **env: str) -> subprocess.CompletedProcess:
    """venv's python, in a folder outside the repository."""
    return run([os.path.join(venv, "bin", "python"), "-c", code], env_in(tmp, **env),
               os.path.join(tmp, "elsewhere"))


def tree(folder: str) -> List[str]:
    return sorted(os.path.relpath(os.path.join(d, n), folder)
                  for d, dirs, files in os.walk(folder) for n in dirs + files)


def wheel_file(package: str) -> Dict[str, str]:
    """The installed distribution's WHEEL, as a dict."""
    dist_info = [n for n in os.listdir(os.path.dirname(package)) if n.startswith("botwire-")
                 and n.endswith(".dist-info")]
    assert len(dist_info) == 1, dist_info
    with open(os.path.join(os.path.dirname(package), dist_info[0], "WHEEL")) as f:
        return dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line)


def source_files() -> List[str]:
    folder = os.path.join(PACKAGE_SOURCE, "botwire")
    return sorted(n for n in os.listdir(folder)
                  if n.endswith(".py") or n.endswith(".pyi") or n == "py.typed")


def uninstall(venv: str, tmp: str) -> None:
    pip(venv, tmp, "uninstall", "-y", "botwire", cwd=tmp)
    left = [os.path.join(d, n) for d, dirs, files in os.walk(venv) for n in dirs + files
            if n.lower().startswith("botwire")]
    assert left == []
    r = in_venv(venv, tmp, "import botwire")
    assert r.returncode != 0 and "No module named 'botwire'" in r.stderr, r.stderr


def build_extensions() -> List[str]:
    """The extension modules the build made for this python (the wheel
    carries them)."""
    import importlib.machinery
    folder = os.path.join(BUILD, "python", "botwire")
    return sorted(n for n in os.listdir(folder)
                  for s in importlib.machinery.EXTENSION_SUFFIXES
                  if n.endswith(s) and "." not in n[:-len(s)])


def test_with_the_build(tmp):
    venv = make_venv(tmp)
    before = tree(PACKAGE_SOURCE)
    pip(venv, tmp, "install", "--no-index", "--no-cache-dir", "./python", cwd=SOURCE,
        BOTWIRE_BUILD=BUILD)
    assert tree(PACKAGE_SOURCE) == before

    r = in_venv(venv, tmp, PROBE)
    assert r.returncode == 0, r.stderr
    package, library, json_library, same_version, moved, decoded = r.stdout.splitlines()
    assert package.startswith(os.path.realpath(venv) + "/"), package
    # The libraries next to the package, copies (no links into the build).
    assert library == os.path.join(package, "libbotwire.so.0")
    assert json_library == os.path.join(package, "libbotwire_json.so.0")
    for lib in (library, json_library):
        assert os.path.isfile(lib) and not os.path.islink(lib)
    assert same_version == "True"  # the wheel's version (CMake's) is botwire.__version__
    assert moved == "True" and decoded == DECODED
    assert sorted(n for n in os.listdir(package) if n.endswith(".so") or ".so." in n) == \
        sorted(["libbotwire.so.0", "libbotwire_json.so.0"] + build_extensions())
    # The build's run path (its folder, and an empty entry: the current
    # directory) is not carried: libbotwire_json looks beside itself.
    r = run(["readelf", "-d", json_library], {"PATH": "/usr/bin:/bin"}, tmp)
    assert r.returncode == 0, r.stderr
    runpath = [line for line in r.stdout.splitlines() if "RUNPATH" in line or "RPATH" in line]
    assert all("[$ORIGIN]" in line for line in runpath), runpath

    wheel = wheel_file(package)
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheel["Root-Is-Purelib"] == "false" and wheel["Tag"].endswith("-" + plat), wheel
    if build_extensions():
        assert wheel["Tag"].startswith("cp%d%d-" % sys.version_info[:2]), wheel
    uninstall(venv, tmp)


def test_from_the_sdist_pure(tmp):
    dist = os.path.join(tmp, "dist")
    os.makedirs(dist)
    before = tree(PACKAGE_SOURCE)
    sdist = "import sys, botwire_build; print(botwire_build.build_sdist(sys.argv[1]))"
    r = run([PYTHON, "-c", sdist, dist], env_in(tmp), PACKAGE_SOURCE)
    assert r.returncode == 0, r.stderr
    assert tree(PACKAGE_SOURCE) == before
    sdist = os.path.join(dist, r.stdout.strip())
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    assert sorted(n for n in names if n.startswith(top + "/botwire/")) == \
        [f"{top}/botwire/{n}" for n in source_files()]
    for n in ("PKG-INFO", "pyproject.toml", "botwire_build.py"):
        assert f"{top}/{n}" in names

    # Installed from the sdist: no build beside it, a pure wheel.
    venv = make_venv(tmp)
    pip(venv, tmp, "install", "--no-index", "--no-cache-dir", sdist, cwd=tmp)
    r = in_venv(venv, tmp, "import importlib.util, os; "
                "print(os.path.dirname(importlib.util.find_spec('botwire').origin))")
    package = r.stdout.strip()
    assert sorted(n for n in os.listdir(package) if n != "__pycache__") == source_files()
    wheel = wheel_file(package)
    assert wheel["Tag"] == "py3-none-any" and wheel["Root-Is-Purelib"] == "true", wheel

    # Where the dynamic linker does not find the libraries, the package says
    # so in one line of its own.
    r = run([PYTHON, "-c", "import ctypes; ctypes.CDLL('libbotwire.so.0')"], env_in(tmp), tmp)
    if r.returncode != 0:  # not installed on this machine
        r = in_venv(venv, tmp, "import botwire")
        assert r.returncode != 0
        assert r.stderr.splitlines()[-1].startswith(
            "ImportError: botwire: cannot load libbotwire.so.0"), r.stderr
        assert "During handling" not in r.stderr, r.stderr
    # Where it does, the package takes them from there.
    import botwire
    dirs = {os.path.dirname(botwire.LIBRARY), os.path.dirname(botwire.JSON_LIBRARY)}
    r = in_venv(venv, tmp, PROBE, LD_LIBRARY_PATH=":".join(sorted(dirs)))
    assert r.returncode == 0, r.stderr
    package_, library, json_library, same_version, moved, decoded = r.stdout.splitlines()
    assert package_ == package
    assert (library, json_library) == ("libbotwire.so.0", "libbotwire_json.so.0")
    assert same_version == "True" and moved == "True" and decoded == DECODED
    uninstall(venv, tmp)


def test_backend(tmp):
    """The backend alone: RECORD, a BOTWIRE_BUILD that is not a build, its
    TOML reader for a python3 without tomllib."""
    before = tree(PACKAGE_SOURCE)
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    build = "import sys, botwire_build; print(botwire_build.build_wheel(sys.argv[1]))"
    r = run([PYTHON, "-c", build, out], env_in(tmp, BOTWIRE_BUILD=BUILD), PACKAGE_SOURCE)
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith(f"botwire_build: a wheel with {BUILD}'s libraries"), r.stderr
    # RECORD names every file of the wheel with its sha256 and size (pip
    # uninstall removes what it names).
    with zipfile.ZipFile(os.path.join(out, r.stdout.strip())) as whl:
        record_name = [n for n in whl.namelist() if n.endswith(".dist-info/RECORD")]
        assert len(record_name) == 1
        rows = list(csv.reader(io.StringIO(whl.read(record_name[0]).decode())))
        assert sorted(row[0] for row in rows) == sorted(whl.namelist())
        for name, digest, size in rows:
            if name == record_name[0]:
                continue
            data = whl.read(name)
            assert digest == "sha256=" + base64.urlsafe_b64encode(
                hashlib.sha256(data).digest()).rstrip(b"=").decode(), name
            assert int(size) == len(data), name

    not_a_build = os.path.join(tmp, "not-a-build")
    os.makedirs(not_a_build)
    r = run([PYTHON, "-c", build, out], env_in(tmp, BOTWIRE_BUILD=not_a_build), PACKAGE_SOURCE)
    assert r.returncode != 0
    assert r.stderr.splitlines()[-1] == (
        f"RuntimeError: botwire_build: BOTWIRE_BUILD={not_a_build}: no python/botwire/_paths.py "
        f"in {not_a_build} (not a botwire build, or not built)"), r.stderr

    r = run([PYTHON, "-c", "import botwire_build, tomllib; t = open('pyproject.toml').read(); "
             "print(botwire_build._toml_subset(t) == tomllib.loads(t))"], env_in(tmp),
            PACKAGE_SOURCE)
    assert r.stdout == "True\n", r.stderr
    assert tree(PACKAGE_SOURCE) == before
