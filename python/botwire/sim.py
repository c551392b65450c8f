"""Emulated robots (include/botwire/device.h): served on a pty or TCP from a
thread of this process, or stepped by hand."""

from __future__ import annotations

import math
import os
import select
import threading
import time
from typing import Any, Callable, List, Optional, Tuple, Union

from ._ffi import ffi, lib, string
from .base import Truth, truth_of
from .types import BotwireError, Pose

_BUF = 4096


def load_world(path: str) -> Any:
    """A world file (docs/world-format.md) as a bw_world_t * (BotwireError
    with "line N: ..." when it does not parse)."""
    w = ffi.new("bw_world_t *")
    err = ffi.new("char[512]")
    rc = lib.bw_world_load(w, path.encode(), err, 512)
    if rc < 0:
        raise BotwireError(string(err) or path, rc)
    return w


class Sim:
    """An emulated robot of a family ("kobuki", "p2os", "lobot", "create",
    "rbsm", "rflex") in a simulated world, speaking its protocol byte for
    byte, as ``botwire sim`` serves it:

    - ``pty=True`` (or a path: a symlink made there to the pty) serves it on
      a pseudo-terminal, paced at the family's serial rate (``baud``);
      ``tcp=PORT`` or ``"HOST:PORT"`` (0: a free port) on TCP, one client at
      a time, unpaced unless ``baud`` is given. Either way a thread of this
      process runs it in real time; ``url`` is what a host opens
      (``botwire.Base(sim.url)``, ``botwire drive URL``, any program).
    - with neither, nothing runs by itself: the caller moves bytes and time
      (``input``, ``step``, ``output``), e.g. for a driver of its own.

    ``truth`` is the robot as it truly is in its world (pose, actual
    velocities), for tests written against it; ``wait_until`` waits for a
    condition on it. ``world`` is a world file (default: the family's own
    room); ``start`` an (x, y, degrees) start; ``model``, ``noise``,
    ``seed``, ``command_timeout``, ``push`` and ``slope`` are
    bw_device_options_t's. ``close()`` (or leaving a ``with`` block) stops
    it; ``summary`` then says what it received, as ``botwire sim``'s last
    line does.
    """

    def __init__(self, family: str, pty: Union[None, bool, str] = None,
                 tcp: Union[None, int, str] = None, world: Optional[str] = None, *,
                 model: Optional[str] = None, noise: float = 0.0, seed: int = 1,
                 start: Optional[Tuple[float, float, float]] = None,
                 baud: Optional[int] = None, command_timeout: float = 0.0,
                 push: float = 0.0, slope: float = 0.0, t0: float = 0.0) -> None:
        if pty and tcp is not None:
            raise ValueError("a pty or TCP, not both")
        self.family = family
        self._served = bool(pty) or tcp is not None
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._dev: Any = None
        self._pty: Any = None
        self._listener: Any = None
        self._client: Any = None
        self._thread: Optional[threading.Thread] = None
        self._stopping = False
        self._error: Optional[BaseException] = None
        self.notices: List[str] = []
        self.summary: Optional[str] = None
        self._buf = ffi.new(f"uint8_t[{_BUF}]")
        self._note = ffi.new("char[256]")
        self._keep: List[Any] = []  # C memory the device points at
        opt = ffi.new("bw_device_options_t *")
        lib.bw_device_options_init(opt)
        if world is not None:
            w = load_world(world)
            self._keep.append(w)
            opt.world = w
        if start is not None:
            opt.has_start = True
            opt.start = {"x": start[0], "y": start[1], "theta": math.radians(start[2])}
        opt.noise = noise
        opt.seed = seed
        if model is not None:
            m = ffi.new("char[]", model.encode())
            self._keep.append(m)
            opt.model = m
        opt.command_timeout = command_timeout
        opt.push = push
        opt.slope = slope
        if baud is None:
            baud = lib.bw_device_model_baud(family.encode(), model.encode() if model else ffi.NULL) \
                if pty else 0
        opt.baud = max(0, baud)
        now = time.monotonic() if self._served else t0
        err = ffi.new("char[512]")
        pd = ffi.new("bw_device_t **")
        rc = lib.bw_device_create(pd, family.encode(), opt, now, err, 512)
        if rc < 0:
            raise BotwireError(string(err) or family, rc)
        self._dev = pd[0]
        self.family = string(lib.bw_device_family(self._dev)) or family
        self._take_notices()
        if not self._served:
            return
        try:
            if pty:
                self._open_pty(pty if isinstance(pty, str) else None)
            else:
                self._open_tcp(tcp if tcp is not None else 0)
        except BaseException:
            self.close()
            raise
        # The waker: close() writes to it to end the thread's wait.
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name=f"botwire.Sim {family}",
                                        daemon=True)
        self._thread.start()

    # ---- where it serves --------------------------------------------------------------

    def _open_pty(self, link: Optional[str]) -> None:
        pp = ffi.new("bw_port_t **")
        slave = ffi.new("char[256]")
        err = ffi.new("char[512]")
        rc = lib.bw_pty_open(pp, slave, 256, link.encode() if link else ffi.NULL, err, 512)
        if rc < 0:
            raise BotwireError(string(err) or "pty", rc)
        self._pty = pp[0]
        self.path = string(slave) or ""
        self.link = link
        self.url = f"{self.family}:{link or self.path}"
        self._clients = lib.bw_pty_clients(self._pty, ffi.NULL)

    def _open_tcp(self, tcp: Union[int, str]) -> None:
        host, port = "127.0.0.1", tcp
        if isinstance(tcp, str):
            h, _, p = tcp.rpartition(":")
            host, port = h or host, int(p)
        pl = ffi.new("bw_listener_t **")
        err = ffi.new("char[512]")
        rc = lib.bw_listener_open(pl, host.encode(), int(port), err, 512)
        if rc < 0:
            raise BotwireError(string(err) or f"tcp {tcp}", rc)
        self._listener = pl[0]
        self.port = lib.bw_listener_port(self._listener)
        self.url = f"{self.family}:tcp://{host}:{self.port}"

    # ---- the serving thread -------------------------------------------------------------

    def _take_notices(self) -> None:
        while lib.bw_device_next_notice(self._dev, self._note, 256):
            self.notices.append(string(self._note) or "")

    def _pump(self, port: Any, listened: bool, now: float) -> int:
        """Host bytes in, time forward, robot bytes out (lost when nobody
        listens, as on a real line). Returns what the port said."""
        dev, buf = self._dev, self._buf
        n = 0
        while port is not None and port != ffi.NULL:
            n = lib.bw_port_read(port, buf, _BUF)
            if n <= 0:
                break
            lib.bw_device_input(dev, buf, n, now)
        lib.bw_device_step(dev, now)
        while True:
            out = lib.bw_device_output(dev, buf, _BUF)
            if out == 0:
                break
            if port is not None and listened and n >= 0:
                lib.bw_port_write(port, buf, out)
        self._take_notices()
        return n if n < 0 else 0

    def _pty_turn(self, now: float) -> None:
        if self._clients >= 0:
            was = self._clients
            emptied = ffi.new("bool *")
            self._clients = lib.bw_pty_clients(self._pty, emptied)
            if emptied[0]:
                self._pump(self._pty, False, now)  # the last words of the one that left
                lib.bw_device_link(self._dev, False, now)
            if self._clients > 0 and (was == 0 or emptied[0]):
                lib.bw_device_link(self._dev, True, now)
        rc = self._pump(self._pty, self._clients != 0, now)
        if rc < 0:
            raise BotwireError(f"pty failed: {string(lib.bw_strerror(rc))}", rc)

    def _tcp_turn(self, now: float) -> None:
        if self._client is not None:
            if self._pump(self._client, True, now) < 0:
                lib.bw_device_link(self._dev, False, now)
                lib.bw_port_close(self._client)
                self._client = None
        else:
            self._pump(None, False, now)
        pc = ffi.new("bw_port_t **")
        while lib.bw_listener_accept(self._listener, pc) == 1:
            if self._client is not None:
                lib.bw_port_close(pc[0])  # one client at a time, as P2OS servers
                continue
            self._client = pc[0]
            lib.bw_device_link(self._dev, True, now)

    def _fds(self) -> List[int]:
        fds = [self._wake_r]
        if self._pty is not None:
            fds += [lib.bw_port_fd(self._pty), lib.bw_pty_watch_fd(self._pty)]
        else:
            fds.append(lib.bw_listener_fd(self._listener))
            if self._client is not None:
                fds.append(lib.bw_port_fd(self._client))
        return [f for f in fds if f >= 0]

    def _serve(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._stopping:
                        return
                    fds = self._fds()
                    left = lib.bw_device_next_deadline(self._dev) - time.monotonic()
                if left > 0:
                    select.select(fds, [], [], min(left, 1.0) + 1e-5)
                with self._cond:
                    if self._stopping:
                        return
                    now = time.monotonic()
                    if self._pty is not None:
                        self._pty_turn(now)
                    else:
                        self._tcp_turn(now)
                    self._cond.notify_all()
        except BaseException as e:  # said by wait_until and close
            with self._cond:
                self._error = e
                self._cond.notify_all()

    # ---- by hand ------------------------------------------------------------------------

    def _manual(self) -> Any:
        if self._dev is None:
            raise BotwireError("the emulated robot is closed", -14)
        if self._served:
            raise BotwireError("a served robot is stepped by its own thread", -14)
        return self._dev

    def input(self, data: bytes, now: float) -> None:
        """Bytes the host wrote at ``now``."""
        lib.bw_device_input(self._manual(), data, len(data), now)

    def step(self, now: float) -> None:
        """Advances the robot and its world to ``now``."""
        lib.bw_device_step(self._manual(), now)
        self._take_notices()

    def output(self) -> bytes:
        """The robot's bytes that have reached the host by now."""
        dev = self._manual()
        out = bytearray()
        while True:
            n = lib.bw_device_output(dev, self._buf, _BUF)
            if n == 0:
                return bytes(out)
            out += ffi.buffer(self._buf, n)

    @property
    def next_deadline(self) -> float:
        """When the robot next has something to do."""
        return float(lib.bw_device_next_deadline(self._manual()))

    # ---- the truth ------------------------------------------------------------------------

    @property
    def truth(self) -> Truth:
        """The robot as it truly is: its simulation's time, pose, actual
        velocities, battery, contact."""
        with self._lock:
            if self._dev is None:
                raise BotwireError("the emulated robot is closed", -14)
            return truth_of(lib.bw_device_sim(self._dev))

    @property
    def pose(self) -> Pose:
        """The true pose (x, y in m, theta in rad) in the world."""
        return self.truth.pose

    def place(self, x: float, y: float, degrees: float) -> None:
        """Puts the robot somewhere at once, as a hand lifting it there."""
        with self._lock:
            rc = lib.bw_sim_place(lib.bw_device_sim(self._dev),
                                  {"x": x, "y": y, "theta": math.radians(degrees)})
        if rc < 0:
            raise BotwireError(f"cannot place the robot at ({x}, {y}): "
                               f"{string(lib.bw_strerror(rc))}", rc)

    def wait_until(self, predicate: Callable[[Truth], bool], timeout: float) -> bool:
        """Waits (served robots) until ``predicate(truth)`` holds after a
        step of the robot, at most ``timeout`` seconds; returns whether it
        held. No polling: the serving thread wakes the waiter at each step."""
        if not self._served:
            raise BotwireError("wait_until is for a served robot (pty or tcp)", -14)
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._error is not None:
                    raise self._error
                if self._dev is None:
                    return False
                if predicate(truth_of(lib.bw_device_sim(self._dev))):
                    return True
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    # ---- the end ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stops the robot: the thread ends, the pty or port closes, and
        ``summary`` says what it received and where it stopped."""
        if self._thread is not None:
            with self._lock:
                self._stopping = True
            os.write(self._wake_w, b"x")
            if self._thread is not threading.current_thread():
                self._thread.join()
            self._thread = None
            os.close(self._wake_r)
            os.close(self._wake_w)
        with self._lock:
            dev, self._dev = self._dev, None
            if dev is None:
                return
            sim = lib.bw_device_sim(dev)
            p = sim.body.pose
            self.summary = (f"{self.family} stopped; robot at ({p.x:.3f}, {p.y:.3f}, "
                            f"{math.degrees(p.theta):.1f} deg)")
            for port in (self._client, self._pty):
                if port is not None:
                    lib.bw_port_close(port)
            if self._listener is not None:
                lib.bw_listener_close(self._listener)
            self._client = self._pty = self._listener = None
            lib.bw_device_destroy(dev)

    def __enter__(self) -> "Sim":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        where = getattr(self, "url", "stepped by hand")
        return f"<botwire.Sim {self.family} {where}{' closed' if self._dev is None else ''}>"
