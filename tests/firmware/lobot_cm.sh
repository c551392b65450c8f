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
# moves ahead and stops (how far 2 s take it depends on how the machine
# keeps up: part 1 measures that), its odometry within 3 cm of the truth.
start_firmware "$avr" lobot-cm "$elf" "$tmp/cm"
"$bw" drive "lobot:$tmp/cm" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
awk -v x="$x" 'BEGIN { exit !(x > 0.2 && x < 0.6) }' &&
    pass "2 s at 0.2 m/s through the simulated ATmega168: x = $x m (real time)" ||
    fail "x = $x (last: $last)"
v=$(field v "$last")
within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end: v = $v"
# The driver opens the line while the chip sends, as on a real serial
# line: the first bytes may be the tail of a SENSORS (at most its 54),
# which is one frame set aside. Nothing else.
rejected=$(field rejected "$last")
skipped=$(field skipped_bytes "$last")
[ "${rejected:-9}" -le 1 ] && [ "${skipped:-999}" -le 54 ] &&
    pass "no frame rejected but one cut by the opening ($rejected rejected, $skipped bytes skipped)" ||
    fail "$rejected frames rejected: $last"

# The harness's report: the Create really moved, nothing was lost to the
# select line, and each loop of the firmware was timed in cycles.
stop_firmware
truth=$(sed -n 's/.*the Create at x \([0-9.-]*\) m.*/\1/p' "$tmp/avr.out")
within "$truth" "$(awk -v x="$x" 'BEGIN { print x + 1 }')" 0.03 &&
    pass "the emulated Create truly moved to x = $truth m, odometry within 3 cm" ||
    fail "the Create is at x = $truth, odometry $x"
grep -q "to the Create, [1-9][0-9]* from it" "$tmp/avr.out" && pass "the Create answered over the switched USART" ||
    fail "no bytes from the Create"
grep -q "bytes lost to the select line 0, to full buffers 0" "$tmp/avr.out" &&
    pass "no byte lost to the select line" || fail "$(grep lost "$tmp/avr.out")"
loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/avr.out")
[ "${loops:-0}" -gt 100 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/avr.out" | sed 's/.*loop: //')" ||
    fail "no loops timed"
[ -s "$tmp/avr.err" ] && fail "harness stderr: $(cat "$tmp/avr.err")"

finish "lobot-cm firmware"
