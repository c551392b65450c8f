#!/bin/sh
# A fleet past one DDS participant: `botwire ros2 --robots 260` puts robots
# 1-250 on one participant and 251-260 on a second (Cyclone DDS counts a
# participant's entities in 14 bits; docs/ros2.md). Checks, from the
# peer: the graph holds all 260 nodes, each participant announcing its own
# on its ros_discovery_info; odometry from every robot; cmd_vel to robot
# 260, the second participant's, moves robot 260 alone, by the emulators'
# truth. Stepped on two threads (--threads 2, whatever the machine's
# cores): robots 131-260 on the second, so robot 260's command is taken
# there, and counted there.
# usage: parts.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node= graphp=
cleanup() {
    for p in $node $graphp; do kill "$p" 2>/dev/null; done
    for p in $node $graphp; do wait "$p" 2>/dev/null; done
}
N=260

# The graph from before the fleet comes. Odometry and tf at 5 Hz: what is
# checked is that each robot's reaches the peer, not the machine's speed.
"$peer" graph 120 --until "$N" >"$tmp/graph" 2>"$tmp/graph.err" &
graphp=$!
"$bw" ros2 --robots "$N" --threads 2 --odom-rate 5 --tf-rate 5 --for 200 >"$tmp/node.out" 2>"$tmp/node.err" &
node=$!
if wait_line "$tmp/graph" " $N\$" 90; then
    pass "the graph: $N nodes"
else
    fail "the graph never held $N nodes: $(tail -n 2 "$tmp/graph" | tr '\n' ';') node: $(tail -n 2 "$tmp/node.err")"
    exit 1
fi
wait "$graphp"
graphp=
set -- $(sed -n 's/^nodes //p' "$tmp/graph" | tr ' ' '\n' | awk -v n="$N" '
    /^\/robot[0-9]+\/botwire$/ { k = substr($0, 7) + 0; if (k >= 1 && k <= n) all++; if (k > 250 && k <= n) second++ }
    END { print all + 0, second + 0 }')
[ "$1" = "$N" ] && [ "$2" = $((N - 250)) ] &&
    pass "the graph named /robot1/botwire ... /robot$N/botwire, the second participant's $2 among them" ||
    fail "the graph named $1 of the $N nodes, $2 of robots 251-$N: $(sed -n 's/^nodes //p' "$tmp/graph" | cut -c 1-300)"

# Every robot's odometry and tf reach the peer (it exits 0 only then): it
# takes for 2 s and on until each robot's have come, however late a loaded
# machine sends them.
if "$peer" sub 2 1 "$N" --until-all >"$tmp/sub" 2>"$tmp/sub.err"; then
    pass "odometry from all $N robots: $(tail -n 1 "$tmp/sub" | cut -c 1-200)"
else
    fail "odometry: $(tail -n 1 "$tmp/sub") $(cat "$tmp/sub.err")"
fi
grep -q "\"robots_with_tf\":$N," "$tmp/sub" && pass "tf from all $N robots" ||
    fail "tf: $(tail -n 1 "$tmp/sub")"
# A participant's robots' transforms go out together, one /tf message a
# step, not one a robot (docs/ros2.md): more than one in each on average.
per=$(sed -n 's/.*"transforms_per_tf_message":\([0-9.]*\).*/\1/p' "$tmp/sub")
[ -n "$per" ] && awk -v p="$per" 'BEGIN { exit !(p > 1.5) }' &&
    pass "rt/tf: $per transforms a message" ||
    fail "rt/tf: ${per:-no figure} transforms a message, wanted several robots' in each: $(tail -n 1 "$tmp/sub")"

# cmd_vel to robot 260 (its reader on the second participant).
"$peer" watch 3 robot260 --drive robot260 0.2 1 --stamped 0 >"$tmp/watch" 2>"$tmp/watch.err" ||
    fail "peer: $(cat "$tmp/watch" "$tmp/watch.err")"
# Then robot 259, 1.5 m behind it in the same row, drives into it: the
# threads' robots see each other where they were when the step began
# (the fleet synced after each step), so it stops against robot 260 where
# 260 now is, not where 260 started (0.2 m short). 8 s at 0.3 m/s go
# 2.4 m where about 1.35 m reach robot 260: a loaded machine that holds
# the node back past the 0.6 s command timeout now and then still gets
# it there (the rest it spends pushing, which the world does not allow).
"$peer" watch 9 robot259 --drive robot259 0.3 8 --stamped 0 >"$tmp/watch2" 2>"$tmp/watch2.err" ||
    fail "peer: $(cat "$tmp/watch2" "$tmp/watch2.err")"
kill -INT "$node"
wait "$node"
node=
grep -q "^botwire ros2: /robot$N: robot at " "$tmp/node.err" &&
    grep -q "^botwire ros2: /robot$((N - 1)): robot at " "$tmp/node.err" &&
    grep -q "^botwire ros2: 2 of $N robots moved (the emulators' truth)" "$tmp/node.err" &&
    pass "robots $((N - 1)) and $N alone moved: $(grep "^botwire ros2: /robot$N: robot at " "$tmp/node.err")" ||
    fail "who moved: $(grep -e 'robot at' -e 'robots moved' "$tmp/node.err" | head -n 5 | tr '\n' ';')"
# Kobukis of radius 0.177 m: touching, their centres 0.354 m apart (the
# contact margin and a step's travel at 0.3 m/s, 6 mm, beyond).
x1=$(sed -n "s/^botwire ros2: \/robot$((N - 1)): robot at (\([-0-9.]*\),.*/\1/p" "$tmp/node.err")
x2=$(sed -n "s/^botwire ros2: \/robot$N: robot at (\([-0-9.]*\),.*/\1/p" "$tmp/node.err")
[ -n "$x1" ] && [ -n "$x2" ] &&
    awk -v a="$x1" -v b="$x2" 'BEGIN { g = b - a; exit !(g > 0.35 && g < 0.37) }' &&
    pass "robot $((N - 1)) stopped against robot $N: centres $(awk -v a="$x1" -v b="$x2" 'BEGIN { printf "%.3f", b - a }') m apart" ||
    fail "robot $((N - 1)) at x ${x1:-?}, robot $N at x ${x2:-?}: wanted them touching (0.354 m apart)"
# The closing line adds up what each robot took, whichever thread it was
# stepped on: the one cmd_vel stream came to robot 260.
taken=$(sed -n 's/.*; \([0-9]*\) cmd_vel taken,.*/\1/p' "$tmp/node.err")
[ -n "$taken" ] && [ "$taken" -gt 0 ] &&
    pass "the node's count: $taken cmd_vel taken" ||
    fail "the node's count of cmd_vel: ${taken:-no line}: $(grep 'messages published' "$tmp/node.err")"

finish "a fleet on two participants"
