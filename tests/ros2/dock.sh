#!/bin/sh
# dock and undock under ROS 2 (std_msgs/msg/Empty, as create_robot names
# them): two emulated robots of a world with a Kobuki dock, a Kobuki 1 m in
# front of it and a P2OS. Checks: dock on the Kobuki ends with the node's
# /rosout line "dock: done: docked and charging" and BatteryState saying
# so; undock backs it off and turns it round, BatteryState discharging;
# the emulator's truth at the end puts it 0.3 m out from where a docked
# Kobuki stands, facing away; undock off the dock fails, saying why; dock
# on the P2OS says it has no dock, and the P2OS never moved; dock on a
# Create 2 facing its Home Base 1 m off goes by the robot's own Seek Dock
# and ends docked and charging, its contacts' truth on the dock.
# usage: dock.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null
}
cat >"$tmp/dock.world" <<'EOF'
size 6 5
dock 5.9 2.5 180 kobuki
dock 3 4.9 -90 create
robot kobuki 4.9 2.5 0
robot p2os 1 1 0
robot create/create2 3 3.9 90
EOF
"$bw" ros2 --robots 1-3 --world "$tmp/dock.world" --diagnostic-period 0.2 --for 300 \
    >"$tmp/node.out" 2>"$tmp/node.err" &
node=$!
if wait_line "$tmp/node.out" "3 nodes on DDS domain $ROS_DOMAIN_ID" 60; then
    pass "node up: $(tail -n 1 "$tmp/node.out")"
else
    fail "node did not come up: $(cat "$tmp/node.out" "$tmp/node.err")"
    exit 1
fi

# power_supply_status: 1 charging, 2 discharging, 4 full
if "$peer" dock robot1 120 >"$tmp/dock" 2>"$tmp/peer.err"; then
    pass "dock: $(grep '^said .*done' "$tmp/dock" | sed 's/^said //')"
else
    fail "dock: $(cat "$tmp/dock" "$tmp/peer.err" | tr '\n' ';')"
fi
set -- $(sed -n 's/^battery //p' "$tmp/dock")
[ "${1:-}" = 1 ] || [ "${1:-}" = 4 ] && pass "docked: BatteryState power_supply_status ${1} (on the dock)" ||
    fail "docked: BatteryState power_supply_status ${1:-none}, wanted 1 or 4"
if "$peer" dock robot1 60 --undock >"$tmp/undock" 2>"$tmp/peer.err"; then
    pass "undock: $(grep '^said .*done' "$tmp/undock" | sed 's/^said //')"
else
    fail "undock: $(cat "$tmp/undock" "$tmp/peer.err" | tr '\n' ';')"
fi
set -- $(sed -n 's/^battery //p' "$tmp/undock")
[ "${1:-}" = 2 ] && pass "undocked: BatteryState discharging" ||
    fail "undocked: BatteryState power_supply_status ${1:-none}, wanted 2"
"$peer" dock robot1 30 --undock >"$tmp/again" 2>"$tmp/peer.err"
grep -q '^said undock: failed: not on a dock' "$tmp/again" && pass "undock off the dock: $(sed -n 's/^said //p' "$tmp/again" | tail -n 1)" ||
    fail "undock off the dock: $(cat "$tmp/again" | tr '\n' ';')"
"$peer" dock robot2 30 >"$tmp/p2os" 2>"$tmp/peer.err"
grep -q '^said dock: a p2os base reports no dock botwire can find it by; not moved$' "$tmp/p2os" &&
    pass "dock on a P2OS: $(sed -n 's/^said //p' "$tmp/p2os")" || fail "dock on a P2OS: $(cat "$tmp/p2os" | tr '\n' ';')"

if "$peer" dock robot3 120 >"$tmp/create" 2>"$tmp/peer.err"; then
    pass "dock on a Create 2: $(grep '^said .*done' "$tmp/create" | sed 's/^said //')"
else
    fail "dock on a Create 2: $(cat "$tmp/create" "$tmp/peer.err" | tr '\n' ';')"
fi
set -- $(sed -n 's/^battery //p' "$tmp/create")
[ "${1:-}" = 1 ] || [ "${1:-}" = 4 ] && pass "the Create docked: BatteryState power_supply_status ${1}" ||
    fail "the Create docked: BatteryState power_supply_status ${1:-none}, wanted 1 or 4"

# The truth: robot 1 0.3 m out from a docked Kobuki's place (5.9 - 0.177,
# 0.04 more if it pushed on to the dock's back), facing away; robot 2 where
# it was.
kill -INT "$node"
wait "$node"
node=
line=$(grep '^botwire ros2: /robot1: robot at ' "$tmp/node.err")
set -- $(echo "$line" | sed 's/.*robot at (\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\) deg).*/\1 \2 \3/')
awk -v x="${1:-0}" -v y="${2:-0}" -v h="${3:-0}" 'BEGIN {
    d = 5.9 - 0.177 - x; a = h < 0 ? -h : h
    exit !(d >= 0.28 && d <= 0.36 + 0.04 && y > 2.45 && y < 2.55 && a > 170) }' &&
    pass "the truth: $line" || fail "the truth: ${line:-robot 1 never moved}"
grep -q "^botwire ros2: 2 of 3 robots moved (the emulators' truth)" "$tmp/node.err" &&
    ! grep -q '^botwire ros2: /robot2: robot at ' "$tmp/node.err" &&
    pass "the P2OS never moved" || fail "who moved: $(grep 'robots moved\|robot at' "$tmp/node.err")"
line=$(grep '^botwire ros2: /robot3: robot at ' "$tmp/node.err")
echo "$line" | grep -q ', on a dock$' && pass "the Create's truth: $line" ||
    fail "the Create's truth: ${line:-robot 3 never moved}"

finish "dock and undock under ROS 2"
