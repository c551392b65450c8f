"""The values the package hands out: errors, capabilities, events, states.

Every state is a frozen dataclass: a snapshot, safe to keep after the base
has moved on. Units are SI (m, rad, s, V, A), as in botwire's base API.
"""

from __future__ import annotations

import enum
import math
import operator
import struct
from dataclasses import dataclass
from typing import Any, Dict, NamedTuple, Optional, Tuple, Type, TypeVar

from ._ffi import ffi, lib


class BotwireError(Exception):
    """A failure the library reported: ``str(e)`` is its one-line message
    (for a bad URL, the parameters the URL takes, as the CLI says), ``code``
    its BW_E* number (negative) and ``name`` the code's description."""

    def __init__(self, message: str, code: int = -1) -> None:
        super().__init__(message)
        self.code = code
        self.name = ffi.string(lib.bw_strerror(code)).decode()


def check(rc: int, what: str) -> int:
    """rc as a count, or BotwireError("what: <the library's word>")."""
    if rc < 0:
        raise BotwireError(f"{what}: {ffi.string(lib.bw_strerror(rc)).decode()}", rc)
    return rc


class Cap(enum.IntFlag):
    """What a base can do (BW_CAP_*); what it cannot is never faked."""
    DRIVE = 1 << 0
    ODOMETRY = 1 << 1
    GYRO = 1 << 2
    BUMPERS = 1 << 3
    CLIFFS = 1 << 4
    WHEEL_DROPS = 1 << 5
    BUTTONS = 1 << 6
    BATTERY = 1 << 7
    CHARGING = 1 << 8
    SONAR = 1 << 9
    DOCK_IR = 1 << 10
    STALL = 1 << 11
    VERSION = 1 << 12
    REFLEXES = 1 << 13
    STEER = 1 << 14
    BRAKE = 1 << 15
    FAULTS = 1 << 16
    MOTOR_REPORT = 1 << 17
    MOTOR_VECTOR = 1 << 18
    SONAR_TIMING = 1 << 19
    ENCODERS = 1 << 20
    BUMP_SWITCHES = 1 << 21
    IR = 1 << 22
    LEDS = 1 << 23
    SOUND = 1 << 24
    OUTPUTS = 1 << 25
    GAINS = 1 << 26
    UNIQUE_ID = 1 << 27
    JOYSTICK = 1 << 28
    POWER = 1 << 29
    SEEK_DOCK = 1 << 30


class EventType(str, enum.Enum):
    """An event's kind, named as `botwire drive` prints it."""
    ONLINE = "online"
    OFFLINE = "offline"
    BUMP = "bump"
    CLIFF = "cliff"
    WHEEL_DROP = "wheel_drop"
    BUTTON = "button"
    POWER = "power"
    STALL = "stall"
    REFLEX = "reflex"
    BRAKE = "brake"
    FAULT = "fault"


@dataclass(frozen=True)
class Event:
    """Something that happened (bw_event_t): ``type``; ``t`` (s, the base's
    clock); ``mask`` (the bits that changed: BUMP_*, CLIFF_*, ...); ``on``
    (pressed, detected, online; False: released, cleared). A REFLEX also has
    ``distance`` (m) and ``angle`` (rad) the base moved on its own and
    ``detail`` (the family's flags)."""
    type: EventType
    t: float
    mask: int
    on: bool
    distance: float = 0.0
    angle: float = 0.0
    detail: int = 0


class Pose(NamedTuple):
    """x, y (m) and theta (rad, CCW positive)."""
    x: float
    y: float
    theta: float


@dataclass(frozen=True)
class Axis:
    """One axis as the base reports it: velocity, acceleration, torque."""
    velocity: float
    acceleration: float
    torque: float


@dataclass(frozen=True)
class Range:
    """A range sensor: its ``mount`` on the robot, ``max_range`` (m; a
    reading at it saw nothing), the latest ``range`` (m, 0 before the
    first) at time ``t``, the odometry pose ``at`` it came, that position
    in encoder counts (``raw_x``, ``raw_y``: None without Cap.ENCODERS),
    and ``kind`` ("sonar" or "ir")."""
    mount: Pose
    max_range: float
    range: float
    t: float
    at: Pose
    raw_x: Optional[float]
    raw_y: Optional[float]
    kind: str


