"""botwire.Base over every family's emulated robot: the state under the
names of `botwire drive`'s state line, motion checked against the emulated
robot's true state, events, caps, errors with the library's message, and
waits that release the GIL."""

import dataclasses
import json
import math
import os
import pydoc
import sys
import threading

import pytest

import botwire
import botwire.types as T
from conftest import FAMILIES, cli

OPTIONAL = {"mode", "brake", "faults", "raw_x", "raw_y", "bump_switches", "dock_ir", "buoys",
            "self_driving", "joystick", "power", "estimated", "commands_ignored"}
LINK = {"frames", "rejected", "skipped_bytes", "implausible"}


def test_create2_by_its_name():
    """"create2" is the create family's model create2 (a Create 2 reports
    its encoders: raw_x; a Create 1 does not)."""
    with botwire.Base("sim:create2", clock="virtual") as b:
        b.step(0.3)
        assert b.family == "create" and b.state.raw_x is not None
    with botwire.Base("sim:create", clock="virtual") as b:
        b.step(0.3)
        assert b.state.raw_x is None
    with pytest.raises(botwire.BotwireError, match="model=create says otherwise"):
        botwire.Base("sim:create2?model=create", clock="virtual")


def test_create_commands_against_the_truth():
    """Base.create: each wheel its own speed (the emulated robot's true
    wheels, kept in force by step), Passive while running (the robot
    stands though driven), Full again (it drives), and the Create 2's own
    packets; a Kobuki has none of it."""
    with botwire.Base("sim:create2", clock="virtual") as b:
        b.create.drive_direct(0.1, 0.3)
        b.step(1.0)  # longer than the command timeout: kept in force
        t = b.truth
        assert abs(t.v - 0.2) < 0.005 and abs(t.w - 0.2 / 0.235) < 0.02, t
        assert b.create.currents["right"] > b.create.currents["left"] > 0
        assert b.create.light_bumper == 0 and b.create.ir == {"omni": 0, "left": 0, "right": 0}
        b.create.mode = "passive"
        b.step(0.3)
        assert b.create.mode == "passive"
        x = b.truth.x
        b.create.drive_direct(0.2, 0.2)
        b.step(0.5)
        assert abs(b.truth.x - x) < 1e-3 and b.truth.v == 0
        b.create.mode = "full"
        b.create.drive_direct(0.2, 0.2)
        b.step(0.5)
        assert b.create.mode == "full" and b.truth.v > 0.15
        with pytest.raises(ValueError):
            b.create.mode = "sleep"
        with pytest.raises(botwire.BotwireError, match="drive_direct: invalid argument"):
            b.create.drive_direct(0.7, 0)
        with pytest.raises(botwire.BotwireError, match="no_such: unknown"):
            b.create.value("no_such")
    with botwire.Base("sim:kobuki", clock="virtual") as b:
        with pytest.raises(botwire.BotwireError, match="has no Create commands"):
            b.create.drive_direct(0.1, 0.1)


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


def test_state_is_kept_until_the_base_changes_and_pose_twist_read_the_robot():
    with botwire.Base("sim:kobuki", clock="virtual") as b:
        start = b.truth
        b.drive(0.2, 0.5)
        b.step(1.0)
        first = b.state
        # Nothing came between: the same snapshot, not another one.
        assert b.state is first
        # The fast paths read what the snapshot holds.
        assert b.pose == first.pose
        assert b.twist == (first.v, first.w)
        assert b.twist[0] == pytest.approx(0.2, abs=0.02)
        # A frame read: a new snapshot, the robot further on (by the truth).
        b.step(0.1)
        now = b.state
        assert now is not first and now.t > first.t and now.link.frames > first.link.frames
        assert now.pose == b.pose and now.pose != first.pose
        truth = b.truth
        assert math.hypot(now.x, now.y) == pytest.approx(
            math.hypot(truth.x - start.x, truth.y - start.y), abs=0.02)
    with botwire.Base("sim:kobuki", clock="virtual") as b:
        b.step(0.2)
        st = b.state
        b.drive(0.1, 0.0)  # a command sent changes what the base holds
        assert b.state is not st


