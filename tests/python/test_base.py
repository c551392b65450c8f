"""botwire.Base over every family's emulated robot: the state under the
names of `botwire drive`'s state line, motion checked against the emulated
robot's true state, events, caps, errors with the library's message, and
waits that release the GIL."""

import dataclasses
import json
import math
import pydoc
import threading

import pytest

import botwire
from conftest import FAMILIES, cli

OPTIONAL = {"mode", "brake", "faults", "raw_x", "raw_y", "bump_switches", "dock_ir", "joystick",
            "power", "estimated", "commands_ignored"}
LINK = {"frames", "rejected", "skipped_bytes", "implausible"}


@pytest.mark.parametrize("family", FAMILIES)
def test_state_has_the_drive_lines_names(family):
    r = cli("drive", f"sim:{family}", "--fast", "--for", "0.3")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.decode().splitlines()]
    last = lines[-1]
    fields = {f.name for f in dataclasses.fields(botwire.State)}
    with botwire.Base(f"sim:{family}", clock="virtual") as b:
        b.step(0.3)
        st = b.state
    for key in last:
        if key in LINK:
            assert key == "rejected" or hasattr(st.link, key)
            continue
        assert key in fields, key
        assert getattr(st, key) is not None, key
    # What the line leaves out for this base, the state has as None.
    for key in OPTIONAL - set(last) - {"estimated", "commands_ignored"}:
        assert getattr(st, key) is None, key
    assert st.online and st.link.frames > 0 and st.pose == (st.x, st.y, st.theta)


@pytest.mark.parametrize("family", ["kobuki", "p2os", "create", "rflex"])
def test_drive_in_virtual_time_against_the_truth(family):
    with botwire.Base(f"sim:{family}", clock="virtual") as b:
        assert botwire.Cap.DRIVE in b.caps
        start, t0 = b.truth, b.now
        b.drive(0.2, 0.0)
        b.step(3.0)  # longer than the command timeout: step keeps the drive in force
        st, truth = b.state, b.truth
        assert b.now - t0 == pytest.approx(3.0, abs=0.02)
        moved = math.hypot(truth.x - start.x, truth.y - start.y)
        assert moved > 0.45, moved
        # Odometry agrees with the true motion.
        assert math.hypot(st.x, st.y) == pytest.approx(moved, abs=0.03)
        assert truth.v == pytest.approx(0.2, abs=0.02)
        b.stop()
        b.step(1.0)
        assert b.truth.v == pytest.approx(0.0, abs=1e-3)
        assert [e.type for e in b.events()][:1] == [botwire.EventType.ONLINE]
    with pytest.raises(botwire.BotwireError, match="closed"):
        b.drive(0.1, 0)


def test_bump_event():
    # Straight ahead from the start the box is 1.75 m away (sim.h).
    with botwire.Base("sim:kobuki", clock="virtual") as b:
        b.drive(0.3, 0.0)
        events = []
        for _ in range(1000):
            b.step(0.05)
            events += list(b.events())
            if any(e.type == botwire.EventType.BUMP for e in events):
                break
        bump = [e for e in events if e.type == "bump"][0]
        assert bump.on and bump.mask == botwire.BUMP_FRONT
        assert b.truth.contact and b.state.bumper & botwire.BUMP_FRONT


def test_errors_are_the_librarys_lines():
    r = cli("drive", "sim:kobuki?foo=1", "--fast")
    with pytest.raises(botwire.BotwireError) as e:
        botwire.Base("sim:kobuki?foo=1")
    assert r.stderr.decode().strip() == f"botwire drive: {e.value}"
    assert "this URL takes: world, noise" in str(e.value)
    with pytest.raises(botwire.BotwireError, match='unknown robot family "roomba"'):
        botwire.Base("sim:roomba")
    with pytest.raises(botwire.BotwireError, match="needs a sim: URL"):
        botwire.Base("kobuki:/dev/ttyUSB0", clock="virtual")
    with pytest.raises(botwire.BotwireError, match="not a serial device"):
        botwire.Base("kobuki:/dev/null")


def test_silent_line_is_named(tmp):
    # A pty nobody serves: the base opens it, hears nothing, and says so.
    with botwire.Sim("p2os", pty=True) as sim:  # P2OS speaks only when spoken to...
        url = "kobuki:" + sim.path              # ...and not Kobuki
        with pytest.raises(botwire.BotwireError) as e:
            botwire.Base(url, wait=0.5)
    assert url in str(e.value)


def test_help_shows_the_docstrings():
    text = pydoc.render_doc(botwire.Base, renderer=pydoc.plaintext)
    assert "Leaving the ``with`` block" in text and "def drive" not in text
    assert "drive(self, v: 'float', w: 'float')" in text
    assert "botwire drive`'s state line" in pydoc.render_doc(botwire.State, renderer=pydoc.plaintext)


def test_blocking_calls_release_the_gil():
    """A C call that blocks (poll(2) through cffi's ABI mode, as every call
    into libbotwire goes) lets other Python threads run meanwhile."""
    from cffi import FFI
    ffi = FFI()
    ffi.cdef("struct pollfd { int fd; short events; short revents; };"
             "int poll(struct pollfd *fds, unsigned long n, int timeout);")
    libc = ffi.dlopen(None)
    count = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    before = count[0]
    libc.poll(ffi.NULL, 0, 300)  # 0.3 s in C
    during = count[0] - before
    done.set()
    t.join()
    assert during > 10000, during
