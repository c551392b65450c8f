"""cffi's ABI mode takes the struct declarations in botwire/_ffi.py on
trust: a field added to a header and not there would shift every field
after it. The headers, compiled, must give every declared struct the same
size and every field the same offset."""

import os
import subprocess

import pytest

from botwire._ffi import STRUCTS, ffi
from conftest import SOURCE


def test_structs_match_the_headers(tmp):
    cc = os.environ.get("BOTWIRE_CC") or "cc"
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "botwire/botwire.h"',
             "int main(void) {"]
    want = []
    for name in STRUCTS:
        t = ffi.typeof(name)
        lines.append(f'printf("%zu\\n", sizeof({name}));')
        want.append((name, "sizeof", ffi.sizeof(t)))
        for field, _ in t.fields:
            lines.append(f'printf("%zu\\n", offsetof({name}, {field}));')
            want.append((name, field, ffi.offsetof(t, field)))
    lines.append("return 0; }")
    src = os.path.join(tmp, "layout.c")
    exe = os.path.join(tmp, "layout")
    open(src, "w").write("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", "-I", os.path.join(SOURCE, "include"), src, "-o", exe],
                   check=True, env={"PATH": "/usr/bin:/bin"})
    got = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == len(want)
    bad = [f"{n}.{f}: C {g}, declared {w}" for (n, f, w), g in zip(want, got) if int(g) != w]
    assert not bad, bad