@dataclass(frozen=True)
class Gains:
    """The wheel controller's PID gains (the family's units)."""
    known: bool
    user: bool
    p: float
    i: float
    d: float


@dataclass(frozen=True)
class Joystick:
    """An operator's joystick: x (turn, left positive), y (forward), -1..1."""
    x: float
    y: float
    buttons: int


@dataclass(frozen=True)
class Power:
    """The base's power system; None where it says nothing."""
    voltage: Optional[float]
    logic_voltage: Optional[float]
    current: Optional[float]
    status: int


@dataclass(frozen=True)
class Link:
    """What the link let through (`botwire drive`'s last line: frames,
    rejected, skipped_bytes, implausible), and the parser's own counters."""
    frames: int
    checksum_errors: int
    length_errors: int
    skipped_bytes: int
    unknown: int
    implausible: int

    @property
    def rejected(self) -> int:
        """Frames rejected by their checksum or length."""
        return self.checksum_errors + self.length_errors


_CHARGING = ("unknown", "discharging", "charging", "charged")


def _num(x: float) -> Optional[float]:
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class State:
    """The robot as the base sees it (bw_base_state_t). The first fields
    are `botwire drive`'s state line: x, y (m), theta (rad), v (m/s), w
    (rad/s; both None while offline: no stale motion passes for one),
    bumper, cliff (BUMP_*, CLIFF_* bit masks), battery (V), online; mode,
    brake, faults; raw_x, raw_y (the position in encoder counts),
    bump_switches (one bool per switch), dock_ir (right, centre, left),
    buoys (a Create's receivers, omni, left, right: BUOY_* bits) and
    self_driving (seeking its dock), joystick, power. A field the base does not have (its Cap is not set)
    is None. ``t`` is the time of the last valid frame on the base's clock.
    """
    t: float
    x: float
    y: float
    theta: float
    v: Optional[float]
    w: Optional[float]
    bumper: int
    cliff: int
    battery: float
    online: bool
    mode: Optional[str]
    brake: Optional[bool]
    faults: Optional[int]
    raw_x: Optional[float]
    raw_y: Optional[float]
    bump_switches: Optional[Tuple[bool, ...]]
    dock_ir: Optional[Tuple[int, int, int]]
    buoys: Optional[Tuple[int, int, int]]
    self_driving: Optional[bool]
    joystick: Optional[Joystick]
    power: Optional[Power]
    # The rest of bw_base_state_t.
    estimated: bool
    estimated_time: float
    wheel_drops: int
    buttons: int
    stalled: bool
    battery_current: float
    battery_charge: float
    battery_capacity: float
    battery_temp: float
    battery_fraction: Optional[float]
    charging: str
    charge_sources: int
    commands_ignored: bool
    trans: Optional[Axis]
    rot: Optional[Axis]
    encoder: Optional[Tuple[int, int]]
    counts_per_m: Optional[float]
    wheel_radius: Optional[float]
    unique_id: Optional[str]
    gains: Optional[Gains]
    firmware: str
    hardware: str
    name: str
    ranges: Tuple[Range, ...]
    reconnects: int
    link: Link
    events_dropped: int

    @property
    def pose(self) -> Pose:
        """(x, y, theta) from odometry."""
        return Pose(self.x, self.y, self.theta)


def _pose(p: Any) -> Pose:
    return Pose(p.x, p.y, p.theta)


def _text(a: Any) -> str:
    return str(ffi.string(a).decode("utf-8", "replace"))


# The snapshot is read in one step: every scalar of bw_base_state_t it
# needs unpacked from the struct's bytes by one struct.Struct, its layout
# taken from cffi's offsets (so it follows the declarations in _ffi.py,
# which tests/python/test_layout.py checks against the C headers), and the
# frozen dataclasses filled through their __dict__ (their __init__ would
# go through object.__setattr__ field by field). A cffi attribute read
# costs about as much as the whole unpack.
_CODES = {"double": "d", "_Bool": "?", "bool": "?", "uint32_t": "I", "uint64_t": "Q", "int64_t": "q",
          "unsigned int": "I", "uint8_t": "B", "bw_charge_t": "i", "bw_range_kind_t": "i"}


