#!/bin/sh
# cmd_vel as the ROS 2 stack sends it: geometry_msgs/msg/TwistStamped from
# Kilted on (Nav2's enable_stamped_cmd_vel), Twist before. `botwire ros2`
# on a real pty against a Kobuki emulator in another process, driven by a
# ROS 2 peer (ros2_peer: the Cyclone DDS C API, its own IDL of the ROS 2
# types) on a loopback-only DDS domain of this test's own:
#  1. the default is Lyrical's wire with TwistStamped;
#  2. --distro kilted: TwistStamped at 10 Hz drives the robot (a stamp of
#     now, then a zero stamp, which means now), the emulator's truth where
#     the odometry says; a Twist writer is told of in one line naming
#     --cmd-vel twist and drives nothing; stamps 1 s old are refused and
#     counted (the timeout runs from the stamp, as diff_drive_controller);
#  3. --distro jazzy: the reverse.
# usage: cmd_vel.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

. "$(dirname "$0")/ros2lib.sh"
node=
cleanup() {
    [ -n "$node" ] && kill "$node" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}

# stop_node: SIGINT, the node's exit status in $status; its last line
# (what it took and refused) in $said.
stop_node() {
    kill -INT "$node"
    wait "$node"
    status=$?
    node=
    said=$(tail -n 1 "$tmp/node.err")
}
# drive OUT ARGS...: the peer drives robot1 0.2 m/s for 2 s of its clock,
# as ARGS say, and watches its odometry until it is at rest after the zero
# command (its 1 s is the least it watches; past it, it waits for the rest
# 30 s at most, which only catch a node that never answers).
drive() {
    out=$1
    shift
    "$peer" watch 1 robot1 --drive robot1 0.2 2 "$@" >"$tmp/$out" 2>"$tmp/peer.err" ||
        fail "peer: no odometry ($(cat "$tmp/$out" "$tmp/peer.err"))"
}
# x_of OUT: the odometry's x at the watch's end; cruise_of OUT: the speed
# the robot drove at by its odometry (the upper quartile of the speeds it
# moved at; -1: it never moved); drove_of OUT: how long the peer sent.
x_of() { sed -n 's/^odom robot1 [0-9]* [0-9.]* [^ ]* [^ ]* \([-0-9.]*\) .*/\1/p' "$tmp/$1"; }
cruise_of() { sed -n 's/^cruise robot1 //p' "$tmp/$1"; }
drove_of() { sed -n 's/^drove //p' "$tmp/$1"; }
# late_of OUT: how much later than usual the node's cycles ran from the
# zero command to the robot at rest (the peer's zero_to_rest).
late_of() { sed -n 's/^zero_to_rest robot1 [-0-9.]* \([0-9.]*\)$/\1/p' "$tmp/$1"; }
# drove_at OUT WHAT: it drove at 0.2 m/s by its odometry, within 3 % (a
# tick more or less in a 20 ms feedback period is 2 %, and the quartile of
# a hundred of them well inside that); and no farther than 0.2 m/s over
# the time the peer sent, a period of its commands more (the last one
# holds until the zero comes), the time the node's cycles ran late before
# the robot was at rest (a machine that holds the node back leaves the
# robot on its last command until the node takes the zero, as a stalled
# host does a real one: 0.16 m past the drive seen under load) and the
# 2 cm the Kobuki's ramp down takes, from X0 (the odometry before).
drove_at() {
    c=$(cruise_of "$1") x=$(x_of "$1") t=$(drove_of "$1") l=$(late_of "$1")
    awk -v c="${c:--1}" -v x="${x:-0}" -v x0="$3" -v t="${t:-0}" -v l="${l:-0}" 'BEGIN {
            d = c - 0.2; exit !(d <= 0.006 && -d <= 0.006 && x - x0 > 0 && x - x0 <= 0.2 * (t + 0.1 + l) + 0.03) }' &&
        pass "$2: at $c m/s by its odometry, $(awk -v x="$x" -v x0="$3" 'BEGIN { printf "%.3f", x - x0 }') m in the peer's $t s$(awk -v l="${l:-0}" 'BEGIN { if (l >= 0.1) printf " (the node %.3f s late before the robot was at rest)", l }')" ||
        fail "$2: at ${c:-?} m/s by its odometry, x from $3 to ${x:-?} in the peer's ${t:-?} s ($(cat "$tmp/$1"))"
}
# still OUT WHAT X0: the robot never moved by its odometry (no nonzero
# speed stamped once the peer's commands began: one of the drive before,
# sent again to the peer as it joined, is the robot's past, said apart)
# and is where it was.
still() {
    c=$(cruise_of "$1") x=$(x_of "$1")
    e=$(sed -n 's/^earlier robot1 //p' "$tmp/$1")
    awk -v c="${c:-0}" -v x="${x:-9}" -v x0="$3" 'BEGIN { d = x - x0; exit !(c == -1 && d < 0.001 && -d < 0.001) }' &&
        pass "$2: the robot still (odometry x $x${e:+; $e moving samples stamped before the commands, of the drive before})" ||
        fail "$2: the robot moved: cruise ${c:-?}, x from $3 to ${x:-?} ($(cat "$tmp/$1"))"
}

