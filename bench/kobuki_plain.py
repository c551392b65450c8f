"""A Kobuki feedback parser in plain Python, written for comparison with
botwire.decode (bench/python_bench.py): what a pyserial script does by
hand. Find AA 55, read the length, check the XOR, walk the sub-payloads and
unpack their fields with struct, into dicts named as `botwire decode`
names them. Resynchronises after a bad frame by searching from the byte
after the header. Sub-payloads it does not know become "unknown"."""

import struct
from typing import Any, Dict, List

_BASIC = struct.Struct("<HBBBHHbbBBBB")
_BASIC_KEYS = ("timestamp", "bumper", "wheel_drop", "cliff", "left_encoder", "right_encoder",
               "left_pwm", "right_pwm", "button", "charger", "battery", "overcurrent")
_I16x2 = struct.Struct("<hh")
_U16x3 = struct.Struct("<HHH")
_GPI = struct.Struct("<H4H")


def _sub(sid: int, p: bytes) -> Dict[str, Any]:
    n = len(p)
    if sid == 1 and n == 15:
        return dict(zip(_BASIC_KEYS, _BASIC.unpack(p)), type="basic_sensor_data")
    if sid == 3 and n == 3:
        return {"type": "docking_ir", "right": p[0], "central": p[1], "left": p[2]}
    if sid == 4 and n == 7:
        a, r = _I16x2.unpack_from(p)
        return {"type": "inertial_sensor", "angle": a, "angle_rate": r}
    if sid == 5 and n == 6:
        r, c, l = _U16x3.unpack(p)
        return {"type": "cliff", "right": r, "central": c, "left": l}
    if sid == 6 and n == 2:
        return {"type": "current", "left": p[0], "right": p[1]}
    if sid == 13 and n >= 2 and n == 2 + p[1] * 2 and p[1] % 3 == 0:
        vals = struct.unpack_from(f"<{p[1]}h", p, 2)
        return {"type": "raw_gyro", "frame_id": p[0],
                "samples": [list(vals[i:i + 3]) for i in range(0, len(vals), 3)]}
    if sid == 16 and n == 16:
        d, a0, a1, a2, a3 = _GPI.unpack_from(p)
        return {"type": "general_purpose_input", "digital_input": d, "analog": [a0, a1, a2, a3]}
    return {"type": "unknown", "id": sid, "length": n, "data": p.hex()}


class KobukiParser:
    """Push bytes in any split; get the messages of every good frame."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.frames = self.checksum_errors = self.skipped = 0

    def feed(self, data: bytes) -> List[Dict[str, Any]]:
        buf = self.buf
        buf += data
        out: List[Dict[str, Any]] = []
        pos = 0
        while True:
            start = buf.find(b"\xaa\x55", pos)
            if start < 0:
                keep = len(buf) - 1 if buf.endswith(b"\xaa") else len(buf)
                self.skipped += keep - pos if keep > pos else 0
                pos = max(pos, keep)
                break
            self.skipped += start - pos
            if start + 3 > len(buf):
                pos = start
                break
            n = buf[start + 2]
            end = start + 3 + n + 1
            if end > len(buf):
                pos = start
                break
            check = 0
            for b in buf[start + 2:end - 1]:
                check ^= b
            if check != buf[end - 1] or n == 0:
                self.checksum_errors += 1
                self.skipped += 1
                pos = start + 1
                continue
            self.frames += 1
            p = bytes(buf[start + 3:end - 1])
            i = 0
            while i + 2 <= len(p):
                sid, ln = p[i], p[i + 1]
                if i + 2 + ln > len(p):
                    break
                out.append(_sub(sid, p[i + 2:i + 2 + ln]))
                i += 2 + ln
            pos = end
        del buf[:pos]
        return out