def _layout(ctype: str, paths: Tuple[Tuple[Any, ...], ...]) -> Tuple[struct.Struct, Tuple[int, ...]]:
    """A Struct unpacking the fields at PATHS (cffi field paths) of CTYPE in
    offset order, and for each path its place in the unpacked tuple."""
    items = []
    for i, path in enumerate(paths):
        t = ffi.typeof(ctype)
        for step in path:
            t = t.fields[[n for n, _ in t.fields].index(step)][1].type if isinstance(step, str) \
                else t.item
        items.append((ffi.offsetof(ctype, *path), _CODES[t.cname], i))
    items.sort()
    fmt, at, place = "=", 0, [0] * len(paths)
    for k, (off, code, i) in enumerate(items):
        fmt += f"{off - at}x{code}" if off > at else code
        at = off + struct.calcsize("=" + code)
        place[i] = k
    return struct.Struct(fmt), tuple(place)


_STATE_PATHS: Tuple[Tuple[Any, ...], ...] = (
    ("t",), ("online",), ("pose", "x"), ("pose", "y"), ("pose", "theta"), ("v",), ("w",),
    ("estimated",), ("estimated_time",), ("bumpers",), ("bump_switches",), ("nbump_switches",),
    ("cliffs",), ("wheel_drops",), ("buttons",), ("stalled",), ("battery",),
    ("battery_current",), ("battery_charge",), ("battery_capacity",), ("battery_temp",),
    ("battery_fraction",), ("charging",), ("charge_sources",), ("brake",), ("faults",),
    ("commands_ignored",),
    ("trans", "velocity"), ("trans", "acceleration"), ("trans", "torque"),
    ("rot", "velocity"), ("rot", "acceleration"), ("rot", "torque"),
    ("encoder", 0), ("encoder", 1), ("counts_per_m",), ("wheel_radius",), ("raw_x",), ("raw_y",),
    ("dock_ir", 0), ("dock_ir", 1), ("dock_ir", 2),
    ("buoys", 0), ("buoys", 1), ("buoys", 2), ("self_driving",),
    ("gains", "known"), ("gains", "user"), ("gains", "p"), ("gains", "i"), ("gains", "d"),
    ("joystick", "active"), ("joystick", "x"), ("joystick", "y"), ("joystick", "buttons"),
    ("power", "voltage"), ("power", "logic_voltage"), ("power", "current"), ("power", "status"),
    ("nranges",), ("reconnects",),
    ("link", "frames"), ("link", "checksum_errors"), ("link", "length_errors"),
    ("link", "skipped_bytes"), ("link", "unknown"), ("link", "implausible"),
    ("events_dropped",),
)
_STATE_STRUCT, _STATE_PLACE = _layout("bw_base_state_t", _STATE_PATHS)
_STATE_PICK = operator.itemgetter(*_STATE_PLACE)
_RANGE_PATHS: Tuple[Tuple[Any, ...], ...] = (
    ("mount", "x"), ("mount", "y"), ("mount", "theta"), ("max_range",), ("range",), ("t",),
    ("at", "x"), ("at", "y"), ("at", "theta"), ("raw_x",), ("raw_y",), ("kind",))
_RANGE_STRUCT, _RANGE_PLACE = _layout("bw_range_t", _RANGE_PATHS)
_RANGE_PICK = operator.itemgetter(*_RANGE_PLACE)
_STATE_SIZE = ffi.sizeof("bw_base_state_t")
_RANGES_AT = ffi.offsetof("bw_base_state_t", "ranges")
_RANGE_SIZE = ffi.sizeof("bw_range_t")
_TEXTS = tuple((name, ffi.offsetof("bw_base_state_t", name),
                ffi.sizeof(ffi.typeof("bw_base_state_t").fields[
                    [n for n, _ in ffi.typeof("bw_base_state_t").fields].index(name)][1].type))
               for name in ("mode", "unique_id", "firmware", "hardware", "name"))
