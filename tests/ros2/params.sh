#!/bin/sh
# The node as a whole rclcpp node is seen by the ros2 tools: its parameter
# services called as rmw_cyclonedds's client calls them (rq/rr topics, its
# request header, a service available once its request reader and reply
# writer are matched with one serviceid=), /parameter_events telling of a
# change, /rosout carrying the node's lines to a reader that joins late.
# `botwire ros2` on a real pty against a Kobuki emulator in another
# process, a ROS 2 peer (ros2_peer: the Cyclone DDS C API, its own IDL of
# the ROS 2 types) on a loopback-only DDS domain of this test's own.
# usage: params.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node= events=
cleanup() {
    [ -n "$events" ] && kill "$events" 2>/dev/null
    [ -n "$node" ] && kill "$node" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}

start=$(start_of kobuki)
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
"$bw" ros2 "kobuki:$tmp/kobuki" --ns robot1 >"$tmp/node.out" 2>"$tmp/node.err" &
node=$!
# The node says on stderr what it says on /rosout: once its link is online
# (60 s only catch a node that never gets there).
wait_line "$tmp/node.err" "/robot1: online: kobuki:" 60 && pass "node online: $(cat "$tmp/node.err")" ||
    { fail "the node never said it is online: $(cat "$tmp/node.out" "$tmp/node.err")"; exit 1; }

# 1. /rosout, read by a reader that joined after the line was written:
# transient local, as rcl's /rosout (30 s only catch a node that keeps it
# from a late reader).
"$peer" rosout 30 --until "online" >"$tmp/rosout" 2>&1
grep -q "^log 20 robot1.botwire online: kobuki:$tmp/kobuki$" "$tmp/rosout" &&
    pass "/rosout to a late reader: $(grep online "$tmp/rosout")" ||
    fail "/rosout: $(cat "$tmp/rosout")"

# 2. The parameter services: list, get, set.
"$peer" param /robot1/botwire list >"$tmp/list"
for p in use_sim_time cmd_vel_timeout cmd_vel_type diagnostic_period publish_tf rate odom_frame base_frame url family distro; do
    grep -q "^names.* $p\( \|$\)" "$tmp/list" || fail "list_parameters has no $p: $(cat "$tmp/list")"
done
pass "list_parameters: $(cat "$tmp/list")"
"$peer" param /robot1/botwire get cmd_vel_timeout family url cmd_vel_type publish_tf >"$tmp/get"
[ "$(cat "$tmp/get")" = "value cmd_vel_timeout double 0.6
value family string kobuki
value url string kobuki:$tmp/kobuki
value cmd_vel_type string stamped
value publish_tf bool true" ] && pass "get_parameters: $(tr '\n' ';' <"$tmp/get")" ||
    fail "get_parameters: $(cat "$tmp/get")"
"$peer" param /robot1/botwire get cmd_vel_timeout no_such_thing >"$tmp/get"
[ "$(cat "$tmp/get")" = "values none" ] && pass "get_parameters of an undeclared one: none, as rclcpp" ||
    fail "get_parameters of an undeclared one: $(cat "$tmp/get")"

# The change on /parameter_events: a listener matched before the set.
rm -f "$tmp/events.fifo"
mkfifo "$tmp/events.fifo"
"$peer" events 30 --until cmd_vel_timeout >"$tmp/events.fifo" &
events=$!
exec 4<"$tmp/events.fifo"
read -r listening <&4
cat <&4 >"$tmp/events" &
exec 4<&-
[ "$listening" = listening ] || fail "the events listener: $listening"
"$peer" param /robot1/botwire set cmd_vel_timeout double 0.3 >"$tmp/set"
[ "$(cat "$tmp/set")" = "set cmd_vel_timeout ok" ] && pass "set_parameters cmd_vel_timeout 0.3: ok" ||
    fail "set cmd_vel_timeout: $(cat "$tmp/set")"
wait "$events"
events=
grep -q "^event /robot1/botwire changed value cmd_vel_timeout double 0.3$" "$tmp/events" &&
    pass "/parameter_events: $(cat "$tmp/events")" || fail "/parameter_events: $(cat "$tmp/events")"

# Refusals, with their reasons (and what the node said of them).
while read -r name type value why; do
    "$peer" param /robot1/botwire set "$name" "$type" "$value" >"$tmp/set"
    case $(cat "$tmp/set") in
    "set $name refused: $why"*) pass "set $name $value refused: $(cat "$tmp/set")" ;;
    *) fail "set $name $value: $(cat "$tmp/set")" ;;
    esac
