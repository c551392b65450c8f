#!/bin/sh
# A fleet under ROS 2: ten emulated robots of four families in one world
# (nine in one `botwire sim --world`, the tenth, a Kobuki, in an emulator
# of its own so that its link alone can be cut), one `botwire ros2 --world`
# process for all ten, and a ROS 2 peer on a loopback-only domain. Checks:
# ten odom topics at their robots' rates, ten tf trees with no mixed
# frames, cmd_vel to robot 3 moves robot 3 alone (the emulators' truth),
# robot 10's emulator killed: its diagnostics say offline while the nine
# publish on.
# usage: fleet.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
fleet= lone= node=
cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null
    [ -n "$fleet" ] && kill "$fleet" 2>/dev/null
    [ -n "$lone" ] && kill "$lone" 2>/dev/null
}

# The world of ten; the fleet emulator serves the first nine lines.
cat >"$tmp/ten.world" <<'EOF'
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
robot kobuki 4 5 0
EOF
sed '$d' "$tmp/ten.world" >"$tmp/nine.world"
mkfifo "$tmp/node.fifo"
serve_ten "$tmp/nine.world" 0
pass "9 robots served"
pass "robot 10: $said"

# One process, ten nodes.
"$bw" ros2 --world "$tmp/ten.world" --tcp "127.0.0.1:$base" --diagnostic-period 0.2 \
    >"$tmp/node.fifo" 2>"$tmp/node.err" &
node=$!
head -n 11 "$tmp/node.fifo" >"$tmp/node.said"
[ "$(grep -c "/robot[0-9]*/botwire on " "$tmp/node.said")" = 10 ] &&
    grep -q "10 nodes on DDS domain $ROS_DOMAIN_ID" "$tmp/node.said" &&
    pass "one botwire ros2: $(tail -n 1 "$tmp/node.said")" ||
    { fail "botwire ros2: $(cat "$tmp/node.said" "$tmp/node.err")"; exit 1; }

# Rates: each robot at least half of what it reports: Kobuki 50, Create 67
# (polled at 50), P2OS 10 (a SIP each 100 ms), B21r 10 (its motor reports).
rates_ok() {
    awk -v skip="$2" '
        /^odom robot/ { k = substr($2, 6); hz = $4; want = 25
            if (k == 2 || k == 6 || k == 9 || k == 3 || k == 7) want = 5
            if (k != skip && hz < want) { print "robot " k " at " hz " Hz, wanted >= " want; bad = 1 } }
        END { exit bad }' "$1"
}
robots="robot1 robot2 robot3 robot4 robot5 robot6 robot7 robot8 robot9 robot10"
# (the peer drives robot 3 once its odometry comes, and watches on until it
# is at rest)
"$peer" watch 5 $robots --drive robot3 0.3 2 --stamped 0 >"$tmp/watch1" 2>"$tmp/peer.err" ||
    fail "peer: $(cat "$tmp/watch1" "$tmp/peer.err")"
slow=$(rates_ok "$tmp/watch1" 0) && pass "10 odom topics at their robots' rates" || fail "rates: $slow"
grep -q '^tf 10 0$' "$tmp/watch1" && pass "tf: 10 trees robotK/odom -> robotK/base_footprint, none mixed" ||
    fail "tf: $(grep '^tf ' "$tmp/watch1")"
[ "$(grep -c '^online robot[0-9]* 1$' "$tmp/watch1")" = 10 ] && pass "10 robots online on /diagnostics" ||
    fail "online: $(grep '^online ' "$tmp/watch1" | tr '\n' ';')"

# Robot 10's emulator stops: its node says so, the nine publish on.
kill -INT "$lone"
wait "$lone"
lone=
# (past its 3 s the watch waits for robot 10's diagnostics to say so)
"$peer" watch 3 $robots --until-offline robot10 >"$tmp/watch2" 2>"$tmp/peer.err"
grep -q '^online robot10 0$' "$tmp/watch2" && pass "robot 10's link lost: its diagnostics say so" ||
    fail "robot 10 after its emulator stopped: $(grep '^online robot10 ' "$tmp/watch2")"
slow=$(rates_ok "$tmp/watch2" 10) && pass "the other nine publish on at their rates" ||
    fail "rates after robot 10 went: $slow"
[ "$(grep -c '^online robot[1-9] 1$' "$tmp/watch2")" = 9 ] && pass "the other nine still online" ||
    fail "the nine: $(grep '^online robot[1-9] ' "$tmp/watch2" | tr '\n' ';')"

# The truth: robot 3 moved, as far as its odometry says it did at rest
# (within 2 cm: a B21r's counts over 0.6 m), nobody else did (1 cm).
kill -INT "$node"
wait "$node"
node=
kill -INT "$fleet"
wait "$fleet"
fleet=
moved=$(awk '
    /^robot [a-z]/ { n++; sx[n] = $3; sy[n] = $4 }
    /robot at \(/ { s = $0; sub(/.*robot at \(/, "", s); sub(/,.*/, "", s); x = s
        t = $0; sub(/.*robot at \([^,]*, /, "", t); sub(/,.*/, "", t); y = t
        split($4, a, ":"); k = a[1]; d = sqrt((x - sx[k]) ^ 2 + (y - sy[k]) ^ 2); printf "%d %.3f\n", k, d }
' "$tmp/nine.world" "$tmp/fleet.err")
x3=$(sed -n 's/^odom robot3 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch1")
echo "$moved" | awk -v x="${x3:-0}" '$1 == 3 { three = $2 } $1 != 3 && $2 > 0.01 { other = other " " $1 }
    END { d = three - x; exit !(three > 0 && d <= 0.02 && -d <= 0.02 && other == "") }' &&
    pass "only robot 3 moved: $(echo "$moved" | awk '$1 == 3 { print $2 }') m, its odometry $x3 m" ||
    fail "who moved: $(echo "$moved" | tr '\n' ';') (robot 3's odometry: ${x3:-none})"
# At the speed asked, by its own odometry (the upper quartile of the
# speeds it moved at), within 3 %: a B21r reports its speed in its
# counts, far finer. How far is the machine's to say: when the peer's 2 s
# began and ended for the node.
set -- $(grep '^cruise robot3 ' "$tmp/watch1")
awk -v c="${3:--1}" 'BEGIN { d = c - 0.3; exit !(d <= 0.009 && -d <= 0.009) }' &&
    pass "robot 3 drove at ${3} m/s by its odometry" ||
    fail "robot 3 at ${3:-?} m/s by its odometry ($(grep robot3 "$tmp/watch1"))"

finish "fleet under ROS 2"
