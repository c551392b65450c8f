#!/bin/sh
# Looking at the ROS 2 graph without ROS 2: `botwire ros2 list` shows a
# running node's name, topics with their types and QoS, and services;
# `botwire ros2 echo TOPIC` prints its messages as `ros2 topic echo` does,
# the values those a ROS 2 peer (ros2_peer: the Cyclone DDS C API, its own
# IDL of the ROS 2 types) reads. On a loopback-only DDS domain of the
# test's own, the node on sim:kobuki.
# usage: look.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
echoer=
cleanup() {
    [ -n "$echoer" ] && kill "$echoer" 2>/dev/null
    [ -n "$node" ] && kill "$node" 2>/dev/null
}

"$bw" ros2 sim:kobuki --ns robot1 >"$tmp/node.out" 2>"$tmp/node.err" &
node=$!
# The robot driven 0.3 m, then at rest: the peer's last odometry is what
# echo must print (30 s only catch a node that never answers).
"$peer" watch 1 robot1 --drive robot1 0.2 1.5 --stamped 0 >"$tmp/watch" 2>"$tmp/peer.err" ||
    fail "peer: no odometry ($(cat "$tmp/watch" "$tmp/peer.err"))"
px=$(sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/watch")

# list: 2 s of discovery (the node is up: the peer heard it).
"$bw" ros2 list >"$tmp/list" 2>"$tmp/list.err"
status=$?
[ "$status" = 0 ] && grep -q '^  /robot1/botwire$' "$tmp/list" && sed -n '1p' "$tmp/list" | grep -q '^nodes:$' &&
    pass "ros2 list: the node /robot1/botwire" || fail "ros2 list: exit $status $(cat "$tmp/list" "$tmp/list.err")"
while read -r want; do
    grep -qF "$want" "$tmp/list" && pass "ros2 list: $want" || fail "ros2 list lacks: $want ($(cat "$tmp/list"))"
done <<'W'
  /robot1/odom [nav_msgs/msg/Odometry] 1 publisher, 0 subscribers; reliable, volatile, keep last 10
  /robot1/cmd_vel [geometry_msgs/msg/TwistStamped] 0 publishers, 1 subscriber
  /tf_static [tf2_msgs/msg/TFMessage] 1 publisher, 0 subscribers; reliable, transient local, keep last 1
  /rosout [rcl_interfaces/msg/Log] 1 publisher, 0 subscribers; reliable, transient local, keep last 1000
  /robot1/botwire/get_parameters [rcl_interfaces/srv/GetParameters]
W

# echo: one odometry message as `ros2 topic echo` prints it; the robot at
# rest where the peer's odometry left it.
"$bw" ros2 echo /robot1/odom --count 1 >"$tmp/echo" 2>"$tmp/echo.err"
status=$?
ex=$(awk '/^    position:$/ { p = 1; next } p && /^      x: / { print $2; exit }' "$tmp/echo")
[ "$status" = 0 ] && grep -q '^  frame_id: robot1/odom$' "$tmp/echo" &&
    grep -q '^child_frame_id: robot1/base_footprint$' "$tmp/echo" && [ "$(tail -n 1 "$tmp/echo")" = "---" ] &&
    awk -v a="${ex:-x}" -v b="${px:-y}" 'BEGIN { d = a - b; exit !(a != "x" && b > 0.2 && d * d < 1e-8) }' &&
    pass "ros2 echo /robot1/odom: frames robot1/odom -> robot1/base_footprint, position.x $ex (the peer read $px)" ||
    fail "ros2 echo /robot1/odom: exit $status, x ${ex:-?} (the peer read ${px:-?}): $(head -n 12 "$tmp/echo") $(cat "$tmp/echo.err")"
grep -q '^  covariance:$' "$tmp/echo" && grep -q '^  - 0.001$' "$tmp/echo" &&
    pass "... its covariance as a YAML list, as ros2 topic echo prints it" ||
    fail "covariance: $(grep -A2 covariance "$tmp/echo" | head -n 3)"
# /rosout, transient local: the node's online line, though it came before.
"$bw" ros2 echo /rosout --count 1 >"$tmp/rosout" 2>&1
grep -q '^msg: online: sim:kobuki$' "$tmp/rosout" && grep -q '^name: robot1.botwire$' "$tmp/rosout" &&
    grep -q '^level: 20$' "$tmp/rosout" && pass "ros2 echo /rosout: the node's online line, level 20" ||
    fail "ros2 echo /rosout: $(cat "$tmp/rosout")"
# /parameter_events, volatile: a set made while echo reads. Echo cannot say
# when its reader has matched, so the peer sets the timeout again until
# echo has printed an event (each set is one; 30 s only catch an echo that
# never prints).
"$bw" ros2 echo /parameter_events --count 1 --for 30 >"$tmp/events" 2>&1 &
echoer=$!
sets=0
while kill -0 "$echoer" 2>/dev/null && [ "$sets" -lt 100 ]; do
    sets=$((sets + 1))
    "$peer" param /robot1/botwire set cmd_vel_timeout double 0.5 >/dev/null 2>&1 || break
done
wait "$echoer"
status=$?
echoer=
[ "$status" = 0 ] && grep -q '^node: /robot1/botwire$' "$tmp/events" &&
    grep -q '^changed_parameters:$' "$tmp/events" && grep -q '^- name: cmd_vel_timeout$' "$tmp/events" &&
    grep -q '^    type: 3$' "$tmp/events" && grep -q '^    double_value: 0.5$' "$tmp/events" &&
    grep -q '^    string_array_value: \[\]$' "$tmp/events" &&
    pass "ros2 echo /parameter_events: cmd_vel_timeout changed to 0.5, a double (after $sets sets)" ||
    fail "ros2 echo /parameter_events: exit $status after $sets sets: $(cat "$tmp/events")"
expect_error "echo of a topic nobody publishes" 1 "/nobody: no publisher seen in 1 s" \
    "$bw" ros2 echo /nobody --for 1
expect_error "echo without a topic" 2 "which topic?" "$bw" ros2 echo
expect_error "list with an argument" 2 "no arguments but options" "$bw" ros2 list /robot1
kill -INT "$node"
wait "$node"
node=

finish "ros2 list and echo"
