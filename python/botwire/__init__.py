"""botwire for Python: robot bases over their serial protocols.

    import botwire
    with botwire.Base("sim:kobuki", clock="virtual") as b:
        b.drive(0.2, 0.0)
        b.step(2.0)
        print(b.state.x, b.truth.x)

- ``Base(url)``: a robot (every family, real or emulated), its ``state``,
  ``events()``, ``caps``; it stops when the ``with`` block, the program or
  a Ctrl-C ends.
- ``decode``, ``Decoder``, ``encode``, ``read_record``: the wire, as
  `botwire decode` and `botwire encode` see it; ``decode_columns``: a
  stream as NumPy columns.
- ``Sim(family, pty=..., tcp=...)``: an emulated robot that any program
  can connect to, with its true pose.

The C library underneath is libbotwire (and libbotwire_json for the
wire's JSON); docs/python.md tells the rest.
"""

from ._ffi import LIBRARY, JSON_LIBRARY
from .base import Base, CreateCommands, Truth
from .codec import (Chunk, Decoder, Record, decode, decode_columns, encode, protocols,
                    read_record)
from .sim import Sim, load_world
from .types import (Axis, BotwireError, Cap, Event, EventType, Gains, Joystick, Link, Pose,
                    Power, Range, State)
from .types import (BUMP_FRONT, BUMP_FRONT_LEFT, BUMP_FRONT_RIGHT, BUMP_REAR, BUMP_REAR_LEFT,
                    BUMP_REAR_RIGHT, BUOY_FORCE_FIELD, BUOY_GREEN, BUOY_RED, CLIFF_FRONT,
                    CLIFF_FRONT_LEFT, CLIFF_FRONT_RIGHT, CLIFF_LEFT, CLIFF_RIGHT, DROP_CASTER,
                    DROP_LEFT, DROP_RIGHT)

__version__ = "0.1.0"

__all__ = [
    "Axis", "Base", "BotwireError", "Cap", "Chunk", "CreateCommands", "Decoder", "Event", "EventType", "Gains",
    "Joystick", "Link", "Pose", "Power", "Range", "Record", "Sim", "State", "Truth",
    "decode", "decode_columns", "encode", "load_world", "protocols", "read_record", "angle_diff",
    "LIBRARY", "JSON_LIBRARY",
]


def angle_diff(a: float, b: float) -> float:
    """a - b, wrapped to [-pi, pi) (rad)."""
    import math
    return (a - b + math.pi) % (2 * math.pi) - math.pi
