"""botwire's build backend (PEP 517): `pip install ./python`.

The standard library alone: no setuptools, nothing to fetch, so pip needs
no index. The wheel holds botwire/*.py, its stubs (*.pyi) and py.typed. When it finds a
CMake build of botwire it also carries that build's libbotwire.so.0 and
libbotwire_json.so.0, and the compiled extension modules it made for this
python (botwire/_tape.cpython-311-x86_64-linux-gnu.so, say), with a
_paths.py saying the libraries are next to the package; else it is pure
Python and the package finds the libraries through the dynamic linker's
search (a `make install`).

The build: $BOTWIRE_BUILD (a CMake build folder; set, it must be one),
else ../build when this folder is in botwire's source tree and that build
has made the package and the libraries. Where a build's libraries are is
read from its python/botwire/_paths.py, as the package there reads it.

Nothing is written beside this file: pip builds in the source tree.
"""

import ast
import base64
import csv
import glob
import gzip
import hashlib
import importlib.machinery
import io
import os
import re
import struct
import sys
import sysconfig
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)  # the source tree, when this is python/ in it
LIBRARIES = ("libbotwire.so.0", "libbotwire_json.so.0")
# What [project] may say; anything else is refused rather than left out.
PROJECT_KEYS = {"name", "version", "dynamic", "description", "requires-python", "dependencies",
                "optional-dependencies", "classifiers", "urls"}
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

PATHS_NEXT_TO = '''"""Where the libraries are: next to the package (written by botwire_build)."""
from typing import List


def library_dirs(here: str) -> List[str]:
    return [here]
'''


def _forget_own_bytecode() -> None:
    """pip imports this module from the source tree, where Python has just
    cached its bytecode (unless PYTHONDONTWRITEBYTECODE): take it away."""
    cached = globals().get("__cached__")
    if not cached or os.path.dirname(os.path.dirname(os.path.abspath(cached))) != HERE:
        return
    try:
        os.remove(cached)
        os.rmdir(os.path.dirname(cached))  # only when nothing else is in it
    except OSError:
        pass


_forget_own_bytecode()


# ---- what the package is: pyproject.toml and the version -------------------

def _uncomment(line: str) -> str:
    """line without its comment (a # outside strings)."""
    quote, i = "", 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 1  # an escape: the next character is the string's
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "#":
            return line[:i]
        i += 1
    return line


def _toml_subset(text: str) -> Dict[str, Any]:
    """The TOML pyproject.toml is written in, for a python3 before 3.11 (no
    tomllib): [tables], and keys whose values are strings or arrays of
    strings, arrays over several lines. tests/python/test_pip.py checks
    that it reads the file as tomllib does."""
    data: Dict[str, Any] = {}
    table = data
    pending = ""
    for raw in text.splitlines():
        line = _uncomment(raw).strip()
        if not pending and not line:
            continue
        if not pending and line.startswith("["):
            table = data
            for key in line.strip("[]").split("."):
                table = table.setdefault(key.strip().strip('"'), {})
            continue
        pending = f"{pending} {line}" if pending else line
        if pending.count("[") > pending.count("]"):
            continue  # an array goes on
        key, _, value = pending.partition("=")
        pending = ""
        value = value.strip()
        booleans = {"true": True, "false": False}
        table[key.strip().strip('"')] = booleans[value] if value in booleans \
            else ast.literal_eval(value)
    return data


def _pyproject() -> Dict[str, Any]:
    with open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib
        data = tomllib.loads(text)
    except ImportError:
        data = _toml_subset(text)
    project: Dict[str, Any] = data["project"]
    unknown = set(project) - PROJECT_KEYS
    if unknown:
        raise ValueError(f"botwire_build: pyproject.toml's [project] says {sorted(unknown)}, "
                         "which this backend does not put in the wheel")
    return project


