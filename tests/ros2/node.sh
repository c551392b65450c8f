#!/bin/sh
# `botwire ros2` on a real pty against a Kobuki emulator in another process,
# seen by a ROS 2 peer (ros2_peer: the Cyclone DDS C API, its own IDL of the
# ROS 2 types) on a loopback-only DDS domain of this test's own: nothing
# sent that nobody reads (but what is latched); odometry
# at the robot's rate in the namespace's frames, /tf, cmd_vel (TwistStamped,
# the default) moving the robot (the emulator's true pose), a teleop that
# falls silent (the node's
# --cmd-vel-timeout), the node in ros_discovery_info; SIGINT and SIGTERM
# stop the robot at once, SIGKILL leaves it to the robot's own watchdog;
# the Humble layout read with Humble's types.
# usage: node.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}

# 0. Nobody listening: a message no reader matched is not sent (nor
# serialized), but what is latched for later readers (bumper, cliff,
# wheel_drop) and the node's own /rosout and /parameter_events: 5 at most.
said=$("$bw" ros2 sim:kobuki --ns robot0 --for 1 2>&1 | grep 'messages published')
set -- $(echo "$said" | sed -n 's/.*: \([0-9]*\) messages published in .*, \([0-9]*\) not sent (no reader).*/\1 \2/p')
[ -n "${1:-}" ] && [ "$1" -le 5 ] && [ "${2:-0}" -gt 0 ] &&
    pass "nobody listening: $1 latched or the node's own sent, $2 not sent" ||
    fail "nobody listening: $said"

# 0b. Rates for a fleet: --odom-rate 10 --tf-rate 5 from a 50 Hz Kobuki:
# odometry every fifth report (by its stamps' median gap), tf half as often.
"$bw" ros2 sim:kobuki --ns robot0 --odom-rate 10 --tf-rate 5 --for 60 >/dev/null 2>"$tmp/rates.err" &
node=$!
"$peer" watch 2 robot0 >"$tmp/rates" 2>"$tmp/peer.err" || fail "peer: no odometry ($(cat "$tmp/rates"))"
kill -INT "$node"
wait "$node"
node=
set -- $(grep '^odom robot0 ' "$tmp/rates") $(sed -n 's/^tfs robot0 //p' "$tmp/rates")
awk -v hz="${4:-0}" -v n="${3:-0}" -v tfs="${10:-0}" \
    'BEGIN { exit !(hz >= 9 && hz <= 10.5 && n > 4 && tfs / n >= 0.4 && tfs / n <= 0.6) }' &&
    pass "--odom-rate 10 --tf-rate 5: odometry at ${4} Hz, ${3} of them, ${10} transforms on tf" ||
    fail "--odom-rate 10 --tf-rate 5: $(cat "$tmp/rates")"

# 1. Odometry, tf and a drive: 2 s at 0.2 m/s (the peer watches on until
# the robot is at rest, however late the drive began, and until the node
# says the link is online).
start=$(start_of kobuki)
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
start_node "kobuki:$tmp/kobuki" --ns robot1
"$peer" watch 6 robot1 --drive robot1 0.2 2 --stamped 0 >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
set -- $(grep '^odom robot1 ' "$tmp/watch")
count=${3:-0} hz=${4:-0} frame=${5:-} child=${6:-} x=${7:-} avg=${9:-}
# The node's cadence by its own stamps (one over the median gap): a loaded
# machine that holds some of its cycles back lowers the average alone.
awk -v h="$hz" 'BEGIN { exit !(h >= 40) }' &&
    pass "rt/robot1/odom at $hz Hz ($count messages, $avg Hz over the whole watch)" ||
    fail "odometry rate $hz Hz ($(cat "$tmp/watch"))"
[ "$frame $child" = "robot1/odom robot1/base_footprint" ] &&
    pass "odometry frames $frame -> $child" || fail "odometry frames: $frame -> $child"
grep -q '^tf 1 0$' "$tmp/watch" && pass "rt/tf: robot1/odom -> robot1/base_footprint, no other" ||
    fail "tf: $(grep '^tf ' "$tmp/watch")"
grep -q '^online robot1 1$' "$tmp/watch" && pass "rt/diagnostics: robot1 online" ||
    fail "diagnostics: $(grep '^online ' "$tmp/watch")"
