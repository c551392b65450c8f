#!/bin/sh
# Real time, real processes, a real pseudo-terminal: `botwire sim rbsm` (the
# buggy's Mega and encoder on one link) and `botwire drive rbsm:LINK`.
# usage: realtime.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"

start_emulator "botwire sim: rbsm on /dev/" rbsm --pty "$tmp/buggy" --for 120

# 1. As the protocol's users write it: --w alone steers, and with v = 0 the
# brake stays down, so the buggy stays where it is.
"$bw" drive "rbsm:$tmp/buggy" --w 0.2 --for 3 >"$tmp/steer.out" 2>"$tmp/steer.err"
status=$?
last=$(tail -n 1 "$tmp/steer.out")
x=$(field x "$last")
[ "$status" = 0 ] && within "$x" 0 0.001 && echo "$last" | grep -q '"brake":true' &&
    pass "--w 0.2 with v = 0: steered, braked, x = $x" || fail "--w 0.2: status $status, $last, $(cat "$tmp/steer.err")"

# 2. Released (--v above 0), pushed off, steered for 3 s, braked to a stop:
# the driver's odometry ends within 5 cm of the emulator's true pose.
"$bw" drive "rbsm:$tmp/buggy" --v 2 --w 0.2 --for 3 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
grep -q "steered, not driven" "$tmp/drive.err" && pass "drive says the buggy's speed is not commanded" ||
    fail "no note on --v: $(cat "$tmp/drive.err")"
kill -INT "$sim"
wait "$sim"
sim=
# "... robot at (X, Y, DEG deg)": the start is (10, 20, 0) in the lot.
at=$(sed -n 's/.*robot at (\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\) deg).*/\1 \2/p' "$tmp/sim.err")
tx=$(echo "$at" | cut -d' ' -f1)
ty=$(echo "$at" | cut -d' ' -f2)
ox=$(field x "$last")
oy=$(field y "$last")
d=$(awk -v a="$ox" -v b="$oy" -v c="$tx" -v e="$ty" 'BEGIN { printf "%.3f", sqrt((a - c + 10)^2 + (b - e + 20)^2) }')
awk -v d="$d" 'BEGIN { exit !(d <= 0.05) }' &&
    pass "odometry ($ox, $oy) within $d m of the true pose ($tx, $ty) after 3 s" ||
    fail "odometry ($ox, $oy) vs true ($tx, $ty) - (10, 20): $d m off"
# How far it went, from when the drive first heard it move (it was released
# before): the pusher runs it at 2 m/s^2 to 3 m/s (2.25 m in 1.5 s), then
# it rolls on at 2.9 m/s at least (its rolling loss) until the stop at 3 s,
# on headings up to the final one: x at least cos(theta) times that path,
# less one encoder tick (8.7 cm). A machine that holds the emulator back
# releases it later, and the drive's lines say so; a fixed "x > 3" took the
# release for granted. (A buggy never released is never heard moving.)
moved=$(moved_at "$tmp/drive.out" x)
th=$(field theta "$last")
[ -n "$moved" ] && awk -v x="$ox" -v r="$moved" -v th="$th" 'BEGIN { s = 3 - r; path = s <= 1.5 ? s * s : 2.25 + 2.9 * (s - 1.5)
    exit !(x >= cos(th) * path - 0.09) }' &&
    pass "x = $ox m, heard moving at t = $moved s, on a heading of $th rad at the end" ||
    fail "x = $ox m, heard moving at t = ${moved:-?} s, heading $th rad: not pushed and rolled as far"
echo "$last" | grep -q '"brake":true' && pass "braked at the end" || fail "not braked: $last"

finish "rbsm real-time"
