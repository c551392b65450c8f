#!/bin/sh
# Real time, real processes, a real pseudo-terminal: `botwire sim kobuki` in
# one process, `botwire drive` / `botwire record` in others.
# usage: realtime_kobuki.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"

start=$(start_of kobuki)
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 120
[ -L "$tmp/kobuki" ] && pass "pty link created" || fail "no link at $tmp/kobuki"

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh), and the odometry
# within 1 cm of how far the emulated robot truly went.
"$bw" drive "kobuki:$tmp/kobuki" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
lines=$(grep -c '"online":true' "$tmp/drive.out")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" && pass "2 s at 0.2 m/s over the pty: x = $x m" || fail "x = $x (last: $last)"
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.01 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth)"
rm -f "$tmp/announce"
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 120
# One per 100 ms of the wall: 20, fewer when a loaded machine holds the
# process back; a drive that printed only at its end gives 1 or 2.
[ "$lines" -ge 8 ] && pass "$lines state lines in 2 s (one per 100 ms)" || fail "only $lines state lines"
v=$(field v "$last")
within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end: v = $v"

# 2. Record both directions, then decode the record.
"$bw" record "kobuki:$tmp/kobuki" -o "$tmp/rec.jsonl" --for 1 --v 0.1 2>"$tmp/rec.err"
status=$?
[ "$status" = 0 ] && pass "record: $(cat "$tmp/rec.err")" || fail "record exited $status: $(cat "$tmp/rec.err")"
head -n 1 "$tmp/rec.jsonl" | grep -q '"botwire_record":1' && pass "record header" || fail "record header"
"$bw" decode --proto kobuki "$tmp/rec.jsonl" >"$tmp/rec.dec" 2>"$tmp/dec.err" || fail "decode of a record: $(cat "$tmp/dec.err")"
fb=$(grep -c '"type":"basic_sensor_data".*"from":"robot"' "$tmp/rec.dec")
cmd=$(grep -c '"type":"base_control".*"from":"host"' "$tmp/rec.dec")
# The robot's own stamps (ms) say the rate it sent at, whatever the
# scheduler did to their delivery: 50 Hz is 20 ms apart.
stamps=$(grep '"type":"basic_sensor_data".*"from":"robot"' "$tmp/rec.dec" | sed -n 's/.*"timestamp":\([0-9]*\).*/\1/p')
gap=$(echo "$stamps" | awk 'NR > 1 { d = ($1 - prev + 65536) % 65536; n++; s += d } { prev = $1 } END { if (n) printf "%.1f", s / n }')
# The record lasts --for and then until the robot is at rest (half a
# second at most), as long as it says: 50 frames a second of that, at most.
took=$(sed -n 's/^botwire record: \([0-9.]*\) s, .*/\1/p' "$tmp/rec.err")
[ "$fb" -ge 20 ] && awk -v n="$fb" -v s="${took:-0}" 'BEGIN { exit !(n <= 50 * (s + 0.05) + 2) }' &&
    within "${gap:-0}" 20 1 &&
    pass "record: $fb feedback frames in ${took:-?} s, the robot's stamps $gap ms apart (50 Hz)" ||
    fail "record: $fb feedback frames in ${took:-?} s, stamps ${gap:-?} ms apart"
[ "$cmd" -ge 40 ] && pass "record: $cmd base control commands from the host" || fail "record: $cmd commands"
grep -q '"type":"base_control","speed":100,"radius":0' "$tmp/rec.dec" && pass "record: the 0.1 m/s command" ||
    fail "record: no 0.1 m/s command"
# Nothing damaged but a frame cut at either end (at most 92 of its 93 bytes
# each, in which a false header may read as a bad length).
stats=$(tail -n 1 "$tmp/rec.dec")
cut_ends_only "$stats" 184 && pass "record decodes cleanly but for frames cut at its ends: $stats" ||
    fail "record stats: $stats"
robot_only=$("$bw" decode --proto kobuki --from robot "$tmp/rec.jsonl" | grep -c '"from":"host"')
[ "$robot_only" = 0 ] && pass "decode --from robot of a record" || fail "--from robot let $robot_only host lines through"

