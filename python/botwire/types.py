"""The values the package hands out: errors, capabilities, events, states.

Every state is a frozen dataclass: a snapshot, safe to keep after the base
has moved on. Units are SI (m, rad, s, V, A), as in botwire's base API.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Tuple

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
    joystick, power. A field the base does not have (its Cap is not set)
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
    charging: str
    charge_sources: int
    commands_ignored: bool
    trans: Optional[Axis]
    rot: Optional[Axis]
    encoder: Optional[Tuple[int, int]]
    counts_per_m: Optional[float]
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
    return ffi.string(a).decode("utf-8", "replace")


def make_state(s: Any, caps: int) -> State:
    """A State from a bw_base_state_t * and the base's caps."""
    enc = bool(caps & Cap.ENCODERS)
    ranges = tuple(
        Range(_pose(r.mount), r.max_range, r.range, r.t, _pose(r.at),
              r.raw_x if enc else None, r.raw_y if enc else None,
              "ir" if r.kind == lib.BW_RANGE_IR else "sonar")
        for r in s.ranges[0:s.nranges])
    online = bool(s.online)
    nsw = min(s.nbump_switches, 64)
    motors = bool(caps & Cap.MOTOR_REPORT)
    return State(
        t=s.t, x=s.pose.x, y=s.pose.y, theta=s.pose.theta,
        v=s.v if online else None, w=s.w if online else None,
        bumper=s.bumpers, cliff=s.cliffs, battery=s.battery, online=online,
        mode=_text(s.mode) or None,
        brake=bool(s.brake) if caps & Cap.BRAKE else None,
        faults=s.faults if caps & Cap.FAULTS else None,
        raw_x=float(round(s.raw_x)) if enc else None,
        raw_y=float(round(s.raw_y)) if enc else None,
        bump_switches=tuple(bool((s.bump_switches >> i) & 1) for i in range(nsw))
        if caps & Cap.BUMP_SWITCHES and nsw else None,
        dock_ir=(s.dock_ir[0], s.dock_ir[1], s.dock_ir[2]) if caps & Cap.DOCK_IR else None,
        joystick=Joystick(s.joystick.x, s.joystick.y, s.joystick.buttons)
        if caps & Cap.JOYSTICK and s.joystick.active else None,
        power=Power(_num(s.power.voltage), _num(s.power.logic_voltage), _num(s.power.current),
                    s.power.status) if caps & Cap.POWER else None,
        estimated=bool(s.estimated), estimated_time=s.estimated_time,
        wheel_drops=s.wheel_drops, buttons=s.buttons, stalled=bool(s.stalled),
        battery_current=s.battery_current, battery_charge=s.battery_charge,
        battery_capacity=s.battery_capacity, battery_temp=s.battery_temp,
        charging=_CHARGING[s.charging] if 0 <= s.charging < 4 else "unknown",
        charge_sources=s.charge_sources, commands_ignored=bool(s.commands_ignored),
        trans=Axis(s.trans.velocity, s.trans.acceleration, s.trans.torque) if motors else None,
        rot=Axis(s.rot.velocity, s.rot.acceleration, s.rot.torque) if motors else None,
        encoder=(s.encoder[0], s.encoder[1]) if enc else None,
        counts_per_m=s.counts_per_m if enc else None,
        unique_id=_text(s.unique_id) if caps & Cap.UNIQUE_ID else None,
        gains=Gains(bool(s.gains.known), bool(s.gains.user), s.gains.p, s.gains.i, s.gains.d)
        if caps & Cap.GAINS else None,
        firmware=_text(s.firmware), hardware=_text(s.hardware), name=_text(s.name),
        ranges=ranges, reconnects=s.reconnects,
        link=Link(s.link.frames, s.link.checksum_errors, s.link.length_errors,
                  s.link.skipped_bytes, s.link.unknown, s.link.implausible),
        events_dropped=s.events_dropped)


# Bit names of the masks (base.h), for scripts that test them.
BUMP_FRONT_LEFT, BUMP_FRONT, BUMP_FRONT_RIGHT = 1 << 0, 1 << 1, 1 << 2
BUMP_REAR_LEFT, BUMP_REAR, BUMP_REAR_RIGHT = 1 << 3, 1 << 4, 1 << 5
CLIFF_LEFT, CLIFF_FRONT_LEFT, CLIFF_FRONT = 1 << 0, 1 << 1, 1 << 2
CLIFF_FRONT_RIGHT, CLIFF_RIGHT = 1 << 3, 1 << 4
DROP_LEFT, DROP_RIGHT, DROP_CASTER = 1 << 0, 1 << 1, 1 << 2