# 1. The default: the newest ROS 2, TwistStamped.
start_node sim:kobuki --ns robot0
case $second in
*"ROS 2 Lyrical layout, cmd_vel geometry_msgs/msg/TwistStamped") pass "the default: $second" ;;
*) fail "the default is not Lyrical with TwistStamped: $second" ;;
esac
stop_node

# 2. Kilted.
start=$(start_of kobuki)
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
start_node "kobuki:$tmp/kobuki" --ns robot1 --distro kilted
case $second in
*"Kilted layout, cmd_vel geometry_msgs/msg/TwistStamped") ;;
*) fail "--distro kilted: $second" ;;
esac
drive stamped --stamped 0 --hz 10
drove_at stamped "Kilted: TwistStamped at 10 Hz, stamped now" 0
x1=$(x_of stamped)
drive zero --stamped zero --hz 10
drove_at zero "Kilted: TwistStamped with a zero stamp (now)" "${x1:-0}"
x2=$(x_of zero)
# Nothing said of commands stamped now, unless one came to the node too
# late: a loaded machine that held the node back longer than the timeout
# leaves it queued commands that are old by then, which it rightly refuses.
# Its own odometry shows such a hold-up: a gap between two of its stamps
# at least as long as the command's age less the timeout and a period of
# the peer's commands (0.1 s).
said_cmd=$(grep "cmd_vel" "$tmp/node.err")
if [ -n "$said_cmd" ]; then
    age=$(echo "$said_cmd" | sed -n 's/.*a cmd_vel stamped \([0-9.]*\) s ago refused.*/\1/p')
    held=$(awk '$1 == "gap" && $3 > g { g = $3 } END { printf "%.3f", g }' "$tmp/stamped" "$tmp/zero")
    if [ "$(echo "$said_cmd" | wc -l)" = 1 ] && [ -n "$age" ] &&
        awk -v a="$age" -v g="$held" 'BEGIN { exit !(a - 0.6 - 0.1 <= g) }'; then
        pass "a command stamped now came ${age} s late, refused: the node's own odometry stalled ${held} s then (the machine's)"
    else
        fail "the node said something of stamped commands it took (its odometry's longest gap ${held} s): $said_cmd"
    fi
fi

# said_since N: what the node said after its first N lines, the link's own
# lines aside (a machine that holds the emulator or the node back past the
# link's timeout makes it say offline and online again: no word about the
# writers these checks are about).
said_since() {
    tail -n +$(($1 + 1)) "$tmp/node.err" | grep -v ': offline: nothing heard from \|: online: '
}

# A Twist writer is never matched; the node says so, once, naming the
# option, while the writer is still sending (its 2 s of commands start
# 0.5 s after its odometry came).
lines=$(wc -l <"$tmp/node.err")
drive twist --unmatched 0.5
still twist "Kilted: a Twist writer" "${x2:-0}"
grep -q '^matched 0$' "$tmp/twist" && pass "Kilted: the Twist writer matched no reader" ||
    fail "Kilted: the Twist writer matched: $(cat "$tmp/twist")"
told=$(said_since "$lines")
case $told in
"botwire ros2: /robot1: a writer of geometry_msgs/msg/Twist on /robot1/cmd_vel, where this node takes geometry_msgs/msg/TwistStamped: none of its commands are taken (--cmd-vel twist or cmd_vel_type twist takes them)")
    pass "Kilted: the node told of the Twist writer in one line, by the end of its 2 s of commands: $told" ;;
*) fail "Kilted: what the node said of a Twist writer: $told" ;;
esac