# 3. SIGTERM to a driving client: it stops the robot before it goes.
mkfifo "$tmp/lines"
"$bw" drive "kobuki:$tmp/kobuki" --v 0.3 >"$tmp/lines" 2>/dev/null &
drv=$!
n=0
while read -r line; do
    n=$((n + 1))
    [ "$n" = 5 ] && kill -TERM "$drv"
    last=$line
done <"$tmp/lines"
wait "$drv"
status=$?
[ "$status" = 143 ] && pass "drive ends with status 143 (128 + SIGTERM) on SIGTERM" || fail "drive status $status on SIGTERM"
v=$(field v "$last")
within "$v" 0 0.01 && pass "SIGTERM: robot stopped (final v = $v)" || fail "SIGTERM: final line $last"

# 4. Ctrl-C stops the emulator cleanly and removes its link.
kill -INT "$sim"
wait "$sim"
status=$?
sim=
[ "$status" = 0 ] && pass "emulator stops cleanly on SIGINT" || fail "emulator exit status $status"
[ ! -e "$tmp/kobuki" ] && [ ! -L "$tmp/kobuki" ] && pass "link removed" || fail "link left behind"
grep -q "botwire sim: stopped" "$tmp/sim.err" && pass "$(cat "$tmp/sim.err")" || fail "no summary from the emulator"

# 5. A robot that is not there: a clear error, not a hang.
"$bw" drive "kobuki:$tmp/kobuki" --v 0.1 --for 1 >/dev/null 2>"$tmp/err"
status=$?
[ "$status" = 1 ] && grep -q "cannot open" "$tmp/err" && pass "no robot: $(cat "$tmp/err")" ||
    fail "no robot: status $status, $(cat "$tmp/err")"

# 6. An emulator behind a bad cable (--ber): the driver counts what it threw
# out and still drives.
"$bw" sim kobuki --pty "$tmp/noisy" --ber 1e-3 --for 30 --detach >"$tmp/noisy.said" 2>/dev/null
noisy_pid=$(sed -E 's/.*\(pid ([0-9]+)\)$/\1/' "$tmp/noisy.said")
"$bw" drive "kobuki:$tmp/noisy" --v 0.2 --for 1 >"$tmp/noisy.out" 2>"$tmp/noisy.err"
status=$?
kill "$noisy_pid" 2>/dev/null
last=$(tail -n 1 "$tmp/noisy.out")
x=$(field x "$last")
rejected=$(field rejected "$last")
[ "$status" = 0 ] && drove "$x" 0.2 1 "$last" && [ "$rejected" -gt 0 ] &&
    pass "sim --ber 1e-3: x = $x m, $rejected frames rejected" ||
    fail "sim --ber: status $status, $last, $(cat "$tmp/noisy.err")"

# 7. The link lost at the end: the emulator goes away while drive runs; the
# stop cannot be sent, and the status says so. (The emulator is killed once
# drive is online: an emulator that ran out its own time while drive was
# still starting, on a loaded machine, tested nothing.)
"$bw" sim kobuki --pty "$tmp/brief" --for 60 --detach >"$tmp/brief.said" 2>/dev/null
brief_pid=$(sed -E 's/.*\(pid ([0-9]+)\)$/\1/' "$tmp/brief.said")
"$bw" drive "kobuki:$tmp/brief" --v 0.1 --for 4 >"$tmp/brief.out" 2>"$tmp/brief.err" &
drv=$!
wait_line "$tmp/brief.out" '"online":true' 20 || fail "drive never online: $(cat "$tmp/brief.err")"
kill "$brief_pid"
wait "$drv"
status=$?
[ "$status" = 1 ] && grep -q "could not send the stop" "$tmp/brief.err" &&
    pass "link lost at the end: status 1, $(cat "$tmp/brief.err")" ||
    fail "link lost at the end: status $status, $(cat "$tmp/brief.err")"

finish "Kobuki real-time"
