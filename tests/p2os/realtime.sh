#!/bin/sh
# Real time, real processes, TCP: `botwire sim p2os` on its default port and
# `botwire drive p2os:tcp://127.0.0.1:8101`, as P2OS clients connect to a
# simulator.
# usage: realtime_p2os.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"

start=$(start_of p2os)
start_emulator "botwire sim: p2os p2dx on tcp://127.0.0.1:8101" p2os --for 120
url=p2os:tcp://127.0.0.1:8101

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh: by the time the
# drive's lines say it took), and the odometry within 1 cm of how far the
# emulated robot truly went.
"$bw" drive "$url" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" "$tmp/drive.out" &&
    pass "2 s at 0.2 m/s over TCP: x = $x m (heard moving at t = $(moved_at "$tmp/drive.out" x) s)" ||
    fail "x = $x, heard moving at t = $(moved_at "$tmp/drive.out" x) s (last: $last)"
v=$(field v "$last")
heard "$last" && within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving, or not heard: $last"
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.01 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth); the drive: $(link_said "$tmp/drive.out")"
rm -f "$tmp/announce"
start_emulator "botwire sim: p2os p2dx on tcp://127.0.0.1:8101" p2os --for 120

# 2. The emulator takes the next client when one leaves: 1 s at 0.5 rad/s,
# theta = 0.5 rad by the time the drive's lines say it took (`turned`,
# testlib.sh; a fixed 0.3 to 0.7 took the start for granted).
"$bw" drive "$url" --w 0.5 --for 1 >"$tmp/turn.out" 2>"$tmp/turn.err"
last=$(tail -n 1 "$tmp/turn.out")
th=$(field theta "$last")
turned "$th" 0.5 1 "$last" "$tmp/turn.out" &&
    pass "second client turns: theta = $th (heard turning at t = $(moved_at "$tmp/turn.out" theta) s)" ||
    fail "second client: theta = $th, heard turning at t = $(moved_at "$tmp/turn.out" theta) s ($last; $(cat "$tmp/turn.err"))"

# 3. One client at a time: a second one while the first is on is turned away.
# (The first one's output is read all along: drive stops when nobody reads.
# It drives until told to stop, not for a time a slow second client could
# outlast.)
mkfifo "$tmp/lines"
"$bw" drive "$url" >"$tmp/lines" 2>/dev/null &
first=$!
exec 3<"$tmp/lines"
read -r line <&3
cat <&3 >/dev/null &
drain=$!
"$bw" drive "$url" --for 1 >/dev/null 2>"$tmp/second.err"
status=$?
[ "$status" = 1 ] && grep -q "held by another client" "$tmp/second.err" &&
    pass "a second client is refused: $(cat "$tmp/second.err")" ||
    fail "second client: status $status, $(cat "$tmp/second.err")"
kill -INT "$first"
wait "$first"
wait "$drain"
exec 3<&-
grep -q "refused" "$tmp/sim.err" && pass "the emulator says it refused one" || fail "no refusal logged"

kill -INT "$sim"
wait "$sim"
status=$?
sim=
[ "$status" = 0 ] && pass "emulator stops cleanly on SIGINT" || fail "emulator exit status $status"
grep -q "botwire sim: stopped" "$tmp/sim.err" && pass "$(tail -n 1 "$tmp/sim.err")" || fail "no summary"

finish "P2OS real-time"