def _version(project: Dict[str, Any]) -> str:
    """project(botwire VERSION ...) of the top-level CMakeLists.txt; in an
    sdist, its PKG-INFO."""
    if "version" in project:
        return str(project["version"])
    cmake = os.path.join(TOP, "CMakeLists.txt")
    if os.path.isfile(cmake):
        with open(cmake, encoding="utf-8") as f:
            m = re.search(r"project\(\s*botwire\s+VERSION\s+([0-9][0-9.]*)", f.read())
        if m:
            return m.group(1)
    pkg_info = os.path.join(HERE, "PKG-INFO")
    if os.path.isfile(pkg_info):
        with open(pkg_info, encoding="utf-8") as f:
            m = re.search(r"^Version: *(\S+)", f.read(), re.M)
        if m:
            return m.group(1)
    raise ValueError("botwire_build: no version: neither ../CMakeLists.txt's "
                     "project(botwire VERSION ...) nor a PKG-INFO")


def _name(project: Dict[str, Any]) -> str:
    """The name as wheels and sdists spell it in their file names."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _metadata(project: Dict[str, Any], version: str) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Project-URL: {k}, {v}" for k, v in project.get("urls", {}).items()]
    lines += [f"Requires-Dist: {r}" for r in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in reqs:
            req, _, marker = r.partition(";")
            marker = f"({marker.strip()}) and " if marker.strip() else ""
            lines.append(f'Requires-Dist: {req.strip()}; {marker}extra == "{extra}"')
    return "\n".join(lines) + "\n"


def _package_files() -> List[str]:
    """botwire/'s files in the source: its modules, their stubs (.pyi: the
    compiled and the generated modules') and py.typed (the build's _paths.py
    is generated, never the source's)."""
    folder = os.path.join(HERE, "botwire")
    names = [n for n in os.listdir(folder)
             if (n.endswith(".py") and n != "_paths.py") or n.endswith(".pyi")]
    if os.path.isfile(os.path.join(folder, "py.typed")):
        names.append("py.typed")
    return sorted(names)


def _license() -> Optional[str]:
    for path in (os.path.join(HERE, "LICENSE"), os.path.join(TOP, "LICENSE")):
        if os.path.isfile(path):
            return path
    return None


# ---- the build whose libraries the wheel carries ---------------------------

class Build:
    def __init__(self, folder: str, libraries: Dict[str, str], extensions: List[str],
                 left_out: List[str]):
        self.folder = folder
        self.libraries = libraries    # soname: the real file
        self.extensions = extensions  # extension modules this python imports
        self.left_out = left_out      # and those built for another


def _read_build(folder: str) -> Tuple[Optional[Build], str]:
    """The build in folder, or None and why not."""
    package = os.path.join(folder, "python", "botwire")
    paths_py = os.path.join(package, "_paths.py")
    if not os.path.isfile(paths_py):
        return None, f"no python/botwire/_paths.py in {folder} (not a botwire build, or not built)"
    namespace: Dict[str, Any] = {}
    with open(paths_py, encoding="utf-8") as f:
        exec(compile(f.read(), paths_py, "exec"), namespace)
    dirs = namespace["library_dirs"](package)
    libraries = {}
    for name in LIBRARIES:
        found = [d for d in dirs if os.path.isfile(os.path.join(d, name))]
        if not found:
            return None, f"no {name} in {', '.join(dirs)} (where {paths_py} says it is)"
        libraries[name] = os.path.realpath(os.path.join(found[0], name))
    # Extension modules: NAME.so, NAME.abi3.so, NAME.cpython-311-x86_64-linux-gnu.so
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    extensions: List[str] = []
    left_out: List[str] = []
    for path in sorted(glob.glob(os.path.join(package, "*.so"))):
        name = os.path.basename(path)
        if not re.match(r"[A-Za-z_]\w*\.", name):
            continue
        ours = any(name.endswith(s) and "." not in name[:-len(s)] for s in suffixes)
        (extensions if ours else left_out).append(path)
    return Build(folder, libraries, extensions, left_out), ""


