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

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh: by the time the
# drive's lines say it took), and the odometry within 1 cm of how far the
# emulated robot truly went.
"$bw" drive "kobuki:$tmp/kobuki" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" "$tmp/drive.out" &&
    pass "2 s at 0.2 m/s over the pty: x = $x m (heard moving at t = $(moved_at "$tmp/drive.out" x) s)" ||
    fail "x = $x, heard moving at t = $(moved_at "$tmp/drive.out" x) s (last: $last)"
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.01 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth); the drive: $(link_said "$tmp/drive.out")"
rm -f "$tmp/announce"
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 120
# One line per 100 ms of the drive's own clock, t = 0 to 2 s, every one of
# them (`every_tenth`, testlib.sh: a drive held back prints the ones it owes).
lines=$(state_lines "$tmp/drive.out" | wc -l)
every_tenth "$tmp/drive.out" 2 && pass "$lines state lines: one per 100 ms of the drive's 2 s, and its last" ||
    fail "state lines not one per 100 ms up to 2 s: $(state_lines "$tmp/drive.out" | sed 's/,"x".*//' | tr '\n' ' ')"
v=$(field v "$last")
heard "$last" && within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end, or not heard: $last"

# 2. Record both directions, then decode the record.
"$bw" record "kobuki:$tmp/kobuki" -o "$tmp/rec.jsonl" --for 1 --v 0.1 2>"$tmp/rec.err"
status=$?
[ "$status" = 0 ] && pass "record: $(cat "$tmp/rec.err")" || fail "record exited $status: $(cat "$tmp/rec.err")"
head -n 1 "$tmp/rec.jsonl" | grep -q '"botwire_record":1' && pass "record header" || fail "record header"
"$bw" decode --proto kobuki "$tmp/rec.jsonl" >"$tmp/rec.dec" 2>"$tmp/dec.err" || fail "decode of a record: $(cat "$tmp/dec.err")"
fb=$(grep -c '"type":"basic_sensor_data".*"from":"robot"' "$tmp/rec.dec")
cmd=$(grep -c '"type":"base_control".*"from":"host"' "$tmp/rec.dec")
# The robot's own stamps (ms) say the rate it sent at, and that the record
# holds every frame it sent, whatever the scheduler did to their delivery:
# each 20 ms (50 Hz) after the one before, none missing, none twice.
stamps=$(grep '"type":"basic_sensor_data".*"from":"robot"' "$tmp/rec.dec" | sed -n 's/.*"timestamp":\([0-9]*\).*/\1/p')
gaps=$(echo "$stamps" | awk 'NR > 1 { d = ($1 - prev + 65536) % 65536; if (d != 20) bad = bad " " d } { prev = $1 } END { print bad }')
# No more frames than the time the record says it took allows (its line
# gives tenths: 0.05 s more), at 50 a second, and one the recorder read
# just after it last looked at the clock.
took=$(sed -n 's/^botwire record: \([0-9.]*\) s, .*/\1/p' "$tmp/rec.err")
[ "$fb" -ge 2 ] && [ -z "$gaps" ] && awk -v n="$fb" -v s="${took:-0}" 'BEGIN { exit !(n <= 50 * (s + 0.05) + 2) }' &&
    pass "record: $fb feedback frames in ${took:-?} s, the robot's stamps 20 ms apart, every one (50 Hz)" ||
    fail "record: $fb feedback frames in ${took:-?} s, stamps not 20 ms apart:${gaps:-?}"
# The record goes on after the stop until the robot is at rest: it ends
# with frames whose PWM says the robot took the stop.
pwm=$(grep '"type":"basic_sensor_data".*"from":"robot"' "$tmp/rec.dec" | sed -n 's/.*"left_pwm":\(-*[0-9]*\).*/\1/p' | tr '\n' ' ')
case " $pwm" in *" "[1-9]*" 0 "*) pass "record: the robot's PWM to 0 after it drove, in the record" ;;
    *) fail "record: no frame after the stop (left PWM: $pwm)" ;; esac
# A command goes out after every feedback frame the driver reads, as the
# reference driver does: at least as many as the frames, whatever the
# machine's speed.
[ "$cmd" -ge "$fb" ] && pass "record: $cmd base control commands from the host, one after each of the $fb frames at least" ||
    fail "record: $cmd commands for $fb feedback frames"
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
heard "$last" && within "$v" 0 0.01 && pass "SIGTERM: robot stopped (final v = $v)" || fail "SIGTERM: final line $last"

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
[ "$status" = 0 ] && drove "$x" 0.2 1 "$last" "$tmp/noisy.out" && [ "$rejected" -gt 0 ] &&
    pass "sim --ber 1e-3: x = $x m, $rejected frames rejected" ||
    fail "sim --ber: status $status, $last, $(cat "$tmp/noisy.err")"

# 7. The link lost at the end: the emulator goes away while drive runs; the
# stop cannot be sent, and the status says so. (The emulator is killed once
# drive is online: an emulator that ran out its own time while drive was
# still starting, on a loaded machine, tested nothing. The drive's 4 s are
# for the shell's kill after it saw that line; the 20 s wait and the
# emulators' --for 30 and 60 are for a broken build only, so that it
# leaves nothing running.)
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
