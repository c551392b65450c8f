#!/bin/sh
# A fleet across machines over DDS: three hosts as network namespaces this
# test makes itself (a bridge with multicast snooping off in a fourth, a
# veth link to each, addresses of 10.213.0.0/24 inside them; nothing leaves
# the machine), ROS 2's default discovery (SUBNET: multicast on the link).
# Each namespace is held by a process of this test's (unshare), not named
# under /run/netns: it goes when the test does, however it ends, and
# nothing is mounted (a chroot has no mount of its own to share).
# Host A serves robots 1-20 (`botwire ros2 --robots 1-20`), host B robots
# 21-40, host C runs the tests' peer. Checks: C's graph holds all 40 nodes
# (ros_discovery_info) and C hears odom from each; cmd_vel to robot 25
# moves robot 25 alone (the emulators' truth); B's link cut mid-drive:
# within the lease C's graph loses B's 20 nodes, A's 20 publish on without
# a gap over 100 ms, and robot 25 stops by its node's own supervision
# (cmd_vel timeout), as its emulator's truth says. The namespaces go
# whatever happens; a machine that does not allow them fails the test.
# usage: hosts.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

LEASE=10     # s: Cyclone DDS's default participant lease, ROS 2's too
TIMEOUT=0.6  # s: the node's --cmd-vel-timeout (its default)
V=0.3        # m/s: robot 25's drive
a= b= graphp= watchp= hold_s= hold_a= hold_b= hold_c=
cleanup() {
    for p in $a $b $graphp $watchp; do kill "$p" 2>/dev/null; done
    for p in $a $b $graphp $watchp; do wait "$p" 2>/dev/null; done
    exec 4>&- # the holders read to the end: the namespaces go with them
    for p in $hold_s $hold_a $hold_b $hold_c; do wait "$p" 2>/dev/null; done
}
trap 'exit 1' INT TERM HUP

# What --robots refuses, in one line and before any DDS.
expect_error "--robots 0" 2 "--robots 0: a number of robots (1 to 10000) or FIRST-LAST" \
    "$bw" ros2 --robots 0
expect_error "--robots backwards" 2 "--robots 21-20: a number of robots" "$bw" ros2 --robots 21-20
expect_error "--robots past the most" 2 "--robots 1-10001: a number of robots" \
    "$bw" ros2 --robots 1-10001
expect_error "--robots with a URL" 2 "--robots makes its robots: no URLs with it" \
    "$bw" ros2 --robots 3 sim:kobuki
expect_error "--wander alone" 2 "--wander goes with --robots" "$bw" ros2 sim:kobuki --wander
expect_error "--family and --world" 2 "--family or --world" \
    "$bw" ros2 --robots 2 --family p2os --world /nonexistent.world
expect_error "a world with too few robot lines" 2 "has 1 robot line: no robot 2" \
    sh -c 'printf "box 0 0 5 5\nrobot kobuki 1 1 0\n" >"$1/one.world" && "$2" ros2 --robots 1-2 --world "$1/one.world"' \
    sh "$tmp" "$bw"

# The holders: each in a network namespace of its own, reading a pipe only
# this test writes to, so that they end when it does, killed or not.
if ! why=$(unshare --net true 2>&1); then
    fail "this machine does not allow network namespaces (unshare --net: $why): the test needs root, or CAP_SYS_ADMIN and CAP_NET_ADMIN"
    exit 1
fi
mkfifo "$tmp/hold"
exec 4<>"$tmp/hold"
own=$(readlink /proc/self/ns/net)
for h in s a b c; do
    # (it says so from inside its namespace, once unshare has made it)
    unshare --net -- sh -c 'readlink /proc/self/ns/net; exec cat' <"$tmp/hold" >"$tmp/up.$h" 4>&- &
    eval "hold_$h=\$!"
done
for h in s a b c; do
    if ! wait_line "$tmp/up.$h" 'net:' 10 || [ "$(cat "$tmp/up.$h")" = "$own" ]; then
        fail "host $h's namespace never came (unshare --net: $(cat "$tmp/up.$h"))"
        exit 1
    fi