def slow_state(s, caps):
    """The snapshot read field by field through cffi: what make_state's
    one unpack must equal."""
    enc = bool(caps & T.Cap.ENCODERS)
    ranges = tuple(
        T.Range(T._pose(r.mount), r.max_range, r.range, r.t, T._pose(r.at),
              r.raw_x if enc else None, r.raw_y if enc else None,
              "ir" if r.kind == T.lib.BW_RANGE_IR else "sonar")
        for r in s.ranges[0:s.nranges])
    online = bool(s.online)
    nsw = min(s.nbump_switches, 64)
    motors = bool(caps & T.Cap.MOTOR_REPORT)
    return T.State(
        t=s.t, x=s.pose.x, y=s.pose.y, theta=s.pose.theta,
        v=s.v if online else None, w=s.w if online else None,
        bumper=s.bumpers, cliff=s.cliffs, battery=s.battery, online=online,
        mode=T._text(s.mode) or None,
        brake=bool(s.brake) if caps & T.Cap.BRAKE else None,
        faults=s.faults if caps & T.Cap.FAULTS else None,
        raw_x=float(round(s.raw_x)) if enc else None,
        raw_y=float(round(s.raw_y)) if enc else None,
        bump_switches=tuple(bool((s.bump_switches >> i) & 1) for i in range(nsw))
        if caps & T.Cap.BUMP_SWITCHES and nsw else None,
        dock_ir=(s.dock_ir[0], s.dock_ir[1], s.dock_ir[2]) if caps & T.Cap.DOCK_IR else None,
        buoys=(s.buoys[0], s.buoys[1], s.buoys[2]) if caps & T.Cap.SEEK_DOCK else None,
        self_driving=bool(s.self_driving) if caps & T.Cap.SEEK_DOCK else None,
        joystick=T.Joystick(s.joystick.x, s.joystick.y, s.joystick.buttons)
        if caps & T.Cap.JOYSTICK and s.joystick.active else None,
        power=T.Power(T._num(s.power.voltage), T._num(s.power.logic_voltage), T._num(s.power.current),
                    s.power.status) if caps & T.Cap.POWER else None,
        estimated=bool(s.estimated), estimated_time=s.estimated_time,
        wheel_drops=s.wheel_drops, buttons=s.buttons, stalled=bool(s.stalled),
        battery_current=s.battery_current, battery_charge=s.battery_charge,
        battery_capacity=s.battery_capacity, battery_temp=s.battery_temp,
        battery_fraction=s.battery_fraction if s.battery_fraction > 0 else None,
        charging=T._CHARGING[s.charging] if 0 <= s.charging < 4 else "unknown",
        charge_sources=s.charge_sources, commands_ignored=bool(s.commands_ignored),
        trans=T.Axis(s.trans.velocity, s.trans.acceleration, s.trans.torque) if motors else None,
        rot=T.Axis(s.rot.velocity, s.rot.acceleration, s.rot.torque) if motors else None,
        encoder=(s.encoder[0], s.encoder[1]) if enc else None,
        counts_per_m=s.counts_per_m if enc else None,
        wheel_radius=s.wheel_radius if enc and s.wheel_radius > 0 else None,
        unique_id=T._text(s.unique_id) if caps & T.Cap.UNIQUE_ID else None,
        gains=T.Gains(bool(s.gains.known), bool(s.gains.user), s.gains.p, s.gains.i, s.gains.d)
        if caps & T.Cap.GAINS else None,
        firmware=T._text(s.firmware), hardware=T._text(s.hardware), name=T._text(s.name),
        ranges=ranges, reconnects=s.reconnects,
        link=T.Link(s.link.frames, s.link.checksum_errors, s.link.length_errors,
                  s.link.skipped_bytes, s.link.unknown, s.link.implausible),
        events_dropped=s.events_dropped)


