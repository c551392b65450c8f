#!/bin/sh
# Real time, real processes, a real pseudo-terminal: `botwire sim rflex` (a
# B21r) and `botwire drive rflex:LINK`.
# usage: realtime.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"

# A state line's last field of a name is the one field() reads: the
# joystick's "x" would shadow the pose's, so it goes first.
state_line() { tail -n 1 "$1" | sed 's/,"joystick":{[^}]*}//'; }

start=$(start_of rflex)
start_emulator "botwire sim: rflex b21r on /dev/" rflex --pty "$tmp/b21" --for 120

# 1. Two seconds at 0.2 m/s: x = 0.40 m (`drove`, testlib.sh: by the time the
# drive's lines say it took), stopped, and braked once the driver closes.
"$bw" drive "rflex:$tmp/b21" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(state_line "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
drove "$x" 0.2 2 "$last" "$tmp/drive.out" &&
    pass "2 s at 0.2 m/s over the pty: x = $x m (heard moving at t = $(moved_at "$tmp/drive.out" x) s)" ||
    fail "x = $x, heard moving at t = $(moved_at "$tmp/drive.out" x) s (last: $last)"
v=$(field v "$last")
heard "$last" && within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end, or not heard: $last"
# The odometry against how far the emulated robot truly went (its own
# pose when it stops), not against what the driver meant to do.
stop_emulator
odometry_vs_truth "$x" "$start" "$truth" 0.01 &&
    pass "odometry x = $x m, the robot truly from ($start) to ($truth)" ||
    fail "odometry x = $x m, truly from ($start) to ($truth); the drive: $(link_said "$tmp/drive.out")"
rm -f "$tmp/announce"
start_emulator "botwire sim: rflex b21r on /dev/" rflex --pty "$tmp/b21" --for 120

# 2. Record and decode: the set-up the driver sends, the reports, the brake
# set at the end.
"$bw" record "rflex:$tmp/b21" -o "$tmp/rec.jsonl" --for 1 --w 0.3 2>"$tmp/rec.err"
status=$?
[ "$status" = 0 ] && pass "record: $(tail -n 1 "$tmp/rec.err")" || fail "record exited $status: $(cat "$tmp/rec.err")"
"$bw" decode --proto rflex "$tmp/rec.jsonl" >"$tmp/rec.dec" 2>"$tmp/dec.err" || fail "decode: $(cat "$tmp/dec.err")"
for t in mot_set_defaults mot_system_report_req dio_reports_req sonar_run mot_brake_release \
    mot_set_dir mot_system_report sonar_report sys_status mot_brake_set; do
    grep -q "\"type\":\"$t\"" "$tmp/rec.dec" && pass "record: $t" || fail "record: no $t"
done
# The base's own stamps (ms) say the sonar's rate, and that the record holds
# every report, whatever the scheduler did to their delivery: each 30 ms
# after the one before. No more than the time the record says it took
# allows (its line gives tenths: 0.05 s more), one more for the base's
# 10 ms loop the first ping is timed on and one the recorder read just
# after it last looked at the clock. The record goes on until the
# base is at rest: it holds every report the base made until its first
# system report that says the rotation stopped (stamped by the same clock),
# but for one made in the 30 ms before. (A fixed "25 in 1 s" took the
# machine's speed for granted.)
sonar=$(grep -c '"type":"sonar_report"' "$tmp/rec.dec")
stamps=$(grep '"type":"sonar_report"' "$tmp/rec.dec" | sed -n 's/.*"timestamp":\([0-9]*\),.*/\1/p')
gaps=$(echo "$stamps" | awk 'NR > 1 { d = ($1 - prev + 4294967296) % 4294967296; if (d != 30) bad = bad " " d } { prev = $1 } END { print bad }')
rest=$(grep '"type":"mot_system_report".*"axis":1,' "$tmp/rec.dec" |
    sed -n 's/.*"timestamp":\([0-9]*\),.*"velocity":\([-0-9]*\),.*/\1 \2/p' |
    awk '$2 != 0 { turned = 1 } $2 == 0 && turned { print $1; exit }')
took=$(sed -n 's/^botwire record: \([0-9.]*\) s, .*/\1/p' "$tmp/rec.err")
[ "$sonar" -ge 2 ] && [ -z "$gaps" ] && [ -n "$rest" ] &&
    awk -v n="$sonar" -v s="${took:-0}" -v last="$(echo "$stamps" | tail -n 1)" -v rest="$rest" \
        'BEGIN { exit !(n <= (s + 0.05) / 0.03 + 2 && last >= rest - 30) }' &&
    pass "record: $sonar sonar reports in ${took:-?} s, the base's stamps 30 ms apart, every one until it was at rest" ||
    fail "record: $sonar sonar reports in ${took:-?} s, stamps not 30 ms apart:${gaps:-?}, the last at $(echo "$stamps" | tail -n 1), the base at rest at ${rest:-?}"
# Nothing damaged but a report cut at either end (the recorder stops while
# the base sends: its reports are at most 64 bytes here).
stats=$(tail -n 1 "$tmp/rec.dec")
cut_ends_only "$stats" 128 && pass "record decodes cleanly but for reports cut at its ends: $stats" ||
    fail "record stats: $stats"

# 3. A driver killed outright (no stop, no brake) while it drives: the base
# stops by its failsafe within its second, and says so.
# (It is killed once the base drives, and the notice waited for as it
# comes: no sleeps that a loaded machine overruns; the bounds are for a
# broken build only.)
"$bw" drive "rflex:$tmp/b21" --v 0.3 --for 20 >"$tmp/killed.out" 2>&1 &
drv=$!
wait_line "$tmp/killed.out" '"v":0.[23]' 20 || fail "the driver never drove: $(cat "$tmp/killed.out")"
kill -KILL "$drv"
wait "$drv" 2>/dev/null
wait_line "$tmp/sim.err" "failsafe: no set-direction" 20 &&
    pass "failsafe: $(grep "failsafe: no" "$tmp/sim.err" | head -n 1)" ||
    fail "no failsafe stop after the driver was killed: $(cat "$tmp/sim.err")"
"$bw" drive "rflex:$tmp/b21" --for 0.5 >"$tmp/after.out" 2>"$tmp/after.err"
v=$(field v "$(state_line "$tmp/after.out")")
heard "$(state_line "$tmp/after.out")" && within "$v" 0 0.01 && pass "the base stood still after its driver was killed (v = $v)" ||
    fail "still moving after the driver was killed: $(tail -n 1 "$tmp/after.out")"
# The emulator says so from the start: its first line, written before it
# announces where it serves (a client quick to open the pty was once
# logged before it).
first=$(head -n 1 "$tmp/sim.err")
echo "$first" | grep -q "stops both axes when no set-direction comes" && pass "what the emulator says first: $first" ||
    fail "the emulator's first notice: $(head -n 2 "$tmp/sim.err")"

kill -INT "$sim"
wait "$sim"
status=$?
sim=
[ "$status" = 0 ] && grep -q "botwire sim: stopped" "$tmp/sim.err" && pass "$(tail -n 1 "$tmp/sim.err")" ||
    fail "emulator: status $status, $(cat "$tmp/sim.err")"

finish "rflex real-time"