# Stamps 1 s old: older than the 0.6 s timeout, refused and counted (as
# many as the peer says it sent: about 20 at 10 Hz for 2 s and the zero,
# fewer when its loop ran late), said once. The age the node says is the
# first command's: at least the 1 s the peer stamped it back (one clock,
# this machine's; 5 ms for the two decimals), and at most that and the
# time the peer ran, since the node said it before the peer ended (a
# machine that delivers late makes it older: 1.12 s seen in a sanitizer
# build; a wrong clock or unit makes it far older or younger).
lines=$(wc -l <"$tmp/node.err")
began=$(date +%s.%N)
drive old --stamped 1 --hz 10
ended=$(date +%s.%N)
still old "Kilted: TwistStamped stamped 1 s ago" "${x2:-0}"
told=$(said_since "$lines")
age=$(echo "$told" | sed -n 's/^botwire ros2: \/robot1: a cmd_vel stamped \([0-9][0-9.]*\) s ago refused (older than the 0.60 s timeout; is the sender.s clock this one.s?)$/\1/p')
ran=$(awk -v t0="$began" -v t1="$ended" 'BEGIN { printf "%.2f", t1 - t0 }')
if [ -n "$said_cmd" ]; then
    # The node said its one line of stale commands already (a late one,
    # above): nothing more.
    [ -z "$told" ] && pass "Kilted: the node had said its one line of stale commands (a late one, above)" ||
        fail "Kilted: what the node said of stale commands: $said_cmd $told"
elif [ -n "$age" ] && [ "$(echo "$told" | wc -l)" = 1 ] && awk -v a="$age" -v t="$ran" 'BEGIN { exit !(a >= 0.995 && a <= 1.005 + t) }'; then
    pass "Kilted: the first stale command said, $age s old (the peer ran $ran s): $told"
else
    fail "Kilted: what the node said of stale commands (the peer stamped them 1 s back and ran $ran s): $told"
fi
stop_node
# The count: the stale commands the peer sent, and those stamped now that
# came too late (above), at most the peer's 10 Hz over the hold-up the
# node's odometry showed, and one more.
n=$(echo "$said" | sed -n 's/.* \([0-9]*\) stamped too long ago and refused.*/\1/p')
sent=$(sed -n 's/^sent //p' "$tmp/old")
late=0
[ -n "$said_cmd" ] && late=$(awk -v g="$held" 'BEGIN { printf "%d", g * 10 + 1 }')
[ "$status" = 130 ] && [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "${n:-0}" -ge "$sent" ] &&
    [ "${n:-0}" -le $((sent + late)) ] &&
    echo "$said" | grep -q "; 1 cmd_vel writers of the other type" &&
    pass "Kilted: $n stale commands refused, counted, of the $sent the peer sent$([ "$late" -gt 0 ] && echo " and at most $late that came late"): $said" ||
    fail "Kilted: exit $status, ${sent:-no count of} commands sent (and at most $late that came late), $said"
stop_emulator
odometry_vs_truth "${x2:-0}" "$start" "$truth" 0.02 &&
    pass "Kilted: the robot truly went from ($start) to ($truth), the odometry $x2 m" ||
    fail "Kilted: odometry $x2 m, the robot truly from ($start) to ($truth)"

# 3. Jazzy: the reverse.
rm -f "$tmp/announce"
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
start_node "kobuki:$tmp/kobuki" --ns robot1 --distro jazzy
case $second in
*"Jazzy layout, cmd_vel geometry_msgs/msg/Twist") ;;
*) fail "--distro jazzy: $second" ;;
esac
drive twist
drove_at twist "Jazzy: Twist at 20 Hz" 0
x1=$(x_of twist)
lines=$(wc -l <"$tmp/node.err")
drive stamped --stamped 0 --hz 10 --unmatched 0.5
still stamped "Jazzy: a TwistStamped writer" "${x1:-0}"
told=$(said_since "$lines")
case $told in
"botwire ros2: /robot1: a writer of geometry_msgs/msg/TwistStamped on /robot1/cmd_vel, where this node takes geometry_msgs/msg/Twist: none of its commands are taken (--cmd-vel stamped or cmd_vel_type stamped takes them)")
    pass "Jazzy: the node told of the TwistStamped writer: $told" ;;
*) fail "Jazzy: what the node said of a TwistStamped writer: $told" ;;
esac
stop_node
stop_emulator
odometry_vs_truth "${x1:-0}" "$start" "$truth" 0.02 &&
    pass "Jazzy: the robot truly went from ($start) to ($truth), the odometry $x1 m" ||
    fail "Jazzy: odometry $x1 m, the robot truly from ($start) to ($truth)"

finish "cmd_vel as the ROS 2 stack sends it"