def _find_build() -> Optional[Build]:
    given = os.environ.get("BOTWIRE_BUILD")
    if given:
        build, why = _read_build(os.path.abspath(given))
        if build is None:
            raise RuntimeError(f"botwire_build: BOTWIRE_BUILD={given}: {why}")
        return build
    if os.path.isfile(os.path.join(TOP, "CMakeLists.txt")):
        build, _ = _read_build(os.path.join(TOP, "build"))
        return build
    return None


def _set_runpath(elf: bytes, runpath: bytes) -> bytes:
    """elf with its DT_RUNPATH (or DT_RPATH) string replaced by runpath,
    in place, as CMake's install does: a build's library searches the
    build's folder (and, for an empty entry, the current directory)."""
    if elf[:4] != b"\x7fELF" or elf[4] not in (1, 2) or elf[5] not in (1, 2):
        return elf
    e = "<" if elf[5] == 1 else ">"
    if elf[4] == 2:
        phoff, = struct.unpack_from(e + "Q", elf, 0x20)
        phentsize, phnum = struct.unpack_from(e + "HH", elf, 0x36)
        phdr, dyn = e + "IIQQQQQQ", e + "qQ"

        def segment(at: int) -> Tuple[int, int, int, int]:
            t, _, off, vaddr, _, filesz, _, _ = struct.unpack_from(phdr, elf, at)
            return t, off, vaddr, filesz
    else:
        phoff, = struct.unpack_from(e + "I", elf, 0x1C)
        phentsize, phnum = struct.unpack_from(e + "HH", elf, 0x2A)
        phdr, dyn = e + "IIIIIIII", e + "iI"

        def segment(at: int) -> Tuple[int, int, int, int]:
            t, off, vaddr, _, filesz, _, _, _ = struct.unpack_from(phdr, elf, at)
            return t, off, vaddr, filesz
    segments = [segment(phoff + i * phentsize) for i in range(phnum)]
    dynamic = [s for s in segments if s[0] == 2]  # PT_DYNAMIC
    if not dynamic:
        return elf
    entries: Dict[int, List[int]] = {}
    _, off, _, size = dynamic[0]
    step = struct.calcsize(dyn)
    for at in range(off, off + size, step):
        tag, value = struct.unpack_from(dyn, elf, at)
        if tag == 0:  # DT_NULL
            break
        entries.setdefault(tag, []).append(value)
    if 5 not in entries:  # DT_STRTAB
        return elf
    strtab = entries[5][0]  # an address
    loads = [s for s in segments if s[0] == 1 and s[2] <= strtab < s[2] + s[3]]  # PT_LOAD
    if not loads:
        return elf
    strtab_at = strtab - loads[0][2] + loads[0][1]
    out = bytearray(elf)
    for tag in (15, 29):  # DT_RPATH, DT_RUNPATH
        for value in entries.get(tag, []):
            at = strtab_at + value
            old = out[at:out.index(b"\0", at)]
            if len(runpath) <= len(old):
                out[at:at + len(old)] = runpath + b"\0" * (len(old) - len(runpath))
    return bytes(out)


# ---- the wheel ---------------------------------------------------------------

def _platform() -> str:
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    if sys.maxsize <= 2 ** 32:  # a 32-bit python on a 64-bit kernel
        plat = {"linux_x86_64": "linux_i686", "linux_aarch64": "linux_armv8l"}.get(plat, plat)
    return plat


def _tag(build: Optional[Build]) -> str:
    """py3-none-any without a build; the libraries alone load in any
    python3 of this platform (cffi's ABI mode): py3-none-PLATFORM; an
    extension module ties the wheel to this interpreter."""
    if build is None:
        return "py3-none-any"
    if not build.extensions:
        return f"py3-none-{_platform()}"
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
    soabi = (sysconfig.get_config_var("SOABI") or "").split("-")
    if sys.implementation.name == "cpython" and len(soabi) > 1:
        abi = "cp" + soabi[1]  # cpython-311-x86_64-linux-gnu: cp311
    else:
        abi = "_".join(soabi[:2]).replace(".", "_") or "none"
    return f"{impl}{sys.version_info[0]}{sys.version_info[1]}-{abi}-{_platform()}"


