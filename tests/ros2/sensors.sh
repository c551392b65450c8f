#!/bin/sh
# The data users read from kobuki_ros and create_robot: imu (the Kobuki's
# gyro), joint_states (each wheel's encoder), battery with its percentage
# and charging status, and reset_odometry. `botwire ros2` on a real pty
# against a Kobuki emulator in another process, read by a ROS 2 peer
# (ros2_peer: the Cyclone DDS C API, its own IDL of the ROS 2 types) on a
# loopback-only DDS domain of this test's own, and held to the emulator's
# truth: its wheels' travel and heading. Then a Create 2 (encoders, no
# gyro) and a Pioneer (neither).
# usage: sensors.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}

# 1. A Kobuki driven 1 m on an arc (0.2 m/s, 0.2 rad/s, 5 s), watched until
# it is at rest again (30 s only catch a node that never stops it).
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
"$bw" ros2 "kobuki:$tmp/kobuki" --ns robot1 >"$tmp/node.out" 2>"$tmp/node.err" &
node=$!
"$peer" watch 1 robot1 --drive robot1 0.2 5 --w 0.2 --stamped 0 >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
"$peer" sensors 0.5 robot1 >"$tmp/sensors"
"$peer" reset robot1 >"$tmp/reset"
kill -INT "$node"
wait "$node"
node=
stop_emulator
wheels=$(sed -n 's/.*its wheels turned \([0-9.-]*\) m and \([0-9.-]*\) m.*/\1 \2/p' "$tmp/sim.err" | tail -n 1)
set -- $truth
heading=${3:-x}

# The wheels' joints: each wheel's angle by its encoder, times the
# Kobuki's 35 mm wheel radius, is the travel the emulator's wheels truly
# made, within 1 %.
read -r _ n0 n1 p0 p1 v0 v1 <<T
$(grep '^joints ' "$tmp/sensors")
T
[ "${n0:-} ${n1:-}" = "wheel_left_joint wheel_right_joint" ] &&
    pass "joint_states names the wheels as kobuki_ros: $n0, $n1" || fail "joint_states: $(cat "$tmp/sensors")"
set -- ${wheels:-x x}
awk -v a="${p0:-0}" -v b="${p1:-0}" -v l="$1" -v r="$2" 'BEGIN {
        dl = a * 0.035 - l; dr = b * 0.035 - r
        exit !(l > 0.3 && r > 0.3 && l != r && dl * dl <= (0.01 * l) ^ 2 && dr * dr <= (0.01 * r) ^ 2) }' &&
    pass "the wheel joints at $p0 and $p1 rad: $(awk -v a="$p0" -v b="$p1" 'BEGIN { printf "%.4f m and %.4f m", a * 0.035, b * 0.035 }') of travel; the emulator's wheels truly turned $1 m and $2 m" ||
    fail "wheel joints $p0 and $p1 rad; the emulator's wheels turned $1 m and $2 m"
awk -v a="${v0:-9}" -v b="${v1:-9}" 'BEGIN { exit !(a == 0 && b == 0) }' &&
    pass "the wheels' speeds 0 at rest" || fail "wheel speeds at rest: $v0 $v1"

# The imu: the gyro's heading, the emulator's true heading within a
# degree; no rate at rest; roll and pitch unknown, no accelerometer.
read -r _ frame yaw rate cov acc <<T
$(grep '^imu ' "$tmp/sensors")
T
awk -v y="${yaw:-99}" -v h="$heading" 'BEGIN { d = y * 180 / 3.14159265358979 - h
        while (d > 180) d -= 360; while (d < -180) d += 360; exit !(h + 0 > 30 && d <= 1 && d >= -1) }' &&
    pass "imu yaw $yaw rad, the robot truly at $heading degrees" || fail "imu yaw $yaw; truly $heading degrees"
[ "$frame" = robot1/base_footprint ] && [ "$rate" = 0.0000 ] && [ "$acc" = -1 ] &&
    awk -v c="${cov:-0}" 'BEGIN { exit !(c > 0) }' &&
    pass "imu in $frame, rate $rate at rest, yaw variance $cov, no accelerometer (-1)" ||
    fail "imu: $(grep '^imu ' "$tmp/sensors")"

# The battery: a percentage (0..1) on the pack's curve, 13.2 V empty and
# 16.7 V full (kobuki_driver's), and discharging (2) off the dock.
read -r _ volts pct status <<T
$(grep '^battery ' "$tmp/sensors")
T
awk -v v="${volts:-0}" -v p="${pct:-x}" 'BEGIN { w = (v - 13.2) / 3.5; if (w > 1) w = 1; if (w < 0) w = 0
        d = p - w; exit !(v > 0 && p > 0 && p <= 1 && d <= 0.005 && -d <= 0.005) }' &&
    [ "$status" = 2 ] && pass "battery: $volts V, percentage $pct, discharging" ||
    fail "battery: $(grep '^battery ' "$tmp/sensors")"

# reset_odometry: the pose starts again from (0, 0, 0) where it stands.
read -r _ rx ry ryaw <<T
$(cat "$tmp/reset")
T
awk -v x="${rx:-9}" -v y="${ry:-9}" -v t="${ryaw:-9}" 'BEGIN { exit !(x * x + y * y < 1e-6 && t * t < 1e-6) }' &&
    pass "reset_odometry: the next odometry at ($rx, $ry, $ryaw)" || fail "after reset_odometry: $(cat "$tmp/reset")"
grep -q "/robot1: odometry reset to (0, 0, 0)" "$tmp/node.err" && pass "the node said so" ||
    fail "the node did not say it reset: $(cat "$tmp/node.err")"

# 2. A Create 2: joints from its encoders, a percentage from its charge,
# no imu (no gyro). A Pioneer: neither joints nor imu, its percentage
# unknown (NaN: it reports volts alone).
look() {
    "$bw" ros2 "$1" --ns robot2 >/dev/null 2>"$tmp/node.err" &
    node=$!
    "$peer" sensors 0.5 robot2 >"$tmp/sensors2"
    kill -INT "$node"
    wait "$node"
    node=
}
look "sim:create?model=create2"
grep -q '^none imu$' "$tmp/sensors2" && grep -q '^joints wheel_left_joint wheel_right_joint ' "$tmp/sensors2" &&
    awk '/^battery / { exit !($3 > 0 && $3 <= 1) }' "$tmp/sensors2" &&
    pass "a Create 2: no imu, its wheel joints, battery $(grep '^battery' "$tmp/sensors2")" ||
    fail "a Create 2: $(cat "$tmp/sensors2")"
look sim:p2os
grep -q '^none imu$' "$tmp/sensors2" && grep -q '^none joints$' "$tmp/sensors2" &&
    grep -q '^battery [0-9.]* nan ' "$tmp/sensors2" &&
    pass "a Pioneer: no imu, no joints, battery $(grep '^battery' "$tmp/sensors2")" ||
    fail "a Pioneer: $(cat "$tmp/sensors2")"

finish "imu, joint_states, battery and reset_odometry"
