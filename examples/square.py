import math, botwire                         # a 1 m square on an emulated Kobuki, in virtual time
with botwire.Base("sim:kobuki", clock="virtual") as b:
    home = b.state.pose
    for corner in range(4):
        s = b.state
        while (d := 1 - math.hypot(b.state.x - s.x, b.state.y - s.y)) > 0.001:
            b.drive(min(0.3, 2 * d + 0.02), 0); b.step(0.01)
        while abs(e := botwire.angle_diff(s.theta + math.pi / 2, b.state.theta)) > 0.002:
            b.drive(0, max(-1.0, min(1.0, 3 * e))); b.step(0.01)
    b.stop(); b.step(0.5)
    print(f"closure {math.hypot(b.state.x - home.x, b.state.y - home.y) * 1000:.1f} mm "
          f"(true: {b.truth.x - 1:+.3f}, {b.truth.y - 1:+.3f} m), {b.now:.1f} s of robot time")