_RANGE_IR = lib.BW_RANGE_IR
# The caps as plain ints: an IntFlag's & costs 20 times an int's.
_ENCODERS, _MOTORS, _BRAKE, _FAULTS = (int(Cap.ENCODERS), int(Cap.MOTOR_REPORT), int(Cap.BRAKE),
                                       int(Cap.FAULTS))
_BUMP_SWITCHES, _DOCK_IR, _JOYSTICK, _POWER = (int(Cap.BUMP_SWITCHES), int(Cap.DOCK_IR),
                                               int(Cap.JOYSTICK), int(Cap.POWER))
_UNIQUE_ID, _GAINS, _SEEK_DOCK = int(Cap.UNIQUE_ID), int(Cap.GAINS), int(Cap.SEEK_DOCK)


_texts_seen: Tuple[bytes, Dict[str, str]] = (b"", {})
_AT = {name: (off, off + n) for name, off, n in _TEXTS}
_MODE_AT, _MODE_END = _AT["mode"]
_UID_AT, _UID_END = _AT["unique_id"]
# firmware, hardware and name lie one after the other
_NAMES_AT, _NAMES_END = _AT["firmware"][0], _AT["name"][1]
assert _AT["hardware"] == (_AT["firmware"][1], _AT["name"][0])


def _texts(raw: bytes) -> Dict[str, str]:
    """The state's strings (mode, unique_id, firmware, hardware, name),
    decoded again only when their bytes changed (they seldom do)."""
    global _texts_seen
    key = raw[_MODE_AT:_MODE_END] + raw[_UID_AT:_UID_END] + raw[_NAMES_AT:_NAMES_END]
    if key != _texts_seen[0]:
        _texts_seen = (key, {name: raw[off:off + n].split(b"\0", 1)[0].decode("utf-8", "replace")
                             for name, off, n in _TEXTS})
    return _texts_seen[1]


_switch_tuples: Dict[Tuple[int, int], Tuple[bool, ...]] = {}


def _switches(bits: int, n: int) -> Tuple[bool, ...]:
    """The first n bits as bools, the tuple made once per pattern."""
    key = (bits & ((1 << n) - 1), n)
    got = _switch_tuples.get(key)
    if got is None:
        got = tuple(bool((bits >> i) & 1) for i in range(n))
        if len(_switch_tuples) < 4096:
            _switch_tuples[key] = got
    return got


_T = TypeVar("_T")


def _fill(cls: Type[_T], **values: Any) -> _T:
    """A frozen dataclass with VALUES (every field), without its __init__."""
    obj = object.__new__(cls)
    obj.__dict__.update(values)
    return obj