class _Wheel:
    def __init__(self, path: str):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record: List[Tuple[str, str, str]] = []

    def add(self, name: str, data: bytes, mode: int = 0o644) -> None:
        info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        self.record.append((name, "sha256=" + digest.decode("ascii"), str(len(data))))

    def close(self, record_name: str) -> None:
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerows(self.record + [(record_name, "", "")])
        info = zipfile.ZipInfo(record_name, date_time=ZIP_DATE)
        info.external_attr = 0o100644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, text.getvalue())
        self.zip.close()


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    project = _pyproject()
    version = _version(project)
    build = _find_build()
    tag = _tag(build)
    if build is None:
        print("botwire_build: no build found (make, or BOTWIRE_BUILD=DIR): a pure-Python wheel; "
              "the package finds libbotwire through the dynamic linker (make install)",
              file=sys.stderr)
    else:
        said = f"botwire_build: a wheel with {build.folder}'s libraries"
        if build.extensions:
            said += " and " + ", ".join(os.path.basename(p) for p in build.extensions)
        if build.left_out:
            said += " (left out, for another python: " + \
                ", ".join(os.path.basename(p) for p in build.left_out) + ")"
        print(said, file=sys.stderr)
    name = _name(project)
    dist_info = f"{name}-{version}.dist-info"
    filename = f"{name}-{version}-{tag}.whl"
    wheel = _Wheel(os.path.join(wheel_directory, filename))
    for f in _package_files():
        wheel.add(f"botwire/{f}", _read(os.path.join(HERE, "botwire", f)))
    if build is not None:
        wheel.add("botwire/_paths.py", PATHS_NEXT_TO.encode("utf-8"))
        for soname, path in build.libraries.items():
            wheel.add(f"botwire/{soname}", _set_runpath(_read(path), b"$ORIGIN"), 0o755)
        for path in build.extensions:
            wheel.add(f"botwire/{os.path.basename(path)}",
                      _set_runpath(_read(path), b"$ORIGIN"), 0o755)
    wheel.add(f"{dist_info}/METADATA", _metadata(project, version).encode("utf-8"))
    wheel.add(f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: botwire_build\n"
        f"Root-Is-Purelib: {'true' if build is None else 'false'}\nTag: {tag}\n").encode("utf-8"))
    licence = _license()
    if licence:
        wheel.add(f"{dist_info}/LICENSE", _read(licence))
    wheel.close(f"{dist_info}/RECORD")
    return filename


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[Dict[str, Any]] = None) -> str:
    project = _pyproject()
    version = _version(project)
    dist_info = f"{_name(project)}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w",
              encoding="utf-8") as f:
        f.write(_metadata(project, version))
    return dist_info


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """The package's files, pyproject.toml, this backend, PKG-INFO (the
    version, with no CMakeLists.txt beside it) and the licence. Its wheel
    is pure unless $BOTWIRE_BUILD names a build: an sdist carries none."""
    project = _pyproject()
    version = _version(project)
    top = f"{_name(project)}-{version}"
    filename = f"{top}.tar.gz"
    files = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
             ("botwire_build.py", os.path.join(HERE, "botwire_build.py"))]
    files += [(f"botwire/{f}", os.path.join(HERE, "botwire", f)) for f in _package_files()]
    licence = _license()
    if licence:
        files.append(("LICENSE", licence))

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mode = 0o644
        return info

    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w", format=tarfile.PAX_FORMAT) as tar:
        data = _metadata(project, version).encode("utf-8")
        info = tarfile.TarInfo(f"{top}/PKG-INFO")
        info.size, info.mode = len(data), 0o644
        info.mtime = int(os.stat(os.path.join(HERE, "pyproject.toml")).st_mtime)
        tar.addfile(info, io.BytesIO(data))
        for name, path in files:
            tar.add(path, f"{top}/{name}", recursive=False, filter=clean)
    with open(os.path.join(sdist_directory, filename), "wb") as f:
        f.write(gzip.compress(archive.getvalue(), mtime=0))
    return filename


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []
