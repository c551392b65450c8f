#!/bin/sh
# The Command Module firmware in a simulated ATmega168 (botwire-avr), its
# USART switched by PB4 between the host and the emulated Create: the lobot
# driver drives the Create through it, first in the chip's simulated time
# (the figures: nothing of the machine's load in them), then unmodified in
# real time over a real pty.
# usage: lobot_cm.sh BOTWIRE BOTWIRE_AVR FIRMWARE_ELF
set -u
bw=$1 avr=$2 elf=$3
. "$(dirname "$0")/../testlib.sh"

# 1. Simulated time: 2 s at 0.2 m/s through the firmware: 0.40 m less the
# Create's ramp and the first READY window, within 5 cm; the driver's
# odometry within 1 cm of the true pose (the room's start is x = 1.0).
"$avr" lobot-cm "$elf" --drive 0.2 0 2 >"$tmp/virtual.out" 2>"$tmp/virtual.err"
status=$?
sed 's/^/  /' "$tmp/virtual.out"
[ "$status" = 0 ] && [ ! -s "$tmp/virtual.err" ] && pass "--drive in simulated time ran" ||
    fail "--drive: status $status, $(cat "$tmp/virtual.err")"
ox=$(sed -n 's/.*odometry x \([-0-9.]*\) m.*/\1/p' "$tmp/virtual.out")
truth=$(sed -n 's/.*the Create at x \([0-9.-]*\) m.*/\1/p' "$tmp/virtual.out")
within "$ox" 0.40 0.05 && pass "simulated time: 2 s at 0.2 m/s: odometry x = $ox m" ||
    fail "simulated time: odometry x = $ox"
within "$truth" "$(awk -v x="$ox" 'BEGIN { print x + 1 }')" 0.01 &&
    pass "simulated time: the Create truly at x = $truth m, odometry within 1 cm" ||
    fail "simulated time: the Create at $truth, odometry $ox"
grep -q "online yes, [1-9][0-9]* frames, 0 rejected" "$tmp/virtual.out" &&
    pass "simulated time: online to the end, no frame rejected" || fail "$(grep odometry "$tmp/virtual.out")"
grep -q "bytes lost to the select line 0, to full buffers 0" "$tmp/virtual.out" &&
    pass "simulated time: no byte lost to the select line" || fail "$(grep lost "$tmp/virtual.out")"


# 2. Real time over a pty, the unmodified driver as a user runs it: it
# moves ahead and stops, its odometry following the truth. What 2 s of the
# host's clock come to is the chip's to say: the harness never runs it
# ahead of the wall clock, and a machine that holds the harness back leaves
# it behind. How far behind: the wall time of the harness's run less the
# simulated time it reports at the end, counted from before it started
# (lag: at least that far, for the bounds below) and from its first line,
# when its chip starts (slipped: what it lost while running).
began=$(date +%s.%N)
start_firmware "$avr" lobot-cm "$elf" "$tmp/cm"
running=$(date +%s.%N)
drive_heard drive "lobot:$tmp/cm" --v 0.2 --for 2
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
v=$(field v "$last")
# (the drive waits up to 2 s of its own clock for the robot to be at rest:
# the Create needs a window and its 0.2 s ramp down of the chip's; online,
# else there is no speed to judge)
echo "$last" | grep -q '"online":true' && within "$v" 0 0.01 && pass "stopped at the end (v = $v)" ||
    fail "not at rest and online at the end: $last"