def make_state(s: Any, caps: int) -> State:
    """A State from a bw_base_state_t * and the base's caps."""
    caps = int(caps)
    raw = ffi.buffer(s, _STATE_SIZE)[:]
    u = _STATE_STRUCT.unpack_from(raw)
    (t, online, x, y, theta, v, w, estimated, estimated_time, bumpers, bump_switches,
     nbump_switches, cliffs, wheel_drops, buttons, stalled, battery, battery_current,
     battery_charge, battery_capacity, battery_temp, battery_fraction, charging, charge_sources,
     brake, faults, commands_ignored, tv, ta, tt, rv, ra, rt, enc0, enc1, counts_per_m,
     wheel_radius, raw_x, raw_y,
     ir0, ir1, ir2, buoy0, buoy1, buoy2, self_driving, g_known, g_user, g_p, g_i, g_d, j_active, j_x, j_y, j_buttons,
     p_voltage, p_logic, p_current, p_status, nranges, reconnects,
     l_frames, l_checksum, l_length, l_skipped, l_unknown, l_implausible,
     events_dropped) = _STATE_PICK(u)
    texts = _texts(raw)
    enc = bool(caps & _ENCODERS)
    ranges = []
    for i in range(min(nranges, 48)):
        r = _RANGE_STRUCT.unpack_from(raw, _RANGES_AT + i * _RANGE_SIZE)
        mx, my, mth, max_range, rng, rt_, ax, ay, ath, rx, ry, kind = _RANGE_PICK(r)
        ranges.append(_fill(Range, mount=Pose(mx, my, mth), max_range=max_range, range=rng,
                            t=rt_, at=Pose(ax, ay, ath), raw_x=rx if enc else None,
                            raw_y=ry if enc else None,
                            kind="ir" if kind == _RANGE_IR else "sonar"))
    nsw = min(nbump_switches, 64)
    motors = bool(caps & _MOTORS)
    return _fill(
        State,
        t=t, x=x, y=y, theta=theta,
        v=v if online else None, w=w if online else None,
        bumper=bumpers, cliff=cliffs, battery=battery, online=online,
        mode=texts["mode"] or None,
        brake=brake if caps & _BRAKE else None,
        faults=faults if caps & _FAULTS else None,
        raw_x=float(round(raw_x)) if enc else None,
        raw_y=float(round(raw_y)) if enc else None,
        bump_switches=_switches(bump_switches, nsw) if caps & _BUMP_SWITCHES and nsw else None,
        dock_ir=(ir0, ir1, ir2) if caps & _DOCK_IR else None,
        buoys=(buoy0, buoy1, buoy2) if caps & _SEEK_DOCK else None,
        self_driving=bool(self_driving) if caps & _SEEK_DOCK else None,
        joystick=_fill(Joystick, x=j_x, y=j_y, buttons=j_buttons)
        if caps & _JOYSTICK and j_active else None,
        power=_fill(Power, voltage=_num(p_voltage), logic_voltage=_num(p_logic),
                    current=_num(p_current), status=p_status) if caps & _POWER else None,
        estimated=estimated, estimated_time=estimated_time,
        wheel_drops=wheel_drops, buttons=buttons, stalled=stalled,
        battery_current=battery_current, battery_charge=battery_charge,
        battery_capacity=battery_capacity, battery_temp=battery_temp,
        battery_fraction=battery_fraction if battery_fraction > 0 else None,
        charging=_CHARGING[charging] if 0 <= charging < 4 else "unknown",
        charge_sources=charge_sources, commands_ignored=commands_ignored,
        trans=_fill(Axis, velocity=tv, acceleration=ta, torque=tt) if motors else None,
        rot=_fill(Axis, velocity=rv, acceleration=ra, torque=rt) if motors else None,
        encoder=(enc0, enc1) if enc else None,
        counts_per_m=counts_per_m if enc else None,
        wheel_radius=wheel_radius if enc and wheel_radius > 0 else None,
        unique_id=texts["unique_id"] if caps & _UNIQUE_ID else None,
        gains=_fill(Gains, known=g_known, user=g_user, p=g_p, i=g_i, d=g_d)
        if caps & _GAINS else None,
        firmware=texts["firmware"], hardware=texts["hardware"], name=texts["name"],
        ranges=tuple(ranges), reconnects=reconnects,
        link=_fill(Link, frames=l_frames, checksum_errors=l_checksum, length_errors=l_length,
                   skipped_bytes=l_skipped, unknown=l_unknown, implausible=l_implausible),
        events_dropped=events_dropped)


# Bit names of the masks (base.h), for scripts that test them.
BUMP_FRONT_LEFT, BUMP_FRONT, BUMP_FRONT_RIGHT = 1 << 0, 1 << 1, 1 << 2
BUMP_REAR_LEFT, BUMP_REAR, BUMP_REAR_RIGHT = 1 << 3, 1 << 4, 1 << 5
CLIFF_LEFT, CLIFF_FRONT_LEFT, CLIFF_FRONT = 1 << 0, 1 << 1, 1 << 2
CLIFF_FRONT_RIGHT, CLIFF_RIGHT = 1 << 3, 1 << 4
DROP_LEFT, DROP_RIGHT, DROP_CASTER = 1 << 0, 1 << 1, 1 << 2
BUOY_RED, BUOY_GREEN, BUOY_FORCE_FIELD = 1 << 0, 1 << 1, 1 << 2
