#!/bin/sh
# Real time, real processes, a real pseudo-terminal: `botwire sim lobot` in
# one process, `botwire drive` / `botwire record` in others.
# usage: realtime.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"

start=$(start_of lobot)
start_emulator "botwire sim: lobot on /dev/" lobot --pty "$tmp/lobot" --for 120

# 0. What a dead host leaves: the first words of its log. The emulator
# writes them before it announces where it serves (they once came after,
# and this read, run as soon as the announcement came, found none).
head -n 1 "$tmp/sim.err" | grep -q "stops the robot when no command comes within 1500 ms" &&
    pass "first words: $(head -n 1 "$tmp/sim.err")" || fail "no stop-on-silence notice first: $(head -n 3 "$tmp/sim.err")"

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh), stopped at the end.
"$bw" drive "lobot:$tmp/lobot" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" && pass "2 s at 0.2 m/s over the pty: x = $x m" || fail "x = $x (last: $last)"
v=$(field v "$last")
within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end: v = $v"
# The driver opens the line while the robot sends, as on a real serial
# line: the first bytes may be the tail of a SENSORS (at most its 54), one
# frame set aside. Nothing else.
rejected=$(field rejected "$last")
skipped=$(field skipped_bytes "$last")
[ "${rejected:-9}" -le 1 ] && [ "${skipped:-999}" -le 54 ] &&
    pass "no frame rejected but one cut by the opening ($rejected rejected, $skipped bytes skipped)" ||
    fail "$rejected frames rejected: $last"
# The odometry against how far the emulated robot truly went: within 2 cm
# (the Create's counts are whole millimetres per read; docs/reliability.md).
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.02 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth)"
rm -f "$tmp/announce"
start_emulator "botwire sim: lobot on /dev/" lobot --pty "$tmp/lobot" --for 120

# 2. Record both directions and decode it: one command per READY, each
# inside its window, the 0.1 m/s FORWARD among them. For 2 s: the READY the
# module sends as the line opens can go in the opener's flush of stale input,
# and the next comes only when its window (1.5 s) has passed.
"$bw" record "lobot:$tmp/lobot" -o "$tmp/rec.jsonl" --for 2 --v 0.1 2>"$tmp/rec.err"
status=$?
[ "$status" = 0 ] && pass "record: $(tail -n 1 "$tmp/rec.err")" || fail "record exited $status: $(cat "$tmp/rec.err")"
"$bw" decode --proto lobot "$tmp/rec.jsonl" >"$tmp/rec.dec" 2>"$tmp/dec.err" || fail "decode of a record: $(cat "$tmp/dec.err")"
ready=$(grep -c '"type":"ready"' "$tmp/rec.dec")
sensors=$(grep -c '"type":"sensors"' "$tmp/rec.dec")
cmds=$(grep -c '"type":"command"' "$tmp/rec.dec")
[ "$ready" -ge 8 ] && pass "record: $ready READY in 2 s" || fail "record: $ready READY"
[ "$sensors" -ge "$ready" ] && pass "record: $sensors SENSORS" || fail "record: $sensors SENSORS, $ready READY"
[ "$cmds" -ge $((ready - 1)) ] && [ "$cmds" -le "$ready" ] && pass "record: $cmds commands, one per READY" ||
    fail "record: $cmds commands for $ready READY"
grep -q '"type":"command","cmd":"F","name":"forward","param":100' "$tmp/rec.dec" &&
    pass "record: FORWARD 100" || fail "record: no FORWARD 100"
# Nothing damaged but a message cut at either end (at most a SENSORS' 54
# bytes each).
stats=$(tail -n 1 "$tmp/rec.dec")
cut_ends_only "$stats" 108 && pass "record decodes cleanly but for messages cut at its ends: $stats" ||
    fail "record stats: $stats"

# 3. Ctrl-C stops the emulator cleanly; no byte came outside a window.
kill -INT "$sim"
wait "$sim"
status=$?
sim=
[ "$status" = 0 ] && pass "emulator stops cleanly on SIGINT" || fail "emulator exit status $status"
grep -q "botwire sim: stopped" "$tmp/sim.err" && ! grep -q "outside the window" "$tmp/sim.err" &&
    pass "$(tail -n 1 "$tmp/sim.err")" || fail "emulator said: $(cat "$tmp/sim.err")"

# 4. The deployed program's 250 ms window: the driver still answers inside it.
"$bw" sim lobot --pty "$tmp/fast" --window 250 --for 30 --detach >"$tmp/fast.said" 2>/dev/null
fast_pid=$(sed -E 's/.*\(pid ([0-9]+)\)$/\1/' "$tmp/fast.said")
"$bw" drive "lobot:$tmp/fast" --v 0.2 --for 1 >"$tmp/fast.out" 2>&1
status=$?
last=$(tail -n 1 "$tmp/fast.out")
x=$(field x "$last")
[ "$status" = 0 ] && drove "$x" 0.2 1 "$last" && pass "--window 250: x = $x m after 1 s at 0.2 m/s" ||
    fail "--window 250: status $status, $(tail -n 1 "$tmp/fast.out")"
kill "$fast_pid" 2>/dev/null

finish "lobot real-time"
