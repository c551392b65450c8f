#!/bin/sh
# Frames as Nav2's multi-robot bringup keeps them: `--tf namespaced` puts
# a robot's tree on rt/<ns>/tf with frames odom -> base_footprint (its
# odometry in the same frames), nothing of it on rt/tf; the default,
# `--tf prefixed`, one global tree on rt/tf with frames <ns>/odom ->
# <ns>/base_footprint, nothing on rt/<ns>/tf. Read by a ROS 2 peer
# (ros2_peer: the Cyclone DDS C API, its own IDL of the ROS 2 types) on a
# loopback-only DDS domain of this test's own.
# usage: tf.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
cleanup() { [ -n "$node" ] && kill "$node" 2>/dev/null; }

# look MODE: the node on sim:kobuki in namespace robot1 with --tf MODE;
# 50 transforms on the topic its tree should be on (a second at the
# Kobuki's 50 Hz; 30 s only catch a node that never sends them) and what
# came on the other meanwhile; then its odometry's frames.
look() {
    "$bw" ros2 sim:kobuki --ns robot1 --tf "$1" >"$tmp/node.out" 2>"$tmp/node.err" &
    node=$!
    case $1 in
    namespaced) "$peer" tf 50 rt/robot1/tf rt/tf >"$tmp/tf" ;;
    prefixed) "$peer" tf 50 rt/tf rt/robot1/tf >"$tmp/tf" ;;
    esac
    "$peer" watch 0.5 robot1 >"$tmp/watch"
    kill -INT "$node"
    wait "$node"
    node=
}

look namespaced
grep -q '^tf rt/robot1/tf 50 odom base_footprint$' "$tmp/tf" &&
    pass "--tf namespaced: rt/robot1/tf carries odom -> base_footprint" ||
    fail "--tf namespaced: $(cat "$tmp/tf" "$tmp/node.err")"
grep -q '^tf rt/tf 0 ' "$tmp/tf" && pass "--tf namespaced: nothing on rt/tf while 50 came" ||
    fail "--tf namespaced: on rt/tf: $(grep 'rt/tf ' "$tmp/tf")"
grep -q '^odom robot1 [0-9]* [0-9.]* odom base_footprint ' "$tmp/watch" &&
    pass "--tf namespaced: the odometry in frames odom -> base_footprint" ||
    fail "--tf namespaced: odometry $(grep '^odom' "$tmp/watch")"

look prefixed
grep -q '^tf rt/tf 50 robot1/odom robot1/base_footprint$' "$tmp/tf" &&
    pass "--tf prefixed: rt/tf carries robot1/odom -> robot1/base_footprint" ||
    fail "--tf prefixed: $(cat "$tmp/tf" "$tmp/node.err")"
grep -q '^tf rt/robot1/tf 0 ' "$tmp/tf" && pass "--tf prefixed: nothing on rt/robot1/tf" ||
    fail "--tf prefixed: on rt/robot1/tf: $(grep 'rt/robot1/tf ' "$tmp/tf")"
grep -q '^odom robot1 [0-9]* [0-9.]* robot1/odom robot1/base_footprint ' "$tmp/watch" &&
    pass "--tf prefixed: the odometry in frames robot1/odom -> robot1/base_footprint" ||
    fail "--tf prefixed: odometry $(grep '^odom' "$tmp/watch")"

"$bw" ros2 sim:kobuki --tf sideways >"$tmp/bad.out" 2>&1
status=$?
[ "$status" = 2 ] && grep -q "^botwire ros2: --tf sideways: prefixed or namespaced$" "$tmp/bad.out" &&
    pass "--tf sideways: exit 2, $(cat "$tmp/bad.out")" || fail "--tf sideways: exit $status, $(cat "$tmp/bad.out")"

finish "tf the Nav2 way"
