"""examples/create2_bump_and_turn.py, a pycreate2-style Create 2 program on
botwire, run as a separate python3 against a real `botwire sim create
--model create2` process on a pty, in a 1.2 m square room: three legs of
drive ahead until the bumper, back off, turn 90 degrees left. It is judged
by the emulator's own word: its closing line's true pose (where only three
real bumps and three left turns can have put the robot), the commands it
took (none ignored or unknown), the song it played, its LEDs and display
as the program last set them (Base.create), and the client it saw leave;
and the program's output must say it saw each bump where the room's walls
are, and the Create 2's own packets (light bumper, IR, motor currents).
Real time: the deadlines are generous and nothing is judged by the clock.
The program stops by its encoders (10 cm back, 90 degrees round), on its
own poll: a machine that holds it back makes it go further, never less,
so each of its moves is bounded below by its rule and above only by the
room, and where a leg goes is taken from the headings it reports."""

import math
import os
import re
import select
import signal
import subprocess
import time

from conftest import BUILD, CLI, PYTHON, SOURCE, fresh_env

EXAMPLE = os.path.join(SOURCE, "examples", "create2_bump_and_turn.py")
SIZE, START = 1.2, (0.45, 0.5)  # the room (walls round 0..1.2 m), the start, facing +x
ROOM = f"size {SIZE} {SIZE}\nstart {START[0]} {START[1]} 0\n"
R = 0.17  # a Create 2 is 340 mm across (docs/create2.md): its centre stops R from a wall
BACK = 0.10  # what the program backs off from each wall, by its encoders
NUM = r"(-?\d+\.\d+)"


class Lines:
    """A process's output, read line by line as it comes, each wait with
    a deadline (select on the pipe: no sleeping on a guess)."""

    def __init__(self, proc):
        self.proc, self.fd, self.buf, self.seen = proc, proc.stdout.fileno(), b"", []

    def _read(self, end):
        left = end - time.monotonic()
        if left <= 0 or not select.select([self.fd], [], [], left)[0]:
            return False
        chunk = os.read(self.fd, 4096)
        if not chunk:
            return False
        self.buf += chunk
        *done, self.buf = self.buf.split(b"\n")
        self.seen += [d.decode(errors="replace") for d in done]
        return True

    def wait_for(self, pattern, seconds):
        """The first line (seen so far or to come) matching pattern, or None."""
        end = time.monotonic() + seconds
        while True:
            for line in self.seen:
                if re.search(pattern, line):
                    return line
            if not self._read(end):
                return None


def test_bump_and_turn_against_the_emulator(tmp):
    world = os.path.join(tmp, "room.world")
    with open(world, "w") as f:
        f.write(ROOM)
    link = os.path.join(tmp, "create2")
    # --for: the emulator ends by itself should this test die before it stops it.
    sim = subprocess.Popen([CLI, "sim", "create", "--model", "create2", "--world", world,
                            "--pty", link, "--for", "600"], env=fresh_env(None),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        said = Lines(sim)
        assert said.wait_for(r"^botwire sim: create create2 on /dev/", 60), said.seen
        run = subprocess.run([PYTHON, EXAMPLE, f"create:{link}?model=create2"], cwd=tmp,
                             env=fresh_env(os.path.join(BUILD, "python")),
                             capture_output=True, text=True, timeout=300)
        out = run.stdout
        assert run.returncode == 0, (out, run.stderr)
        # The emulator saw the program open the robot and let go of it.
        assert said.wait_for(r"a client opened", 30), said.seen
        assert said.wait_for(r"the last client closed", 60), said.seen
        sim.send_signal(signal.SIGINT)
        closing = said.wait_for(r"stopped; ", 60)
        assert closing, said.seen
        assert sim.wait(timeout=60) == 0
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()
        sim.stdout.close()

    # What the program says: Safe mode, as pycreate2's safe() asks, read
    # back from the robot's own OI mode packet.
    assert re.match(r"start: mode safe, battery 1\d\.\d V", out), out
    # The Create 2's own packets, standing (no light bump in the open, no
    # dock to hear, the wheels still): as the robot streamed them.
    assert re.search(r"^sensors: light bumper 0x00, IR \{'omni': 0, 'left': 0, 'right': 0\}, "
                     r"currents \{'battery': -\d+, 'left': 0, 'right': 0, 'main_brush': 0, "
                     r"'side_brush': 0\} mA$", out, re.M), out
    bumps = re.findall(rf"^leg (\d): bump \(right (\w+), left (\w+), cliff 0x0\) after {NUM} m",
                       out, re.M)
    assert [b[0] for b in bumps] == ["1", "2", "3"], out
    # Head on into each wall: both switches.
    assert all(b[1] == b[2] == "True" for b in bumps), out
    turned = [float(h) for h in re.findall(rf"^leg \d: turned, encoders .*, heading {NUM} deg$",
                                            out, re.M)]
    assert len(turned) == 3, out
    # Three left turns, each of 90 degrees by the encoders or a little more
    # (the wheels stopping after the program saw 90): the headings it
    # reports rise by 88 to 180 degrees each. A right turn falls.
    rises = [(b - a) % 360 for a, b in zip([0.0] + turned, turned)]
    assert all(88 < r < 180 for r in rises), (rises, out)
    h1, h2 = (math.radians(h) for h in turned[:2])
    ahead = [float(b[3]) for b in bumps]
    # The first leg starts where nothing but the start decides: to the
    # east wall. The second, along the first turn's heading from the
    # start's y, to the north wall (the wheels stop at the wall: their
    # counts are where it is, however late the program stops them).
    assert abs(ahead[0] - (SIZE - R - START[0])) < 0.03, out
    assert abs(ahead[1] - (SIZE - R - START[1]) / math.sin(h1)) < 0.03, out
    # The third, from where the first backed off (10 cm or more from the
    # east wall) to the west wall, along the second turn's heading.
    assert 0 < ahead[2] < (SIZE - 2 * R - BACK + 0.03) / abs(math.cos(h2)), out

    # The emulator's truth: where the robot is at the end, what it was sent.
    m = re.search(rf"\(0 rejected\).*robot at \({NUM}, {NUM}, {NUM} deg\)", closing)
    assert m, closing
    x, y, deg = map(float, m.groups())
    assert "ignored" not in closing and "unknown" not in closing, closing
    # What the program played and showed, by the robot's own account: one
    # song, the power LED green at full intensity, "done" on the display.
    assert re.search(r'; songs played 1, LEDs 0x00, power LED 0/255, display "done"', closing), \
        closing
    # Three legs, each ended by a wall and a left turn: east to the east
    # wall, north to the north wall, west to the west wall, each backed off
    # (10 cm or more, along the heading it had), then facing south: in the
    # room's north-west quarter. Right turns would end it in the south-west
    # corner facing north; a bump not seen, against the first wall.
    assert R + BACK * abs(math.cos(h2)) - 0.03 < x < SIZE / 2, closing
    assert SIZE / 2 < y < SIZE - R - BACK * math.sin(h1) + 0.03, closing
    # Its odometry (from the encoder counts) ends where the robot truly is.
    m = re.search(rf"^done: odometry \({NUM}, {NUM}, {NUM} deg\), battery .* mode safe$", out, re.M)
    assert m, out
    ox, oy, odeg = map(float, m.groups())
    assert math.hypot(START[0] + ox - x, START[1] + oy - y) < 0.03, (out, closing)
    assert abs((odeg - deg + 180) % 360 - 180) < 2, (out, closing)
    assert abs((odeg - turned[2] + 180) % 360 - 180) < 0.2, out
