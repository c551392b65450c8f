#!/bin/sh
# Several robots in one world, served by one `botwire sim` in real time, each
# on its own pty: a Kobuki driven into a Pioneer standing in its way bumps
# it and stops at its outline; --robots N serves N of a family.
# usage: fleet_realtime.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/testlib.sh"
cat >"$tmp/two.world" <<'W'
size 5 4
robot kobuki 1 2 0
robot p2os 2.5 2 180
W
start_emulator "botwire sim: robot 1: kobuki on /dev/" --world "$tmp/two.world" --pty "$tmp/r" --for 60
# The second line names the second robot.
# The drive goes on until the bump, however long a loaded machine makes
# the 4.25 s it takes at 0.25 m/s (a robot held back past its 0.5 s command
# timeout stops and goes again); then Ctrl-C. --for 60 and the wait's 40 s
# are for a broken build only.
"$bw" drive "kobuki:$tmp/r1" --v 0.25 --for 60 >"$tmp/drive.out" 2>"$tmp/drive.err" &
drv=$!
wait_line "$tmp/drive.out" '"event":"bump","on":true' 40
kill -INT "$drv"
wait "$drv"
status=$?
[ "$status" = 130 ] || fail "drive exited $status (130 wanted: interrupted): $(cat "$tmp/drive.err")"
grep -q '"event":"bump","on":true,"mask":2' "$tmp/drive.out" &&
    pass "the Kobuki's front bumper fired: $(grep '"event":"bump"' "$tmp/drive.out" | head -n 1)" ||
    fail "no bump: $(tail -n 3 "$tmp/drive.out")"
last=$(grep '"online"' "$tmp/drive.out" | tail -n 1)
# The Pioneer's outline: 2.5 - 0.26 (its radius); the Kobuki's centre stops
# its own radius (0.177) short: 1.063 m from where it started.
x=$(field x "$last")
within "$x" 1.063 0.02 && pass "stopped at the Pioneer: x = $x m" || fail "x = $x ($last)"
kill -INT "$sim"
wait "$sim"
sim=
grep -q "robot 2: stopped; .* robot at (2.500, 2.000, 180.0 deg)" "$tmp/sim.err" &&
    pass "the Pioneer stood its ground: $(grep 'robot 2: stopped' "$tmp/sim.err" | sed 's/.*robot at/at/')" ||
    fail "the Pioneer: $(cat "$tmp/sim.err")"

# --robots: three Kobukis, each on its own pty, the third driven alone: at
# its speed (cruised), and its odometry within 1 cm of how far the emulated
# robot truly went (that robot, not another: it went 10 cm at least), less
# the motion of the frames the driver set aside, which its last line counts
# (20 ms at 0.2 m/s each: an emulator held back past a second sends its
# backlog at once, and the driver takes the first frames of such a burst
# for frames whose stamps slipped); if the drive did not hear the robot at
# its end (its last line offline), no farther than the robot went.
start=$(start_of kobuki --robots 3)
rm -f "$tmp/announce"
mkfifo "$tmp/announce"
"$bw" sim kobuki --robots 3 --pty "$tmp/k" --for 60 >"$tmp/announce" 2>"$tmp/sim.err" &
sim=$!
exec 3<"$tmp/announce"
n=0
while [ "$n" -lt 3 ] && read -r line <&3; do
    n=$((n + 1))
    case $line in
    "botwire sim: robot $n: kobuki on /dev/"*"(link $tmp/k$n)") pass "$line" ;;
    *) fail "line $n: $line" ;;
    esac
done
"$bw" drive "kobuki:$tmp/k3" --v 0.2 --for 2 >"$tmp/k3.out" 2>&1
last=$(tail -n 1 "$tmp/k3.out")
x=$(field x "$last")
cruised "$x" 0.2 "$last" "$tmp/k3.out" && pass "robot 3 driven: x = $x m" || fail "robot 3: $last"
kill -INT "$sim"
wait "$sim"
sim=
exec 3<&-
grep -c "stopped;" "$tmp/sim.err" | grep -q "^3$" && pass "three robots stopped" || fail "$(cat "$tmp/sim.err")"
grep "robot 3: stopped;" "$tmp/sim.err" >"$tmp/robot3"
truth=$(pose_said "$tmp/robot3")
went=$(awk -v s="$start" -v t="$truth" 'BEGIN { split(s, a, " "); split(t, b, " "); print b[1] - a[1] }')
aside=$(field implausible "$last")
case $last in
*'"online":true'*) lost=$(awk -v n="$aside" 'BEGIN { print n * 0.2 * 0.02 }') ;;
*) lost=1 ;;
esac
awk -v x="$x" -v w="$went" -v lost="$lost" 'BEGIN { exit !(w >= 0.1 && x <= w + 0.01 && x >= w - 0.01 - lost) }' &&
    pass "robot 3's odometry x = $x m, the robot truly from ($start) to ($truth) ($aside frames set aside)" ||
    fail "robot 3's odometry x = $x m, truly from ($start) to ($truth); its last line: $last"

finish "fleet real-time"
