"""A robot over botwire's base API (include/botwire/base.h)."""

from __future__ import annotations

import atexit
import math
import select
import signal
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Tuple

from ._ffi import ffi, lib, string
from .types import BotwireError, Cap, Event, EventType, Pose, State, check, make_state

HEARD_MAX = 4096  # BW_BASE_HEARD_MAX

_open_bases: "weakref.WeakSet[Base]" = weakref.WeakSet()
_exit_installed = False


def _close_all() -> None:
    for b in list(_open_bases):
        b.close()


def _install_stop_on_exit() -> None:
    """bw_base_stop_on_exit (exit() and SIGTERM send every open base its
    stop), with Python's own SIGINT handler put back, so Ctrl-C is a
    KeyboardInterrupt that unwinds `with` blocks, which stop their robots;
    and an atexit hook that closes (stops) every base still open."""
    global _exit_installed
    if _exit_installed:
        return
    _exit_installed = True
    main = threading.current_thread() is threading.main_thread()
    prev_int = signal.getsignal(signal.SIGINT) if main else None
    prev_term = signal.getsignal(signal.SIGTERM) if main else None
    lib.bw_base_stop_on_exit()
    if main:
        if prev_int is not None:
            signal.signal(signal.SIGINT, prev_int)
        if prev_term not in (None, signal.SIG_DFL):
            signal.signal(signal.SIGTERM, prev_term)
    atexit.register(_close_all)


@dataclass(frozen=True)
class Truth:
    """An emulated robot's true state in its world (not what its host
    believes): the time its simulation has reached (s), its pose, its
    actual velocities (m/s, rad/s), its battery (V), and whether it
    touches a wall, is blocked by one, or sits on the dock."""
    t: float
    x: float
    y: float
    theta: float
    v: float
    w: float
    battery: float
    contact: bool
    blocked: bool
    docked: bool

    @property
    def pose(self) -> Pose:
        """(x, y, theta) in the world."""
        return Pose(self.x, self.y, self.theta)


def truth_of(sim: Any) -> Truth:
    """A Truth from a bw_sim_t *."""
    body = sim.body
    return Truth(sim.t, body.pose.x, body.pose.y, body.pose.theta, body.v, body.w,
                 body.battery, bool(body.contact), bool(body.blocked), bool(body.docked))


