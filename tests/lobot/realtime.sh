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

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh: by the time the
# drive's lines say it took), stopped at the end.
"$bw" drive "lobot:$tmp/lobot" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" "$tmp/drive.out" &&
    pass "2 s at 0.2 m/s over the pty: x = $x m (heard moving at t = $(moved_at "$tmp/drive.out" x) s)" ||
    fail "x = $x, heard moving at t = $(moved_at "$tmp/drive.out" x) s (last: $last)"
v=$(field v "$last")
heard "$last" && within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end, or not heard: $last"
# The driver opens the line while the robot sends, as on a real serial
# line: the first bytes may be the tail of a SENSORS (at most its 54), one
# frame set aside. Nothing else on this clean line but what the driver's
# own clock makes of a loaded machine: it frames the robot's bursts by 30 ms
# of quiet, and a SENSORS it reads in two parts that far apart (the emulator
# or the driver held back between) is thrown out (54 bytes at most, a frame
# set aside); that cycle's motion then comes short in the next SENSORS,
# which it sets aside as implausible and counts. One more of each per
# SENSORS so counted. (It does not count the bursts it cut; implausible
# stands for them. A driver that lost step throws out far more than it
# sets aside.)
rejected=$(field rejected "$last")
skipped=$(field skipped_bytes "$last")
odd=$(field implausible "$last")
[ "${rejected:-9}" -le $((1 + ${odd:-0})) ] && [ "${skipped:-999}" -le $((54 * (1 + ${odd:-0}))) ] &&
    pass "no frame rejected but one cut by the opening, and for each of $odd set aside: $rejected rejected, $skipped bytes skipped" ||
    fail "$rejected frames rejected, $skipped bytes skipped, $odd implausible: $last"
# The odometry against how far the emulated robot truly went: within 2 cm
# (the Create's counts are whole millimetres per read; docs/reliability.md).
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.02 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth); the drive: $(link_said "$tmp/drive.out")"
rm -f "$tmp/announce"
start_emulator "botwire sim: lobot on /dev/" lobot --pty "$tmp/lobot" --for 120

# 2. Record both directions and decode it: one command per READY, each
# inside its window, the 0.1 m/s FORWARD among them. For 2 s: the READY the
# module sends as the line opens can go in the opener's flush of stale input,
# and the next comes only when its window (1.5 s) has passed, by the
# module's clock; a machine that held the module back past the record's
# end makes the record twice as long again (4 s, then 8 s), not the test
# fail.
for secs in 2 4 8; do
    "$bw" record "lobot:$tmp/lobot" -o "$tmp/rec.jsonl" --for "$secs" --v 0.1 2>"$tmp/rec.err"
    status=$?
    decoded=1
    [ "$status" = 0 ] || break
    "$bw" decode --proto lobot "$tmp/rec.jsonl" >"$tmp/rec.dec" 2>"$tmp/dec.err"
    decoded=$?
    [ "$decoded" = 0 ] || break
    ready=$(grep -c '"type":"ready"' "$tmp/rec.dec")
    [ "$ready" -ge 2 ] && break
