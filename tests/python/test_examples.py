"""examples/square.py (docs/python.md shows it, line for line) drives its
square and prints the closure; the benchmark runs (its figures are in
docs/python.md: not a timed test) and finds botwire and the plain parser
agree."""

import os
import re

from conftest import SOURCE, run_python


def test_square(tmp):
    path = os.path.join(SOURCE, "examples", "square.py")
    script = open(path).read()
    assert len(script.splitlines()) == 12
    page = open(os.path.join(SOURCE, "docs", "python.md")).read()
    assert "```python\n" + script + "```" in page
    r = run_python([path], cwd=tmp)
    assert r.returncode == 0, r.stderr
    m = re.match(r"closure (\d+\.\d) mm \(true: ([-+]\d\.\d+), ([-+]\d\.\d+) m\), (\d+\.\d) s",
                 r.stdout)
    assert m, r.stdout
    closure, tx, ty, t = map(float, m.groups())
    assert closure < 20 and abs(tx) < 0.05 and abs(ty) < 0.05 and 20 < t < 60


def test_bench_runs(tmp):
    r = run_python([os.path.join(SOURCE, "bench", "python_bench.py"), "--quick"], cwd=tmp,
                   timeout=300)
    assert r.returncode == 0, r.stderr
    assert "botwire.decode" in r.stdout and "plain Python" in r.stdout
    assert len(re.findall(r"MB/s", r.stdout)) == 4 and len(re.findall(r" us\n", r.stdout)) == 5
    assert "b.step(0.02) + b.state" in r.stdout and "b.step(0.02) + b.pose" in r.stdout
