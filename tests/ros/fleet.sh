#!/bin/sh
# A fleet under ROS: 10 emulated robots of four families, one roscore on a
# free port, a botwire_ros node per robot in its own namespace, started by
# launch files `botwire ros-launch` writes; half the nodes on a second
# network identity (the machine's own address as ROS_IP), as on a second
# machine. Checks: 10
# odom topics at their robots' rates, tf in 10 trees of their own, a
# cmd_vel to robot 3 moves robot 3 alone (the emulators' truth), and robot
# 10's emulator stopped: its node says so, the other nine publish on.
# usage: fleet.sh ROS_PACKAGE_DIR CHECK BOTWIRE
set -u
pkgdir=$1 check=$2 bw=$3
. "$(dirname "$0")/../testlib.sh"

export ROS_HOME="$tmp/ros" ROS_LOG_DIR="$tmp/ros/log"
export ROS_PACKAGE_PATH="$pkgdir${ROS_PACKAGE_PATH:+:$ROS_PACKAGE_PATH}"
# Every process here at 127.0.0.1 (the test's own watcher too: a name the
# master cannot resolve, the machine's hostname in a bare chroot, would keep
# it from being told of publishers); the second half overrides it.
unset ROS_HOSTNAME
export ROS_IP=127.0.0.1
core= fleet= lone= half1= half2= watcher= copier=
cleanup() {
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
    for p in $half1 $half2; do kill -INT "$p" 2>/dev/null && wait "$p"; done
    [ -n "$fleet" ] && kill "$fleet" 2>/dev/null
    [ -n "$lone" ] && kill "$lone" 2>/dev/null
    [ -n "$core" ] && kill -INT "$core" 2>/dev/null && wait "$core"
}

. "$(dirname "$0")/roslib.sh"

# Nine robots of four families in one world, and a tenth (a Kobuki) in an
# emulator of its own, so that its link alone can be cut.
cat >"$tmp/fleet.world" <<'EOF'
box 0 0 8 6
robot kobuki 1 1 0
robot p2os 2.5 1 0
robot rflex 4 1 0
robot create 5.5 1 0
robot kobuki 1 3 0
robot p2os/p2pb 2.5 3 0
robot rflex 4 3 0
robot create/create2 5.5 3 0
robot p2os 1 5 0
EOF
serve_ten "$tmp/fleet.world" 1
pass "9 robots served: $(tr '\n' ';' <"$tmp/fleet.said")"
pass "robot 10: $said"
# The master on the port after them.
port=$((base + 10))
export ROS_MASTER_URI="http://127.0.0.1:$port"
ROS_IP=127.0.0.1 roscore -p "$port" >"$tmp/core.out" 2>&1 &
core=$!
"$check" master 60 2>"$tmp/master.err" && pass "roscore on port $port" ||
    { fail "roscore: $(cat "$tmp/master.err") $(tail -n 3 "$tmp/core.out")"; exit 1; }

# The launch files: robots 1-5 on 127.0.0.1, 6-10 on a second network
# identity, as on a second machine: this machine's own address (roscpp
# binds its TCPROS server to 127.0.0.1 whenever ROS_IP is 127.x, so
# 127.0.0.2 cannot stand for another machine: its publishers are not
# reachable at the address they advertise).
second=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' | grep -v '^127\.' | head -n 1)
if [ -n "$second" ]; then
    pass "second identity: ROS_IP $second"
    second_env="ROS_IP=$second"
else
    # A machine with loopback alone: the name localhost, resolved by each
    # node, is the most the second half can differ by.
    pass "no address but loopback here: the second half runs as ROS_HOSTNAME=localhost"
    second_env="ROS_HOSTNAME=localhost"
fi
"$bw" ros-launch --world "$tmp/fleet.world" --tcp "127.0.0.1:$base" --count 5 --rate 50 \
    --diagnostic-period 0.2 -o "$tmp/a.launch" || fail "ros-launch a"
"$bw" ros-launch --world "$tmp/fleet.world" --tcp "127.0.0.1:$base" --first 6 --rate 50 \
    --diagnostic-period 0.2 -o "$tmp/b9.launch" || fail "ros-launch b"
"$bw" ros-launch kobuki --robots 10 --first 10 --tcp "127.0.0.1:$base" --rate 50 \
    --diagnostic-period 0.2 -o "$tmp/b10.launch" || fail "ros-launch 10"
grep -q 'value="robot10"' "$tmp/b10.launch" && grep -q "kobuki:tcp://127.0.0.1:$((base + 9))" "$tmp/b10.launch" &&
    pass "ros-launch: robot 10 at port $((base + 9))" || fail "ros-launch 10: $(cat "$tmp/b10.launch")"
# Each is well-formed XML (an XML comment may hold no "--").
for f in a b9 b10; do
    /usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/$f.launch" 2>"$tmp/xml.err" &&
        pass "ros-launch: $f.launch is well-formed" || fail "ros-launch: $f.launch: $(tail -n 1 "$tmp/xml.err")"
done
# One launch file for the second identity: robots 6-9 and 10.
{ sed '$d' "$tmp/b9.launch"; sed -n '/<include/,/<\/include>/p' "$tmp/b10.launch"; echo "</launch>"; } >"$tmp/b.launch"
ROS_IP=127.0.0.1 roslaunch --wait "$tmp/a.launch" >"$tmp/a.out" 2>&1 &
half1=$!
env "$second_env" roslaunch --wait "$tmp/b.launch" >"$tmp/b.out" 2>&1 &
half2=$!
"$check" fleet-online 10 60 >"$tmp/online" && pass "10 nodes online, each under its own namespace" ||
    { fail "fleet online: $(cat "$tmp/online") $(tail -n 5 "$tmp/a.out" "$tmp/b.out")"; exit 1; }