class Base:
    """A robot base, by URL, as the ``botwire`` command takes them:
    ``kobuki:/dev/ttyUSB0``, ``p2os:tcp://HOST:PORT``, ``sim:kobuki``,
    ``sim:p2os?model=p2pb`` (``botwire drive --help`` lists them).

        with botwire.Base("sim:kobuki") as b:
            b.drive(0.2, 0.0)          # m/s, rad/s (CCW positive)
            b.step(1.0)                # run one second, the drive kept in force
            print(b.state.x, b.state.battery)

    The base opens, then waits up to ``wait`` seconds for the robot to come
    online (BotwireError, with what was heard instead, when it does not).
    Time is real by default (the monotonic clock: a real robot, or an
    in-process ``sim:`` robot in real time); ``clock="virtual"`` (sim: URLs
    only) runs in virtual time, as fast as the computer goes: ``step``
    jumps from one deadline of the base to the next, as ``botwire drive
    --fast`` does.

    Leaving the ``with`` block, an exception, Ctrl-C (KeyboardInterrupt),
    ``close()``, garbage collection or the interpreter's exit stops the
    robot; so does SIGTERM (the library's bw_base_stop_on_exit). The robot
    also stops by itself when no drive command came for the command timeout
    (0.5 s): ``step`` and ``poll`` keep the last ``drive`` in force while
    they run, ``stop()`` ends it.

    Blocking waits (``poll``, ``step`` and the wait to come online, in real
    time) wait on the port's descriptor with the GIL released, as every
    call into the library does. One Base belongs to one thread at a time.
    """

    def __init__(self, url: str, clock: str = "real", *, wait: float = 3.0,
                 command_timeout: Optional[float] = None,
                 link_timeout: Optional[float] = None) -> None:
        if clock not in ("real", "virtual"):
            raise ValueError(f'clock must be "real" or "virtual", not {clock!r}')
        if clock == "virtual" and not url.lower().startswith("sim:"):
            raise BotwireError("a virtual clock needs a sim: URL (a real robot runs in real time)",
                               -1)
        self._b: Any = None
        self.url = url
        self._virtual = clock == "virtual"
        self._t = 0.0 if self._virtual else time.monotonic()
        # The drive in force, sent again at each poll: the library's call
        # and its two values (bw_base_drive's twist, or a Create's wheels),
        # so the base sees the very same command and only keeps it alive.
        self._cmd: Optional[Tuple[Any, float, float]] = None
        opt = ffi.new("bw_base_options_t *")
        if command_timeout is not None:
            opt.command_timeout = command_timeout
        if link_timeout is not None:
            opt.link_timeout = link_timeout
        _install_stop_on_exit()
        err = ffi.new("char[512]")
        pb = ffi.new("bw_base_t **")
        rc = lib.bw_base_open(pb, url.encode(), opt, self.now, err, 512)
        if rc < 0:
            raise BotwireError(string(err) or f"{url}: {string(lib.bw_strerror(rc))}", rc)
        self._b = pb[0]
        self._st = lib.bw_base_state(self._b)
        self._state: Optional[State] = None
        self._state_at = 0
        self._event = ffi.new("bw_event_t *")
        _open_bases.add(self)
        if wait > 0:
            try:
                self._wait_online(wait)
            except BaseException:
                self.close()
                raise

    # ---- time ----------------------------------------------------------------

    @property
    def now(self) -> float:
        """The base's clock (s): monotonic, or virtual (from 0)."""
        return self._t if self._virtual else time.monotonic()

    @property
    def virtual(self) -> bool:
        """True in virtual time."""
        return self._virtual

    def _advance(self, until: float) -> None:
        """Waits (real time) or jumps (virtual) to the base's next deadline,
        input, or `until`, whichever comes first, then polls."""
        b = self._live()
        nxt = min(lib.bw_base_next_deadline(b), until)
        if self._virtual:
            self._t = max(self._t, nxt)
        else:
            left = nxt - time.monotonic()
            if left > 0:
                fd = lib.bw_base_fd(b)
                # Rounded up, so the wait never ends just short of the deadline.
                if fd >= 0:
                    select.select([fd], [], [], left + 1e-4)
                else:
                    time.sleep(left + 1e-4)
        if self._cmd is not None:
            self._cmd[0](b, self._cmd[1], self._cmd[2], self.now)
        lib.bw_base_poll(b, self.now)

    def poll(self, timeout: float = 0.0) -> None:
        """Does what is due: waits up to ``timeout`` seconds (real time;
        virtual time jumps) for input or the base's next deadline, then
        reads, decodes and supervises the link (bw_base_poll)."""
        self._advance(self.now + max(0.0, timeout))

    def step(self, seconds: float) -> None:
        """Runs the base for ``seconds`` (of its clock), polling at every
        deadline and input, the last drive command kept in force."""
        if self._virtual:
            # _advance's virtual branch, the loop's names bound once (a
            # control loop's step is a handful of polls).
            b = self._live()
            t = self._t
            end = t + seconds
            deadline, poll = lib.bw_base_next_deadline, lib.bw_base_poll
            while t < end:
                t = max(t, min(deadline(b), end))
                self._t = t
                cmd = self._cmd
                if cmd is not None:
                    cmd[0](b, cmd[1], cmd[2], t)
                poll(b, t)
            return
        end = self.now + seconds
        while self.now < end:
            self._advance(end)

    def _settled(self) -> bool:
        h = ffi.new("bw_base_heard_t *")
        lib.bw_base_heard(self._b, h)
        if h.wrong or h.closed_unheard >= 2:
            return True
        return bool(self._st.online) and (bool(h.sure) or h.bytes >= HEARD_MAX)

    def _wait_online(self, wait: float) -> None:
        give_up = self.now + wait
        while not self._settled() and self.now < give_up:
            self._advance(give_up)
        if self._st.online:
            h = ffi.new("bw_base_heard_t *")
            lib.bw_base_heard(self._b, h)
            if not h.wrong:
                return
        raise BotwireError(self._unheard(wait), -9)

    def _unheard(self, waited: float) -> str:
        """Why the robot is not online, in one line (as the command says it)."""
        h = ffi.new("bw_base_heard_t *")
        lib.bw_base_heard(self._b, h)
        own = self.family
        fam = string(h.family)

        def proto(f: Optional[str]) -> Optional[str]:
            return string(lib.bw_sniff_protocol((f or "").encode()))
        if h.wrong and h.sure and fam:
            return f"{self.url} speaks {proto(fam)}, not {proto(own)}: try {fam}:..."
        if h.closed_unheard > 0 and h.bytes == 0:
            return f"the robot at {self.url} is held by another client"
        if h.bytes == 0:
            return (f"nothing came from {self.url} within {waited:.0f} s: the line is silent "
                    "(is the robot on? check the family and the baud rate)")
        if not fam:
            return (f"{self.url}: {h.bytes} bytes came, in no protocol botwire knows "
                    "(check the baud rate and the family)")
        if fam != own:
            return f"{self.url}: {h.bytes} bytes came that look like {proto(fam)}, not {proto(own)}"
        return (f"no answer from {self.url} within {waited:.0f} s: {h.bytes} bytes of "
                f"{proto(own)} came, but the robot did not come online")

    # ---- commands ---------------------------------------------------------------

    def _live(self) -> Any:
        if self._b is None:
            raise BotwireError("the base is closed", -14)
        return self._b

    def drive(self, v: float, w: float) -> None:
        """Drive at ``v`` m/s and turn at ``w`` rad/s (CCW positive) until
        the next drive or stop; kept in force by ``poll`` and ``step``."""
        if not (math.isfinite(v) and math.isfinite(w)):
            raise ValueError("v and w must be finite numbers")
        check(lib.bw_base_drive(self._live(), v, w, self.now), "drive")
        self._cmd = (lib.bw_base_drive, v, w)

    def stop(self) -> None:
        """Stops the robot (and ends the drive in force)."""
        self._cmd = None
        check(lib.bw_base_stop(self._live(), self.now), "stop")

    def led(self, index: int, colour: int) -> None:
        """Sets LED ``index`` (from 1) to 0 off, 1 green, 2 red, 3 orange (Cap.LEDS)."""
        check(lib.bw_base_led(self._live(), index, colour, self.now), "led")

    def sound(self, sequence: int) -> None:
        """Plays the base's built-in sound sequence (Cap.SOUND)."""
        check(lib.bw_base_sound(self._live(), sequence, self.now), "sound")

    def tone(self, hz: float, seconds: float) -> None:
        """Plays a tone (Cap.SOUND)."""
        check(lib.bw_base_tone(self._live(), hz, seconds, self.now), "tone")

    def outputs(self, mask: int) -> None:
        """Sets the digital outputs, bit i output i (Cap.OUTPUTS)."""
        check(lib.bw_base_outputs(self._live(), mask, self.now), "outputs")

    @property
    def create(self) -> "CreateCommands":
        """The Create's own commands and packets (a create: base, Create 1
        or 2): per-wheel drive, the OI mode, songs, LEDs, the display, the
        light bumper, IR characters, motor currents. BotwireError on a
        base of another family."""
        if self.family != "create":
            raise BotwireError(f"{self.url}: a {self.family} base has no Create commands "
                               "(Base.create is a create: base's)", -11)  # BW_ENOTSUP
        return CreateCommands(self)

    def dock(self, timeout: float = 300.0, *, undock: bool = False) -> str:
        """Docks the base by what its protocol reports of its dock, as
        ``botwire dock`` does: a Kobuki by its dock's infrared (Cap.DOCK_IR),
        a Create by its own Seek Dock, watched (Cap.SEEK_DOCK). Runs the
        base (the drive in force ended) until the charger says the dock
        and returns how it went ("docked and charging after 15.2 s");
        raises BotwireError, the robot stopped, when it does not dock
        within ``timeout`` seconds (the dock not seen, bumped too often,
        the link lost). A base that reports no dock is not moved. With
        ``undock``: backs 0.3 m off the dock and turns round."""
        b = self._live()
        if not lib.bw_base_caps(b) & (int(Cap.DOCK_IR) | int(Cap.SEEK_DOCK)):
            raise BotwireError(f"{self.url}: a {self.family} base reports no dock botwire can "
                               "find it by; not moved", -11)  # BW_ENOTSUP
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError("timeout must be a positive number of seconds")
        self._cmd = None  # the docking drives now
        run = lib.bw_docking_run_new(b, timeout, undock, self.now)
        if run == ffi.NULL:
            raise MemoryError("no memory for the docking")
        try:
            rc = 0
            while rc == 0:
                rc = lib.bw_docking_run_tick(run, self.now)
                if rc == 0:  # the link down over 6 s ends it (BW_DOCKING_OFFLINE)
                    self._advance(self.now + 0.05)
            why = string(lib.bw_docking_run_why(run)) or ""
        finally:
            lib.bw_docking_run_free(run)
        if rc < 0:
            raise BotwireError(why, -1)
        return why

    # ---- what the base knows ---------------------------------------------------

    @property
    def state(self) -> State:
        """A snapshot of the robot as the base sees it (State). The same
        object until the base's state changes (bw_base_changes: a poll that
        read something, a command sent), so taking it at every turn of a
        loop costs little when nothing came."""
        b = self._live()
        at = lib.bw_base_changes(b)
        if self._state is None or at != self._state_at:
            self._state = make_state(self._st, lib.bw_base_caps(b))
            self._state_at = at
        return self._state

    @property
    def pose(self) -> Pose:
        """(x m, y m, theta rad) from odometry, read without a State
        snapshot: the fast path of a control loop."""
        self._live()
        p = self._st.pose
        return Pose(p.x, p.y, p.theta)

    @property
    def twist(self) -> Tuple[float, float]:
        """(v m/s, w rad/s) as the robot reports them (0.0, 0.0 while
        it is offline; State.v and State.w are None then), read without a
        snapshot."""
        self._live()
        st = self._st
        return (st.v, st.w) if st.online else (0.0, 0.0)

    def events(self) -> Iterator[Event]:
        """The events that came since the last call, oldest first."""
        b = self._live()
        ev = self._event
        while lib.bw_base_next_event(b, ev):
            yield Event(EventType(string(lib.bw_event_name(ev.type))), ev.t, ev.mask,
                        bool(ev.on), ev.distance, ev.angle, ev.detail)

    @property
    def caps(self) -> Cap:
        """What this base can do; may grow once the robot says its model."""
        return Cap(lib.bw_base_caps(self._live()))

    @property
    def family(self) -> str:
        """The family ("kobuki", ...)."""
        return string(lib.bw_base_family(self._live())) or ""

    @property
    def limits(self) -> Tuple[float, float]:
        """The robot's top speed and turn rate (m/s, rad/s)."""
        v = ffi.new("double *")
        w = ffi.new("double *")
        lib.bw_base_limits(self._live(), v, w)
        return v[0], w[0]

    @property
    def truth(self) -> Optional[Truth]:
        """A sim: URL's emulated robot as it truly is (None for a real one)."""
        dev = lib.bw_base_device(self._live())
        return None if dev == ffi.NULL else truth_of(lib.bw_device_sim(dev))

    # ---- the end -------------------------------------------------------------------

    def close(self) -> None:
        """Stops the robot and closes the link (again: nothing)."""
        b, self._b = self._b, None
        if b is not None:
            _open_bases.discard(self)
            lib.bw_base_close(b, self.now)

    def __enter__(self) -> "Base":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"<botwire.Base {self.url!r}{' closed' if self._b is None else ''}>"