done
on() { # on HOST CMD...: CMD in that host's network namespace (it becomes CMD)
    on_host=$1
    shift
    eval "exec nsenter --net=/proc/\$hold_$on_host/ns/net -- \"\$@\" 4>&-"
}
net() { # net HOST CMD...: one setup step; a failure ends the test, saying which
    net_host=$1
    shift
    if ! why=$( (on "$net_host" "$@") 2>&1); then
        fail "setting up the hosts: $* on $net_host ($why)"
        exit 1
    fi
}
net s ip link add br0 type bridge mcast_snooping 0
net s ip link set br0 up
k=1
for h in a b c; do
    eval "pid=\$hold_$h"
    net s ip link add "v$h" type veth peer name eth0 netns "$pid"
    net s ip link set "v$h" master br0 up
    net "$h" ip addr add "10.213.0.$k/24" dev eth0
    net "$h" ip link set eth0 up
    net "$h" ip link set lo up
    k=$((k + 1))
done
pass "hosts A, B, C on one link (10.213.0.1-3), multicast flooded"

# ROS 2's own discovery, as on a robot's network: nothing of the loopback
# settings the other ROS 2 tests use.
export ROS_DOMAIN_ID=$(($$ % 200 + 1))
unset CYCLONEDDS_URI ROS_LOCALHOST_ONLY ROS_AUTOMATIC_DISCOVERY_RANGE ROS_STATIC_PEERS
# (each process started by `on` in a subshell that becomes it: $! is the
# process to signal; each bounded by --for, should the test be killed)

# C's graph, from before the fleet comes until B's nodes have gone.
(on c "$peer" graph 120 --until 40,20) >"$tmp/graph" 2>"$tmp/graph.err" &
graphp=$!
(on a "$bw" ros2 --robots 1-20 --for 200) >"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
(on b "$bw" ros2 --robots 21-40 --for 200) >"$tmp/b.out" 2>"$tmp/b.err" &
b=$!
if wait_line "$tmp/graph" ' 40$' 60; then
    pass "C's graph: 40 nodes $(awk '$3 == 40 { print $2 - first; exit } NR == 1 { first = $2 }' "$tmp/graph") s after C began watching"
else
    fail "C's graph never held 40 nodes: $(tail -n 3 "$tmp/graph" | tr '\n' ';') A: $(tail -n 2 "$tmp/a.err") B: $(tail -n 2 "$tmp/b.err")"
    exit 1
fi

# C hears all 40 and drives robot 25 without end (--fall-silent: no zero
# twist); once robot 25 is 0.1 m along, B's link is cut at the bridge.
robots=$(seq -f 'robot%g' 1 40 | tr '\n' ' ')
watch_s=$((LEASE + 15))
mkfifo "$tmp/watch.fifo"
(on c "$peer" watch "$watch_s" $robots --drive robot25 "$V" 600 --stamped 0 \
    --fall-silent --just-seconds) >"$tmp/watch.fifo" 2>"$tmp/watch.err" &
watchp=$!
exec 3<"$tmp/watch.fifo"
: >"$tmp/watch"
while IFS= read -r line <&3; do
    echo "$line" >>"$tmp/watch"
    case $line in moving*) break ;; esac
done
if ! grep -q '^moving' "$tmp/watch"; then
    fail "robot 25 never moved for C: $(cat "$tmp/watch" "$tmp/watch.err" | tail -n 5 | tr '\n' ';')"
    exit 1
fi
(on s ip link set vb down)
cut=$(date +%s.%N)
pass "B's link cut with robot 25 $(sed -n 's/^moving //p' "$tmp/watch") m along"
cat <&3 >>"$tmp/watch"
exec 3<&-
wait "$watchp"
watchp=

# C heard every robot (B's until the cut), and A's published on across it
# with no gap past 100 ms between two of a robot's stamps: past 100 ms only
# as long as the machine itself held some robot back before the cut (the
# run's own figure: a loaded machine's stalls are not the cut's).
heard=$(awk '$1 == "odom" && $3 > 0' "$tmp/watch" | wc -l)
[ "$heard" = 40 ] && pass "C heard odom from all 40 robots" ||
    fail "C heard $heard of 40: $(awk '$1 == "odom" && $3 == 0 { printf "%s ", $2 }' "$tmp/watch")"