@pytest.mark.parametrize("family", FAMILIES)
def test_state_snapshot_reads_every_field_as_cffi_does(family):
    # Every family, moving (ranges, encoders, motors, power where it has
    # them), the one-unpack snapshot field for field as read through cffi.
    with botwire.Base(f"sim:{family}", clock="virtual") as b:
        b.drive(0.2, 0.4)
        for _ in range(3):
            b.step(0.7)
            caps = T.lib.bw_base_caps(b._b)
            fast, slow = T.make_state(b._st, caps), slow_state(b._st, caps)
            assert repr(fast) == repr(slow)
            assert fast.online and fast.link.frames > 0


@pytest.mark.parametrize("url", ["sim:create?model=create2&battery=0.5&start=3.601,2.250,90",
                                 "sim:create?battery=0.5&start=3.601,2.250,90",
                                 "sim:kobuki?start=3.9,1.268,180"])
def test_dock_against_the_truth(url):
    # Base.dock: the Create by its own Seek Dock (driving itself, never
    # driven by the host meanwhile), the Kobuki by its dock's IR; docked
    # when the emulator's contacts say so, and left on the dock charging.
    with botwire.Base(url, clock="virtual") as b:
        b.drive(0.0, 0.0)
        why = b.dock(timeout=300)
        assert why.startswith("docked and charging after "), why
        b.step(1.0)
        assert b.truth.docked and b.state.charge_sources & 2
        if "create" in url:
            assert b.state.mode == "passive" and b.state.self_driving is False
            assert b.state.buoys[0] & botwire.BUOY_FORCE_FIELD
        undone = b.dock(timeout=30, undock=True)
        assert "off the dock" in undone and not b.truth.docked


def test_dock_refused_and_failed(tmp):
    with botwire.Base("sim:p2os", clock="virtual") as b:
        with pytest.raises(botwire.BotwireError, match="reports no dock botwire can find it by"):
            b.dock()
        assert b.truth.v == 0
    world = os.path.join(tmp, "apart.world")
    with open(world, "w") as f:
        f.write("size 6 5\nwall 2.5 0 2.5 5\ndock 3 2.5 0 create\n")
    with botwire.Base(f"sim:create?model=create2&world={world}&start=1.5,2.5,0",
                      clock="virtual") as b:
        with pytest.raises(botwire.BotwireError, match="cannot see the dock"):
            b.dock(timeout=120)
        b.step(0.5)
        assert abs(b.truth.v) < 1e-6 and b.state.mode == "full"


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
    into libbotwire goes) lets other Python threads run meanwhile: it waits
    on a pipe that another thread writes to, and that thread, woken just
    before the call, can run only once the call lets the interpreter go
    (the switch interval is set beyond the test, so the caller is never made
    to yield it). A call that held it would wait out the poll's 30 s."""
    from cffi import FFI
    ffi = FFI()
    ffi.cdef("struct pollfd { int fd; short events; short revents; };"
             "int poll(struct pollfd *fds, unsigned long n, int timeout);")
    libc = ffi.dlopen(None)
    r, w = os.pipe()
    go = threading.Event()

    def answer():
        go.wait()
        os.write(w, b"x")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    t = threading.Thread(target=answer)
    try:
        t.start()  # it waits for `go`, letting the interpreter go
        fds = ffi.new("struct pollfd[1]", [{"fd": r, "events": 1}])  # POLLIN
        go.set()
        n = libc.poll(fds, 1, 30000)
    finally:
        sys.setswitchinterval(interval)
        go.set()
        t.join()
        os.close(r)
        os.close(w)
    assert n == 1 and fds[0].revents & 1, "the other thread ran only after the C call"


def test_limits_are_the_models():
    """A Create 2's top turn rate is its own (both wheels at 0.5 m/s, 235 mm
    apart: 4.26 rad/s), not a Create 1's (258 mm: 3.88 rad/s)."""
    with botwire.Base("sim:create", clock="virtual") as one:
        assert one.limits == pytest.approx((0.5, 0.5 / 0.129))
    with botwire.Base("sim:create?model=create2", clock="virtual") as two:
        assert two.limits == pytest.approx((0.5, 0.5 / 0.1175))
