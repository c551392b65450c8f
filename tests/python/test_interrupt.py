"""However a Python program driving a robot ends, the robot stops: Ctrl-C
(SIGINT to the interpreter) in a `with` block or outside any, SIGTERM, an
exception, the program's end. A real process drives an emulated Kobuki
served on a pty by this one (botwire.Sim, in real time) whose own command
timeout is turned off: its true velocity (the emulator's, not the driver's
view) comes to 0 only if the program stopped it, however long a loaded
machine takes to run the program's end. Every wait is for the robot's
truth, with a deadline only as a guard against a hang."""

import os
import signal
import subprocess

import pytest

import botwire
from conftest import BUILD, PYTHON, fresh_env

DRIVER = r"""
import sys, botwire
b = botwire.Base(sys.argv[1])
how = sys.argv[2]
def drive():
    while True:
        b.drive(0.1, 0.0)
        b.poll(0.05)
if how == "with":
    with b:
        drive()
elif how == "bare":
    drive()
else:
    # Driven until its odometry says it went 5 cm (the robot truly moving,
    # whatever the machine's pace), then the end.
    b.drive(0.1, 0.0)
    while b.state.x < 0.05:
        b.step(0.05)
    if how == "raise":
        raise RuntimeError("a bug in the script")
"""


# Guards against a hang, far beyond what a working build on a loaded machine
# takes: the program's start (python3 importing botwire) and its end.
GUARD = 60


def moving(t):
    return t.v > 0.09


def still(t):
    return abs(t.v) < 1e-6


def kobuki():
    """An emulated Kobuki that never stops by itself (no command timeout):
    only a stop command stops it."""
    return botwire.Sim("kobuki", pty=True, command_timeout=-1)


@pytest.mark.parametrize("how,sig", [("with", signal.SIGINT), ("bare", signal.SIGINT),
                                     ("with", signal.SIGTERM)])
def test_signal_stops_the_robot(how, sig):
    with kobuki() as sim:
        p = subprocess.Popen([PYTHON, "-c", DRIVER, sim.url, how],
                             env=fresh_env(os.path.join(BUILD, "python")),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert sim.wait_until(moving, GUARD), "the robot never moved"
            os.kill(p.pid, sig)
            assert sim.wait_until(still, GUARD), "the robot did not stop"
            out, err = p.communicate(timeout=GUARD)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        # Python's own way to end on each: KeyboardInterrupt dies of SIGINT.
        assert p.returncode == -sig, (p.returncode, err)
        if sig == signal.SIGINT:
            assert "KeyboardInterrupt" in err


@pytest.mark.parametrize("how", ["raise", "end"])
def test_exception_and_end_stop_the_robot(how):
    """Without Ctrl-C: an exception that ends the program, or its end with
    the base never closed."""
    with kobuki() as sim:
        start = sim.truth.x
        p = subprocess.Popen([PYTHON, "-c", DRIVER, sim.url, how],
                             env=fresh_env(os.path.join(BUILD, "python")),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            p.wait(timeout=GUARD)
            assert sim.wait_until(still, GUARD), "the robot did not stop"
            # It went (the program saw it go 5 cm by its odometry) and stopped.
            assert sim.truth.x - start > 0.04
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == (1 if how == "raise" else 0), p.stderr.read()