# At the speed asked, by the robot's own odometry (the upper quartile of
# the speeds it moved at), within 3 %: a tick more or less in a 20 ms
# feedback period is 2 % at 0.2 m/s, and the quartile of a hundred of them
# well inside that; a speed or a tick's length off by a twentieth
# fails it. How far is the machine's to say, not this test's: when the
# peer's 2 s began and ended for the node (and whether its timeout cut the
# stream short in between, a machine holding the peer back that long); the
# odometry is held to the emulator's truth in part 4.
set -- $(grep '^cruise robot1 ' "$tmp/watch")
awk -v c="${3:--1}" 'BEGIN { d = c - 0.2; exit !(d <= 0.006 && -d <= 0.006) }' &&
    pass "cmd_vel 0.2 m/s for 2 s: at ${3} m/s by its odometry, x = $x m" ||
    fail "cmd_vel 0.2 m/s: at ${3:-?} m/s by its odometry ($(cat "$tmp/watch"))"
# The stop: at rest 0.2 s after the zero twist was sent (the ramp down),
# plus a feedback period (20 ms), 0.15 s for node cycles and the odometry
# to show it and the time the machine held the node's cycles back (its
# odometry's stamps say how much); a stop left to the 0.6 s timeout fails.
set -- $(grep '^zero_to_rest robot1 ' "$tmp/watch")
awk -v s="${3:--1}" -v l="${4:-0}" 'BEGIN { exit !(s > 0 && s <= 0.2 + 0.02 + 0.15 + l) }' &&
    pass "at rest $3 s after the zero twist (the node's cycles $4 s late)" ||
    fail "at rest ${3:-?} s after the zero twist, ${4:-?} s late ($(cat "$tmp/watch"))"

# 2. The node in the ROS 2 graph, as `ros2 node list` finds it.
# (until the peer has it: 60 s only catch a node that never says so)
# Readers: cmd_vel, reset_odometry, dock, undock and the six parameter
# services' requests; writers: the nine topics of a Kobuki's, imu, joint_states,
# /rosout, /parameter_events and the six services' replies (no ranges: a
# Kobuki has none).
"$peer" nodes 60 --until "node /robot1 botwire 10 19" >"$tmp/nodes" 2>&1
grep -q '^node /robot1 botwire 10 19$' "$tmp/nodes" &&
    pass "ros_discovery_info: /robot1/botwire, 10 readers and 19 writers" ||
    fail "ros_discovery_info: $(cat "$tmp/nodes")"

# 3. The teleop dies mid-drive (no zero twist): the node stops the robot
# --cmd-vel-timeout (0.6 s) after the last cmd_vel; the Kobuki then brakes
# at 1 m/s^2 (half speed 0.1 s later, at rest 0.2 s later). Allowed on top:
# 0.15 s for node cycles and the odometry to show it, and the time the
# machine held the node's cycles back (its odometry's stamps say how much).
# (the watch ends once the robot is at rest: 30 s only catch one that
# never is)
"$peer" watch 30 robot1 --drive robot1 0.2 1 --stamped 0 --fall-silent >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
set -- $(grep '^stop robot1 ' "$tmp/watch")
slowing=${3:--1} after=${4:--1} late=${5:-0}
x=$(sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch")
awk -v s="$slowing" -v l="$late" 'BEGIN { exit !(s > 0.6 && s <= 0.6 + 0.1 + 0.15 + l) }' &&
    pass "cmd_vel fell silent: the robot brakes, at half speed $slowing s after the last one (timeout 0.6 s; the node's cycles $late s late)" ||
    fail "cmd_vel fell silent: half speed after $slowing s ($(cat "$tmp/watch"))"
awk -v a="$after" -v l="$late" 'BEGIN { exit !(a > 0.6 && a <= 0.6 + 0.2 + 0.15 + l) }' &&
    pass "... and at rest (odometry v = 0) $after s after it" ||
    fail "cmd_vel fell silent: at rest after $after s ($(cat "$tmp/watch"))"

# 4. SIGINT ends the node; the emulator's truth agrees with the odometry:
# the robot truly at rest where the odometry left it.
kill -INT "$node"
wait "$node"
status=$?
node=
[ "$status" = 130 ] && pass "SIGINT: the node ends (exit 130)" || fail "SIGINT: exit $status ($(cat "$tmp/node.err"))"
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.02 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth)"