# The harness's report: the Create really moved, nothing was lost to the
# select line, and each loop of the firmware was timed in cycles.
stop_firmware
ended=$(date +%s.%N)
truth=$(sed -n 's/.*the Create at x \([0-9.-]*\) m.*/\1/p' "$tmp/avr.out")
ran=$(sed -n 's/.*stopped at \([0-9.]*\) s simulated.*/\1/p' "$tmp/avr.out")
lag=$(awk -v a="$began" -v b="$ended" -v c="${ran:-0}" 'BEGIN { printf "%.3f", b - a - c }')
slipped=$(awk -v a="$running" -v b="$ended" -v c="${ran:-0}" 'BEGIN { printf "%.3f", b - a - c }')
d=$(awk -v t="${truth:-0}" 'BEGIN { printf "%.3f", t - 1 }') # the room's start is x = 1.0
# How far the Create truly went: at most 0.2 m/s for the drive's whole run,
# settling included (its last line's t: the chip cannot have run longer),
# plus 1 cm; at least 0.2 m/s for the 2 s less the lag, less 5 cm: the
# Create's ramp and the first READY window take 3.3 cm (part 1), the rest
# is for the host's answer to a window. A speed sent double fails the
# first; half, the second while the chip keeps within 0.9 s of the wall
# clock, and a robot that does not move while it keeps within 1.75 s (part
# 1 holds the figures exactly, on the chip's clock alone).
awk -v d="$d" -v t="$(field t "$last")" -v lag="$lag" \
    'BEGIN { exit !(t + 0 > 0 && d <= 0.2 * t + 0.01 && d >= 0.2 * (2 - lag) - 0.05) }' &&
    pass "2 s at 0.2 m/s through the simulated ATmega168: the Create truly went $d m in the drive's $(field t "$last") s, the chip at most $lag s behind (real time)" ||
    fail "the Create went $d m in the drive's $(field t "$last") s, the chip $lag s behind (last: $last)"
# The driver's odometry: within 3 cm of that, and no more than 0.2 m/s x
# the lag beyond: a SENSORS that comes more than 0.3 s of the host's clock
# after the last one is taken for cycles lost on the line, whose motion the
# driver estimates at the speed it asked, over the host's seconds, which a
# chip held behind the wall clock did not all run.
awk -v x="${x:-0}" -v d="$d" -v lag="$lag" 'BEGIN { exit !(x >= d - 0.03 && x <= d + 0.03 + 0.2 * lag) }' &&
    pass "the driver's odometry x = $x m, the Create's $d m" ||
    fail "the driver's odometry x = $x m, the Create truly $d m, the chip $lag s behind"
# The link. The driver opens the line while the chip sends, as on a real
# serial line: the first bytes may be the tail of a SENSORS (at most its
# 54), which is one frame set aside. And the driver tells the program's
# bursts apart by 30 ms of quiet on its own clock: a machine that stops the
# harness that long in the middle of one splits it (a SENSORS set aside, at
# most its 54 bytes skipped, and a command sent into the split, its 4 bytes
# lost to the select line), and leaves the chip 25 ms further behind at
# least (the harness lets it lag 5 ms before it slips). Nothing else: with
# the chip on time, one frame at most and no byte lost (part 1: none of
# either).
splits=$(awk -v s="$slipped" 'BEGIN { printf "%d", (s > 0 ? s / 0.025 : 0) }')
rejected=$(field rejected "$last")
skipped=$(field skipped_bytes "$last")
lost=$(sed -n 's/.*bytes lost to the select line \([0-9]*\), to full buffers 0.*/\1/p' "$tmp/avr.out")
[ "${rejected:-999}" -le $((1 + splits)) ] && [ "${skipped:-99999}" -le $((54 * (1 + splits))) ] &&
    [ "${lost:-99999}" -le $((4 * splits)) ] &&
    pass "the link: $rejected frames rejected, $skipped bytes skipped, $lost lost to the select line (the chip slipped $slipped s behind)" ||
    fail "the link: $rejected frames rejected, $skipped bytes skipped, ${lost:-?} lost to the select line, the chip $slipped s behind: $last; $(grep lost "$tmp/avr.out")"
grep -q "to the Create, [1-9][0-9]* from it" "$tmp/avr.out" && pass "the Create answered over the switched USART" ||
    fail "no bytes from the Create"
# A step for each poll of the Create, the bytes of its reply and each
# READY window: hundreds a second of the chip's clock (part 1: 800); a busy
# pin the harness does not read as wired, none. At least 10 a simulated
# second.
loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/avr.out")
awk -v n="${loops:-0}" -v s="${ran:-0}" 'BEGIN { exit !(n > 0 && n >= 10 * s) }' &&
    pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/avr.out" | sed 's/.*loop: //')" ||
    fail "no loops timed"
[ -s "$tmp/avr.err" ] && fail "harness stderr: $(cat "$tmp/avr.err")"

finish "lobot-cm firmware"
