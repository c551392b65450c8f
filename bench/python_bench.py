"""The Python package's speed, beside plain Python (README: "Python").

    PYTHONPATH=build/python python3 bench/python_bench.py [--quick]

1. Decode: Kobuki feedback (an emulated Kobuki's own bytes, every
   sub-payload of its 50 Hz frames) into dicts, MB/s of wire: botwire.decode
   (the C codec, its tape, dicts built in C) and, side by side,
   bench/kobuki_plain.py (AA 55, length, XOR, struct per sub-payload). Both
   give the same dicts; the run checks that first. Beside them,
   pickle.loads making the same dicts from a pickle: what the objects
   alone cost in CPython. Then botwire.decode_columns (NumPy arrays) on
   the same bytes.
2. Driver overhead per state update: a botwire.Base on sim:kobuki in virtual
   time, one poll per feedback frame, with and without taking b.state (the
   frozen snapshot) each time; beside the plain parser taking one frame
   and updating a pose from its encoders. botwire's figure includes the
   emulated robot making the frame (in C) and the driver's supervision.
3. A control step: b.step(0.02) in virtual time then b.state (the
   snapshot, kept while nothing changed), or b.pose (no snapshot); median.
Best of several rounds each; a machine's other load slows every figure.
"""

import gc
import math
import os
import pickle
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import botwire  # noqa: E402
from kobuki_plain import KobukiParser  # noqa: E402


def feedback(seconds: float) -> bytes:
    """An emulated Kobuki's output over `seconds` of virtual time."""
    sim = botwire.Sim("kobuki")
    out = bytearray()
    t = 0.0
    while t < seconds:
        t = sim.next_deadline
        sim.step(t)
        out += sim.output()
    sim.close()
    return bytes(out)


def best(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        gc.collect()  # each round from the same heap: no garbage of the last
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def side_by_side(fns, rounds: int):
    """The best time of each of fns, their rounds taken in turn (a machine
    that slows down, or a heap that grows, weighs on all alike)."""
    return [min(ts) for ts in zip(*([best(f, 1) for f in fns] for _ in range(rounds)))]


def main() -> None:
    quick = "--quick" in sys.argv
    rounds = 2 if quick else 5
    data = feedback(10 if quick else 200)
    ours = list(botwire.decode("kobuki", data))[:-1]
    plain = KobukiParser().feed(data)
    assert ours == plain, "the two parsers disagree"
    n_msgs, n_plain = len(ours), len(plain)
    # The floor: CPython's own C (the unpickler) making the same objects
    # from a binary form that needs no parsing.
    blob = pickle.dumps(ours, protocol=pickle.HIGHEST_PROTOCOL)
    del ours, plain  # timed with no other parse's objects alive (the collector's work)
    mb = len(data) / 1e6
    try:
        import numpy  # noqa: F401
        columns = [lambda: botwire.decode_columns("kobuki", data)]
    except ImportError:
        columns = []
    t_ours, t_plain, t_floor, *t_cols = side_by_side(
        [lambda: list(botwire.decode("kobuki", data)), lambda: KobukiParser().feed(data),
         lambda: pickle.loads(blob)] + columns, rounds)
    print(f"decode: {len(data)} bytes, {n_msgs} messages of Kobuki feedback")
    print(f"  botwire.decode     {mb / t_ours:6.2f} MB/s  {n_msgs / t_ours / 1e3:7.1f} k msgs/s")
    print(f"  plain Python       {mb / t_plain:6.2f} MB/s  {n_plain / t_plain / 1e3:7.1f} k msgs/s")
    print(f"  pickle.loads       {mb / t_floor:6.2f} MB/s  (the same dicts made by CPython's "
          "unpickler: the cost of the objects alone)")
    if t_cols:
        print(f"  decode_columns     {mb / t_cols[0]:6.2f} MB/s  {n_msgs / t_cols[0] / 1e3:7.1f} k msgs/s"
              f"  ({t_plain / t_cols[0]:.1f}x plain; decode {t_plain / t_ours:.1f}x)")
    else:
        print("  decode_columns     (no NumPy)")

    n = 500 if quick else 5000

    def run(take_state: bool) -> float:
        with botwire.Base("sim:kobuki", clock="virtual") as b:
            b.drive(0.2, 0.3)
            f0 = b.state.link.frames
            t0 = time.perf_counter()
            frames = f0
            while frames - f0 < n:
                b.poll(1.0)
                if take_state:
                    frames = b.state.link.frames
                else:
                    frames = b._st.link.frames  # the C struct, no snapshot
            return (time.perf_counter() - t0) / (frames - f0)

    frame_len = len(data) // max(1, n_plain // 7)
    frames = [data[i:i + frame_len] for i in range(0, min(len(data), n * frame_len), frame_len)]

    def plain_driver() -> None:
        p = KobukiParser()
        x = y = th = 0.0
        last = None
        for f in frames:
            for m in p.feed(f):
                if m["type"] == "basic_sensor_data":
                    enc = (m["left_encoder"], m["right_encoder"])
                    if last:
                        dl = ((enc[0] - last[0] + 32768) % 65536 - 32768) * 0.000085292
                        dr = ((enc[1] - last[1] + 32768) % 65536 - 32768) * 0.000085292
                        d, dth = (dl + dr) / 2, (dr - dl) / 0.23
                        x += d * math.cos(th + dth / 2)
                        y += d * math.sin(th + dth / 2)
                        th += dth
                    last = enc

    def control_step(snapshot: bool) -> float:
        """The median of n control steps: 20 ms of virtual time (the
        polls that fall in it), then b.state (or the b.pose fast path)."""
        times = []
        with botwire.Base("sim:kobuki", clock="virtual") as b:
            b.drive(0.2, 0.3)
            b.step(1.0)
            for _ in range(n):
                t0 = time.perf_counter()
                b.step(0.02)
                _ = b.state if snapshot else b.pose
                times.append(time.perf_counter() - t0)
        times.sort()
        return times[len(times) // 2]

    step_state = min(control_step(True) for _ in range(rounds))
    step_pose = min(control_step(False) for _ in range(rounds))
    with_state = min(run(True) for _ in range(rounds))
    without = min(run(False) for _ in range(rounds))
    t_pd = best(plain_driver, rounds) / len(frames)
    print(f"driver: per state update (one 50 Hz Kobuki frame), {n} updates")
    print(f"  botwire.Base poll + b.state   {with_state * 1e6:6.1f} us")
    print(f"  botwire.Base poll alone       {without * 1e6:6.1f} us")
    print(f"  plain Python parse + odometry {t_pd * 1e6:6.1f} us")
    print(f"control step: 20 ms of virtual time on sim:kobuki, median of {n}")
    print(f"  b.step(0.02) + b.state        {step_state * 1e6:6.1f} us")
    print(f"  b.step(0.02) + b.pose         {step_pose * 1e6:6.1f} us")


if __name__ == "__main__":
    main()