set -- $(awk -v cut="$cut" '
    $1 == "gap" && substr($2, 6) + 0 <= 20 { n++; if ($4 - cut > end) end = $4 - cut }
    $1 == "late" && $4 <= cut && $4 - $3 > before { before = $4 - $3 }
    $1 == "late" && $4 > cut && substr($2, 6) + 0 <= 20 && $4 - $3 > after { after = $4 - $3; who = $2 }
    END { printf "%d %.3f %.3f %.2f %s", n, before, after, end, who ? who : "-" }' "$tmp/watch")
allowed=$(awk -v b="$2" 'BEGIN { printf "%.3f", (b > 0.1 ? b : 0.1) }')
[ "$1" = 20 ] && awk -v a="$3" -v ok="$allowed" -v end="$4" -v lease="$LEASE"     'BEGIN { exit !(a <= ok && end >= lease) }' &&
    pass "A's 20 published on for ${4} s after the cut, their longest gap over 50 ms ${3} s (allowed ${allowed} s; before the cut ${2} s; 0: none)" ||
    fail "A's robots after the cut: $1 watched for ${4} s (want ${LEASE}), longest gap ${3} s (${5}), allowed ${allowed} s"

# Within the lease, C's graph lost B's 20 (the lease counts from B's last
# word, before the cut).
# (the watcher ends once its count has been 40, then 20: 120 s at most)
wait "$graphp"
graphp=
left=$(awk -v cut="$cut" '$1 == "graph" && $2 > cut && $3 == 20 { printf "%.2f", $2 - cut; exit }' "$tmp/graph")
if [ -n "$left" ]; then
    awk -v l="$left" -v lease="$LEASE" 'BEGIN { exit !(l <= lease) }' &&
        pass "C's graph: B's 20 nodes left ${left} s after the cut (lease ${LEASE} s)" ||
        fail "C's graph lost B's nodes ${left} s after the cut, past the ${LEASE} s lease"
else
    fail "C's graph never lost B's nodes: $(awk -v cut="$cut" '$2 > cut' "$tmp/graph" | tr '\n' ';')"
fi
grep -q '^nodes' "$tmp/graph" && [ "$(sed -n 's/^nodes //p' "$tmp/graph" | wc -w)" = 40 ] &&
    pass "C's graph named robot1 ... robot40's nodes" ||
    fail "C's graph named: $(sed -n 's/^nodes //p' "$tmp/graph")"

# The truth: A's robots never moved; of B's, robot 25 alone, and it stopped
# by its own supervision: past where C last saw it, no farther than the
# drive goes from that stamp to the cut plus the timeout, its braking (the
# emulated Kobuki's 1 m/s^2) and a second for B's node's cycles and the
# Kobuki's path to its wheels on a loaded machine. Unsupervised it would
# have driven on until it was stopped, past the lease: 3 m more.
kill -INT "$a" "$b"
wait "$a"
wait "$b"
a= b=
grep -q '^botwire ros2: 0 of 20 robots moved' "$tmp/a.err" &&
    pass "none of A's 20 moved (their emulators' truth)" ||
    fail "A's robots: $(grep 'moved\|robot at' "$tmp/a.err" | tr '\n' ';')"
if grep -q '^botwire ros2: 1 of 20 robots moved' "$tmp/b.err" && grep -q '^botwire ros2: /robot25: robot at' "$tmp/b.err"; then
    pass "of B's 20, robot 25 alone moved"
else
    fail "B's robots: $(grep 'moved\|robot at' "$tmp/b.err" | tr '\n' ';')"
fi
went=$(sed -n 's/^botwire ros2: \/robot25: robot at (\([-0-9.]*\), .*from (\([-0-9.]*\), .*/\1 \2/p' "$tmp/b.err" |
    awk '{ printf "%.3f", $1 - $2 }')
set -- $(awk '$1 == "odom" && $2 == "robot25" { print $7 }' "$tmp/watch") \
    $(awk '$1 == "gap" && $2 == "robot25" { print $4 }' "$tmp/watch")
seen=${1:-0} last=${2:-0}
bound=$(awk -v seen="$seen" -v last="$last" -v cut="$cut" -v v="$V" -v t="$TIMEOUT" \
    'BEGIN { printf "%.3f", seen + v * (cut - last + t + 1) + v * v / 2 }')
awk -v w="${went:-99}" -v b="$bound" -v s="$seen" 'BEGIN { exit !(w >= s && w <= b) }' &&
    pass "robot 25 stopped by its node's supervision: it went ${went} m (C last saw ${seen} m; at most ${bound} m)" ||
    fail "robot 25 went ${went:-?} m by its emulator's truth, C last saw ${seen} m: stopped within ${TIMEOUT} s of the cut it would be at most ${bound} m"

finish "a fleet across three hosts"