# 5. A signal while the robot drives: SIGTERM stops it at once (the robot
# brakes from 0.2 m/s in 0.02 m); SIGKILL leaves it to the robot's own
# watchdog (0.5 s without a command: 0.1 m more), never to drive on.
for sig in TERM KILL; do
    rm -f "$tmp/announce"
    start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
    start_node "kobuki:$tmp/kobuki" --ns robot1
    # The signal once the peer says the robot is 0.1 m along: its first
    # line, read as it comes (the peer says nothing more until it ends, so
    # a file followed to its next write would wait out the drive).
    rm -f "$tmp/watch.fifo"
    mkfifo "$tmp/watch.fifo"
    "$peer" watch 30 robot1 --drive robot1 0.2 30 --stamped 0 --end-when-silent 1 >"$tmp/watch.fifo" 2>"$tmp/peer.err" &
    watcher=$!
    exec 4<"$tmp/watch.fifo"
    read -r moving <&4
    cat <&4 >"$tmp/watch" &
    copier=$!
    exec 4<&-
    case $moving in moving*) ;; *) fail "SIG$sig: the robot never moved: $moving ($(cat "$tmp/peer.err"))" ;; esac
    kill -"$sig" "$node"
    wait "$node"
    ended=$?
    node=
    wait "$watcher"
    wait "$copier"
    # What the robot did after: the emulator's pose once its watchdog has
    # had its time and a second more (a robot still driving goes 0.2 m
    # further in it).
    wait_line "$tmp/sim.err" "the last client closed" 10 || fail "SIG$sig: the pty was never closed"
    sleep 1.5
    stop_emulator
    x=$(sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch")
    went=$(echo "$truth" | awk -v s="$start" '{ split(s, a, " "); print $1 - a[1] }')
    over=$(awk -v w="$went" -v x="$x" 'BEGIN { printf "%.4f", w - x }')
    if [ "$sig" = TERM ]; then
        [ "$ended" = 143 ] && awk -v o="$over" 'BEGIN { exit !(o < 0.06) }' &&
            pass "SIGTERM: exit 143, the robot stopped at once: $over m past the last odometry" ||
            fail "SIGTERM: exit $ended, the robot went $over m past the last odometry (x $x, truth $truth)"
    else
        awk -v o="$over" 'BEGIN { exit !(o < 0.2) }' &&
            pass "SIGKILL: the robot's watchdog stopped it: $over m past the last odometry" ||
            fail "SIGKILL: the robot went $over m past the last odometry (x $x, truth $truth)"
    fi
done

# 6. --humble: ROS 2 Humble's layouts of the two types that differ (a Gid
# of 24 bytes in ros_discovery_info, Range without variance). A reader with
# Humble's types finds the node and reads every sonar; a reader with
# Jazzy's gets no Range from it (4 bytes short: rejected), so the layout on
# the wire is truly Humble's, not Jazzy's under another flag.
start_node sim:p2os --ns robot2 --humble
case "$second" in
*"ROS 2 Humble layout"*) pass "--humble: $second" ;;
*) fail "--humble: $second" ;;
esac
# (until it has the node and every sonar: 60 s only catch what never comes)
"$peer" nodes 60 --humble --ranges robot2 --until "node /robot2 botwire 10 " >"$tmp/humble" 2>"$tmp/humble.err"
grep -q '^node /robot2 botwire 10 ' "$tmp/humble" &&
    pass "a Humble reader of ros_discovery_info: $(grep '^node /robot2' "$tmp/humble")" ||
    fail "Humble ros_discovery_info: $(cat "$tmp/humble" "$tmp/humble.err")"
n=$(grep -c '^range [0-9]* robot2/range_[0-9]* ' "$tmp/humble")
[ "$n" = 16 ] && pass "a Humble reader gets Range from all 16 sonars, in frames robot2/range_N" ||
    fail "Humble Range: $n of 16 ($(cat "$tmp/humble"))"
# (for 3 s from when its readers are matched with the node's writers: 30
# of the node's sonar rounds, and a Humble reader had all 16 in fewer)
"$peer" nodes 3 --ranges robot2 --matched >"$tmp/jazzy" 2>"$tmp/jazzy.err"
n=$(grep -c '^range ' "$tmp/jazzy")
[ "$n" = 0 ] && pass "a Jazzy reader gets none of the Humble layout's Range" ||
    fail "a Jazzy reader read $n Humble Range messages: $(cat "$tmp/jazzy")"
kill -INT "$node"
wait "$node"
node=

finish "ROS 2 node"