# The second identity is used: its nodes' URIs name it.
uri=$(rosnode info /robot7/botwire 2>&1 | grep -o 'http://[0-9a-z.]*:[0-9]*' | head -n 1)
case $uri in "http://${second:-localhost}:"*) pass "robot 7's node is at $uri" ;;
*) fail "robot 7's node: $uri" ;; esac

# Robot 3 alone is sent cmd_vel; every robot's odom is counted meanwhile,
# and robot 3's watched until it is at rest again.
"$check" fleet-watch 10 3 >"$tmp/watch1" &
fleet_watcher=$!
watch_first "$tmp/watch3" 3 __ns:=/robot3 || fail "no odometry from robot 3: $(cat "$tmp/watch3")"
"$check" publish 0.3 2 zero __ns:=/robot3 || fail "publisher to robot 3"
wait "$fleet_watcher"
watch_end
cat "$tmp/watch1" "$tmp/watch3"
# Rates: each robot at least half of what it reports, by its odometry's
# stamps (the node's own cadence), as far as the node's 50 Hz polls see
# it: Kobuki 50, P2OS 10 (a SIP each 100 ms), B21r 10 (its motor reports),
# Create 50 (67 Hz, polled at 50).
rates_ok() {
    awk -v skip="$2" '
        /^robot / { k = $2; hz = $4; want = 25
            if (k == 2 || k == 6 || k == 9 || k == 3 || k == 7) want = 5
            if (k != skip && hz < want) { print "robot " k " at " hz " Hz, wanted >= " want; bad = 1 } }
        END { exit bad }' "$1"
}
slow=$(rates_ok "$tmp/watch1" 0) && pass "10 odom topics at their robots' rates" || fail "rates: $slow"
trees=$(sed -n 's/^trees \([0-9]*\) mixed \([0-9]*\)/\1 \2/p' "$tmp/watch1")
[ "$trees" = "10 0" ] && pass "tf: 10 trees robotK/odom -> robotK/base_footprint, none mixed" ||
    fail "tf: trees/mixed $trees"

# Robot 10's emulator stops: its node reports it, the nine publish on.
kill -INT "$lone"
wait "$lone"
lone=
# (past its 3 s the watch waits for robot 10's diagnostics to say so)
"$check" fleet-watch 10 3 10 >"$tmp/watch2"
cat "$tmp/watch2"
grep -q "^robot 10 .* online 0$" "$tmp/watch2" && pass "robot 10's link lost: its diagnostics say so" ||
    fail "robot 10 after its emulator stopped: $(grep '^robot 10 ' "$tmp/watch2")"
slow=$(rates_ok "$tmp/watch2" 10) && pass "the other nine publish on at their rates" ||
    fail "rates after robot 10 went: $slow"
[ "$(grep -c '^robot [1-9] .* online 1$' "$tmp/watch2")" = 9 ] && pass "the other nine still online" ||
    fail "the nine: $(grep '^robot [1-9] ' "$tmp/watch2")"

# The truth: robot 3 moved, as far as its odometry says it did at rest
# (within 2 cm: a B21r's counts over 0.6 m), nobody else did (1 cm).
# And at the speed asked, by its own odometry (the upper quartile of the
# speeds it moved at), within 3 %: a B21r reports its speed in its
# counts, far finer. How far is the machine's to say: when the publisher's
# 2 s began and ended for the node.
for p in $half1 $half2; do kill -INT "$p" && wait "$p"; done
half1= half2=
kill -INT "$fleet"
wait "$fleet"
fleet=
moved=$(awk '
    /^robot [a-z]/ { n++; sx[n] = $3; sy[n] = $4 }
    /robot at \(/ { s = $0; sub(/.*robot at \(/, "", s); sub(/,.*/, "", s); x = s
        t = $0; sub(/.*robot at \([^,]*, /, "", t); sub(/,.*/, "", t); y = t
        split($4, a, ":"); k = a[1]; d = sqrt((x - sx[k]) ^ 2 + (y - sy[k]) ^ 2); printf "%d %.3f\n", k, d }
' "$tmp/fleet.world" "$tmp/fleet.err")
echo "$moved"
x3=$(sed -n 's/^odom \([-0-9.]*\) .*/\1/p' "$tmp/watch3")
cruise=$(sed -n 's/^cruise //p' "$tmp/watch3")
echo "$moved" | awk -v x="${x3:-0}" '$1 == 3 { three = $2 } $1 != 3 && $2 > 0.01 { other = other " " $1 }
    END { d = three - x; exit !(three > 0 && d <= 0.02 && -d <= 0.02 && other == "") }' &&
    pass "only robot 3 moved: $(echo "$moved" | awk '$1 == 3 { print $2 }') m, its odometry $x3 m" ||
    fail "who moved: $(echo "$moved" | tr '\n' ';') (robot 3's odometry: ${x3:-none})"
awk -v c="${cruise:--1}" 'BEGIN { d = c - 0.3; exit !(d <= 0.009 && -d <= 0.009) }' &&
    pass "robot 3 drove at $cruise m/s by its odometry" ||
    fail "robot 3 at ${cruise:-?} m/s by its odometry ($(cat "$tmp/watch3"))"

finish "fleet under ROS"