class CreateCommands:
    """A Create's Open Interface beyond the base API (botwire/create_base.h),
    as ``Base.create``: what a pycreate2 program asks of the robot. Speeds
    in m/s; the rest in the OI's own units (packet names and values as the
    OI documents them)."""

    MODES = ("passive", "safe", "full")

    def __init__(self, base: Base) -> None:
        self._base = base

    def drive_direct(self, left: float, right: float) -> None:
        """Each wheel at its own speed, m/s (-0.5..0.5), kept in force by
        ``poll`` and ``step`` as ``drive`` is (it is that drive: the twist
        whose wheel speeds these are)."""
        b = self._base
        if not (math.isfinite(left) and math.isfinite(right)):
            raise ValueError("left and right must be finite numbers")
        check(lib.bw_create_base_drive_direct(b._live(), left, right, b.now), "drive_direct")
        b._cmd = (lib.bw_create_base_drive_direct, left, right)

    @property
    def mode(self) -> Optional[str]:
        """The OI mode the robot's last frame said ("passive", "safe",
        "full"); set it to change the mode while running: "passive" stands
        the robot, deaf to drives, until "safe" or "full" again."""
        return self._base.state.mode

    @mode.setter
    def mode(self, mode: str) -> None:
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {', '.join(self.MODES)}, not {mode!r}")
        b = self._base
        check(lib.bw_create_base_mode(b._live(), mode.encode(), b.now), "mode")
        if mode == "passive":
            b._cmd = None  # nothing it would obey

    def song(self, number: int, notes: "list[tuple[int, float]]") -> None:
        """Stores song ``number`` (a Create 2's 0..4, a Create 1's 0..15):
        up to 16 (MIDI note 31..127, seconds up to 3.98) pairs."""
        b = self._base
        n = len(notes)
        keys = [int(k) for k, _ in notes]
        if any(not 0 <= k <= 255 for k in keys):
            raise ValueError("notes must be MIDI note numbers (0..255; 31..127 sound)")
        secs = ffi.new("double[]", [float(t) for _, t in notes] or [0.0])
        keys_c = ffi.new("uint8_t[]", keys or [0])
        check(lib.bw_create_base_song(b._live(), number, keys_c, secs, n, b.now), "song")

    def play(self, number: int) -> None:
        """Plays song ``number`` (as ``song``)."""
        b = self._base
        check(lib.bw_create_base_play(b._live(), number, b.now), "play")

    def leds(self, bits: int = 0, colour: int = 0, intensity: int = 0) -> None:
        """The LEDs (opcode 139): their bits (a Create 1's Play 2, Advance 8;
        a Create 2's Debris 1, Spot 2, Dock 4, Check Robot 8), the power
        LED's colour (0 green .. 255 red) and intensity (0 .. 255)."""
        b = self._base
        check(lib.bw_create_base_leds(b._live(), bits, colour, intensity, b.now), "leds")

    def digits(self, text: str) -> None:
        """A Create 2's four-digit display: up to 4 printable ASCII
        characters."""
        b = self._base
        check(lib.bw_create_base_digits(b._live(), text.encode("ascii", "replace"), b.now),
              "digits")

    def value(self, name: str) -> float:
        """A sensor packet's value in the robot's last frame, by its OI name
        ("wall_signal", "dirt_detect", "song_playing", ...)."""
        out = ffi.new("double *")
        check(lib.bw_create_base_value(self._base._live(), name.encode(), out), name)
        return float(out[0])

    @property
    def light_bumper(self) -> int:
        """A Create 2's light bumper, bits 0..5 left to right (packet 45)."""
        return int(self.value("light_bumper"))

    @property
    def light_bump_signals(self) -> "tuple[int, ...]":
        """A Create 2's six light bump signals, left to right (0..4095)."""
        return tuple(int(self.value(f"light_bump_{s}_signal")) for s in
                     ("left", "front_left", "center_left", "center_right", "front_right", "right"))

    @property
    def ir(self) -> "dict[str, int]":
        """The IR characters heard (0: none): omni (packet 17), and a
        Create 2's left and right (52, 53)."""
        out = {"omni": int(self.value("infrared_byte"))}
        if self._has("infrared_left"):
            out["left"] = int(self.value("infrared_left"))
            out["right"] = int(self.value("infrared_right"))
        return out

    @property
    def currents(self) -> "dict[str, int]":
        """Motor currents, mA: a Create 2's wheels and brushes (packets
        54..57); the battery's (23) on either."""
        out = {"battery": int(self.value("current"))}
        if self._has("left_motor_current"):
            for k in ("left", "right", "main_brush", "side_brush"):
                out[k] = int(self.value(f"{k}_motor_current"))
        return out

    @property
    def buttons(self) -> int:
        """The buttons' bits as the OI numbers them (packet 18)."""
        return int(self.value("buttons"))

    def _has(self, name: str) -> bool:
        out = ffi.new("double *")
        rc = int(lib.bw_create_base_value(self._base._live(), name.encode(), out))
        return rc != -6  # BW_EUNKNOWN: a packet the model does not stream