done
[ "$status" = 0 ] && pass "record: $(tail -n 1 "$tmp/rec.err")" || fail "record exited $status: $(cat "$tmp/rec.err")"
[ "$decoded" = 0 ] || fail "decode of a record: $(cat "$tmp/dec.err")"
: "${ready:=0}"
sensors=$(grep -c '"type":"sensors"' "$tmp/rec.dec")
cmds=$(grep -c '"type":"command"' "$tmp/rec.dec")
# How many cycles fit in the record is this machine's to say: each waits
# for the host's answer. What is judged is the exchange: a READY, then one
# command, never one unasked (in the record's order); as many SENSORS; and
# no byte outside a window (the emulator's word, below). At least two: the
# one the flush may take, and the next when its window has passed. But for
# what the driver does when the line has been quiet 30 ms by its own clock,
# which a loaded machine can hold it or the emulator back for: it answers
# a burst whose READY it has not heard (lost to noise, it takes it), and
# after 0.5 s it sends the stop, a link judged lost; it finds the quiet on
# its clock, or when the next bytes come. So a command unasked is let pass,
# and its 4 bytes outside a window, when it left 30 ms or more after the
# robot's last bytes by the record's stamps, or with bytes that came 30 ms
# or more after a burst that had no READY; one otherwise is not.
unasked=$(awk '{ t = ""; if (match($0, /"t":[-0-9.e]*,"from"/)) t = substr($0, RSTART + 4, RLENGTH - 11) }
    /"from":"robot"/ && t != heard { if (heard == "" || t - heard >= 0.03) { lone = heard != "" && !ready; ready = 0; gap = 1 }
        else gap = 0
        heard = t }
    /"type":"ready"/ { owed = 1; ready = 1 }
    /"type":"command"/ { if (!owed) { if (heard != "" && (t - heard >= 0.03 || (gap && lone))) quiet++; else n++ }
        owed = 0 }
    END { print n + 0, quiet + 0 }' "$tmp/rec.dec")
quiet=${unasked#* }
unasked=${unasked% *}
[ "$ready" -ge 2 ] && pass "record: $ready READY in $(sed -n 's/^botwire record: \([0-9.]*\) s, .*/\1/p' "$tmp/rec.err") s" ||
    fail "record: $ready READY"
# (The opening may cut the first READY's SENSORS.)
[ "$sensors" -ge $((ready - 1)) ] && pass "record: $sensors SENSORS" || fail "record: $sensors SENSORS, $ready READY"
[ "$cmds" -ge $((ready - 1)) ] && [ "$cmds" -le $((ready + quiet)) ] && [ "$unasked" = 0 ] &&
    pass "record: $cmds commands, one after each READY ($quiet more on a quiet line)" ||
    fail "record: $cmds commands for $ready READY, $unasked of them unasked ($quiet more on a quiet line)"
grep -q '"type":"command","cmd":"F","name":"forward","param":100' "$tmp/rec.dec" &&
    pass "record: FORWARD 100" || fail "record: no FORWARD 100"
# Nothing damaged but a message cut at either end (at most a SENSORS' 54
# bytes each).
stats=$(tail -n 1 "$tmp/rec.dec")
cut_ends_only "$stats" 108 && pass "record decodes cleanly but for messages cut at its ends: $stats" ||
    fail "record stats: $stats"

# 3. Ctrl-C stops the emulator cleanly; no byte came outside a window but
# the recorder's commands on a quiet line (above).
kill -INT "$sim"
wait "$sim"
status=$?
sim=
[ "$status" = 0 ] && pass "emulator stops cleanly on SIGINT" || fail "emulator exit status $status"
outside=$(sed -n 's/.*; \([0-9]*\) bytes came outside the window.*/\1/p' "$tmp/sim.err")
grep -q "botwire sim: stopped" "$tmp/sim.err" && [ "${outside:-0}" -le $((4 * quiet)) ] &&
    pass "$(tail -n 1 "$tmp/sim.err")" || fail "emulator said: $(cat "$tmp/sim.err")"

# 4. The deployed program's 250 ms window: the driver still answers inside it
# (a deadline of the robot's, not of this test: a window missed stops the
# robot for a cycle, which the distance shows). The emulator's --for 30 is
# for a broken build only, which would leave it running; it is killed once
# the drive is done.
"$bw" sim lobot --pty "$tmp/fast" --window 250 --for 30 --detach >"$tmp/fast.said" 2>/dev/null
fast_pid=$(sed -E 's/.*\(pid ([0-9]+)\)$/\1/' "$tmp/fast.said")
"$bw" drive "lobot:$tmp/fast" --v 0.2 --for 1 >"$tmp/fast.out" 2>&1
status=$?
last=$(tail -n 1 "$tmp/fast.out")
x=$(field x "$last")
[ "$status" = 0 ] && drove "$x" 0.2 1 "$last" "$tmp/fast.out" && pass "--window 250: x = $x m after 1 s at 0.2 m/s" ||
    fail "--window 250: status $status, $(tail -n 1 "$tmp/fast.out")"
kill "$fast_pid" 2>/dev/null

finish "lobot real-time"
