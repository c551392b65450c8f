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
"$bw" drive "kobuki:$tmp/r1" --v 0.25 --for 7 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
grep -q '"event":"bump","on":true,"mask":2' "$tmp/drive.out" &&
    pass "the Kobuki's front bumper fired: $(grep '"event":"bump"' "$tmp/drive.out" | head -n 1)" ||
    fail "no bump: $(tail -n 3 "$tmp/drive.out")"
last=$(tail -n 1 "$tmp/drive.out")
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

# --robots: three Kobukis, each on its own pty, the third driven alone.
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
x=$(field x "$(tail -n 1 "$tmp/k3.out")")
within "$x" 0.40 0.05 && pass "robot 3 driven: x = $x m" || fail "robot 3: $(tail -n 1 "$tmp/k3.out")"
kill -INT "$sim"
wait "$sim"
sim=
exec 3<&-
grep -c "stopped;" "$tmp/sim.err" | grep -q "^3$" && pass "three robots stopped" || fail "$(cat "$tmp/sim.err")"

finish "fleet real-time"