done <<'EOF'
url string elsewhere url is read-only
cmd_vel_timeout string soon cmd_vel_timeout is a double; a string cannot set it
cmd_vel_timeout double 100 cmd_vel_timeout must be from 0.05 to 60
use_sim_time bool true use_sim_time: false only
cmd_vel_type string pose cmd_vel_type is twist or stamped
no_such_thing double 1 parameter 'no_such_thing' is not declared by /robot1/botwire
EOF
"$peer" param /robot1/botwire get cmd_vel_timeout >"$tmp/get"
[ "$(cat "$tmp/get")" = "value cmd_vel_timeout double 0.3" ] && pass "a refused set changed nothing" ||
    fail "after the refusals: $(cat "$tmp/get")"

# 3. The timeout set to 0.3 s holds: a teleop that dies mid-drive (no zero
# command) has the robot braking 0.3 s after its last command. The Kobuki
# slows down at 1 m/s^2 (half speed 0.1 s later, at rest 0.2 s later);
# allowed on top: 0.15 s for node cycles and the odometry to show it, and
# the time the machine held the node's cycles back (its odometry's stamps
# say how much). The 0.6 s of the default fails it. (The watch ends once
# the robot is at rest: its 30 s only catch one that never is.)
"$peer" watch 30 robot1 --drive robot1 0.2 1 --stamped 0 --fall-silent >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
set -- $(grep '^stop robot1 ' "$tmp/watch")
slowing=${3:--1} after=${4:--1} late=${5:-0}
awk -v s="$slowing" -v l="$late" 'BEGIN { exit !(s > 0.3 && s <= 0.3 + 0.1 + 0.15 + l) }' &&
    pass "cmd_vel_timeout 0.3: at half speed $slowing s after the last command (the node's cycles $late s late)" ||
    fail "cmd_vel_timeout 0.3: half speed after $slowing s ($(cat "$tmp/watch"))"
awk -v a="$after" -v l="$late" 'BEGIN { exit !(a > 0.3 && a <= 0.3 + 0.2 + 0.15 + l) }' &&
    pass "... and at rest $after s after it" || fail "at rest after $after s ($(cat "$tmp/watch"))"

# 4. cmd_vel_type set to twist: the node takes Twist from then on.
"$peer" param /robot1/botwire set cmd_vel_type string twist >"$tmp/set"
[ "$(cat "$tmp/set")" = "set cmd_vel_type ok" ] && pass "set cmd_vel_type twist: ok" ||
    fail "set cmd_vel_type: $(cat "$tmp/set")"
x0=$(sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch")
"$peer" watch 1 robot1 --drive robot1 0.2 1 >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
c=$(sed -n 's/^cruise robot1 //p' "$tmp/watch")
x=$(sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch")
awk -v c="${c:--1}" 'BEGIN { d = c - 0.2; exit !(d <= 0.006 && -d <= 0.006) }' &&
    pass "a Twist writer drives it now: at $c m/s by its odometry, x from $x0 to $x" ||
    fail "after cmd_vel_type twist: $(cat "$tmp/watch")"

# 5. All of it in the node list: 10 readers (cmd_vel, reset_odometry, dock,
# undock, six requests) and 19 writers (a Kobuki's nine topics, imu, joint_states,
# /rosout, /parameter_events, six replies).
"$peer" nodes 60 --until "node /robot1 botwire 10 19" >"$tmp/nodes" 2>&1
grep -q '^node /robot1 botwire 10 19$' "$tmp/nodes" &&
    pass "ros_discovery_info: 10 readers, 19 writers" || fail "ros_discovery_info: $(cat "$tmp/nodes")"

kill -INT "$node"
wait "$node"
node=
stop_emulator
odometry_vs_truth "${x:-0}" "$start" "$truth" 0.02 &&
    pass "the robot truly from ($start) to ($truth), the odometry $x m" ||
    fail "odometry $x m, the robot truly from ($start) to ($truth)"

finish "parameters, /parameter_events and /rosout"
