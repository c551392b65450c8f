"""Bump and turn on an iRobot Create 2, as a pycreate2 program does it, on botwire: ahead
until the bumper (or 2 m by the encoders), back off 10 cm, 90 degrees left; three times.
usage: python3 create2_bump_and_turn.py URL    (e.g. create:/dev/ttyUSB0?model=create2)

pycreate2                             botwire
bot = Create2(port); bot.start()      b = botwire.Base(url): Start, Full, group 100 streamed
bot.safe()  (bot.full())              b.create.mode = "safe" ("full", "passive"); or ?mode=safe
bot.drive_direct(r, l)  mm/s          b.create.drive_direct(left, right)  m/s, left first
bot.drive_stop()                      drive_stop() below: b.stop(), then 0.3 s for the wheels
bot.createSong(n, notes); playSong(n) b.create.song(n, [(note, seconds), ...]); .play(n)
bot.led(bits, colour, intensity)      b.create.leds(bits, colour, intensity)
bot.digit_led_ascii("done")           b.create.digits("done")
s = bot.get_sensors(); time.sleep(t)  s = b.state (streamed: no query); b.poll(t), b.step(t)
s.bumps_wheeldrops.bump_right, _left  s.bump_switches[0], [1]; s.bumper (BUMP_* bits)
  .wheeldrop_right, .wheeldrop_left   s.wheel_drops & DROP_RIGHT, DROP_LEFT
s.cliff_left ... s.cliff_right        s.cliff & CLIFF_LEFT ... CLIFF_RIGHT
s.encoder_counts_left, _right         s.encoder (left, right; unwrapped), s.counts_per_m
s.voltage, battery_charge (mV, mAh)   s.battery, s.battery_charge (V, Ah)
s.open_interface_mode                 s.mode ("off", "passive", "safe", "full")
s.light_bumper, .light_bump_*         b.create.light_bumper, .light_bump_signals
s.ir_opcode, .ir_opcode_left, _right  b.create.ir (omni, left, right)
s.*_motor_current                     b.create.currents (mA)
bot.close()                           the with block's end (or b.close()): the wheels stop
"""
import math, sys, botwire

WHEELBASE = 0.235                      # m, the Create 2 OI specification's
SPEED, BACK, MAX_LEG, LEGS = 300, 0.10, 2.0, 3     # mm/s, m, m


def drive_direct(b, right, left):      # pycreate2's order: right wheel first, mm/s
    b.create.drive_direct(left / 1000, right / 1000)


def drive_stop(b):                     # as pycreate2's, it waits for the wheels to stop
    b.stop(); b.step(0.3)


def wheels(b, since):                  # metres each wheel went since the counts `since`
    return [(c - c0) / b.state.counts_per_m for c, c0 in zip(b.state.encoder, since)]


def until(b, done, what, seconds=30):
    give_up = b.now + seconds
    while not done(b.state):
        if b.now > give_up or b.state.mode == "passive":   # stuck, or Safe mode gave up
            b.stop()
            sys.exit(f"{what}: not done in {seconds} s (mode {b.state.mode})")
        b.poll(0.1)


url = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__.splitlines()[2])
with botwire.Base(url) as b:
    b.create.mode = "safe"             # bot.safe(): asked until the robot's frames say it
    until(b, lambda s: s.mode == "safe", "safe mode")
    b.create.song(0, [(72, 0.125), (76, 0.125), (79, 0.25)])
    b.create.play(0)
    s = b.state
    if s.encoder is None:
        sys.exit(f"{url}: no encoder counts: is it a Create 2 (model=create2)?")
    print(f"start: mode {s.mode}, battery {s.battery:.1f} V, {s.battery_charge:.2f} of "
          f"{s.battery_capacity:.2f} Ah, encoders {s.encoder}")
    print(f"sensors: light bumper {b.create.light_bumper:#04x}, IR {b.create.ir}, "
          f"currents {b.create.currents} mA")
    for leg in range(1, LEGS + 1):
        e0 = b.state.encoder
        drive_direct(b, SPEED, SPEED)
        until(b, lambda s: s.bumper or s.cliff or sum(wheels(b, e0)) / 2 >= MAX_LEG, "ahead")
        s = b.state                    # what ended the leg
        drive_stop(b)
        ahead = sum(wheels(b, e0)) / 2
        if s.bumper or s.cliff:
            right, left = s.bump_switches
            print(f"leg {leg}: bump (right {right}, left {left}, cliff {s.cliff:#x}) after "
                  f"{ahead:.3f} m, encoders {s.encoder}")
            e0 = b.state.encoder
            drive_direct(b, -SPEED // 2, -SPEED // 2)
            until(b, lambda s: sum(wheels(b, e0)) / 2 <= -BACK, "back off")
            drive_stop(b)
        else:
            print(f"leg {leg}: {ahead:.3f} m, no bump, encoders {s.encoder}")
        b.create.leds(8 if s.bumper else 0, 255, 255)          # Check Robot, the power LED red
        e0, arc = b.state.encoder, math.pi / 2 * WHEELBASE / 2      # 90 degrees left

        def turned(s):                 # slower near the end: the wheels take time to stop
            left, right = wheels(b, e0)
            v = max(30, min(200, 700 * math.sqrt(max(0, arc - (right - left) / 2))))
            drive_direct(b, v, -v)
            return (right - left) / 2 >= arc
        until(b, turned, "turn")
        drive_stop(b)
        print(f"leg {leg}: turned, encoders {b.state.encoder}, heading "
              f"{math.degrees(b.state.theta):.1f} deg")
    b.create.digits("done")
    b.create.leds(0, 0, 255)           # the power LED green: all well
    b.step(0.1)
    s = b.state
    print(f"done: odometry ({s.x:.3f}, {s.y:.3f}, {math.degrees(s.theta):.1f} deg), "
          f"battery {s.battery:.1f} V, mode {s.mode}")
