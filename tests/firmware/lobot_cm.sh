#!/bin/sh
# The Command Module firmware in a simulated ATmega168 (botwire-avr, real
# time), its USART switched by PB4 between a real pty and the emulated
# Create: the unmodified lobot driver drives the Create through it.
# usage: lobot_cm.sh BOTWIRE BOTWIRE_AVR FIRMWARE_ELF
set -u
bw=$1 avr=$2 elf=$3
. "$(dirname "$0")/../testlib.sh"

start_firmware "$avr" lobot-cm "$elf" "$tmp/cm"

# 1. Two seconds at 0.2 m/s through the firmware: x = 0.40 m within 5 cm.
"$bw" drive "lobot:$tmp/cm" --v 0.2 --for 2 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
within "$x" 0.40 0.05 && pass "2 s at 0.2 m/s through the simulated ATmega168: x = $x m (real time)" ||
    fail "x = $x (last: $last)"
v=$(field v "$last")
within "$v" 0 0.01 && pass "stopped at the end (v = $v)" || fail "still moving at the end: v = $v"
rejected=$(field rejected "$last")
[ "$rejected" = 0 ] && pass "no frame rejected" || fail "$rejected frames rejected: $last"

# 2. The harness's report: the Create really moved, nothing was lost to the
# select line, and each loop of the firmware was timed in cycles.
stop_firmware
truth=$(sed -n 's/.*the Create at x \([0-9.-]*\) m.*/\1/p' "$tmp/avr.out")
# the room's start is x = 1.0
within "$truth" 1.40 0.05 && pass "the emulated Create moved to x = $truth m (truth)" ||
    fail "the Create is at x = $truth"
grep -q "to the Create, [1-9][0-9]* from it" "$tmp/avr.out" && pass "the Create answered over the switched USART" ||
    fail "no bytes from the Create"
grep -q "bytes lost to the select line 0, to full buffers 0" "$tmp/avr.out" &&
    pass "no byte lost to the select line" || fail "$(grep lost "$tmp/avr.out")"
loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/avr.out")
[ "${loops:-0}" -gt 100 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/avr.out" | sed 's/.*loop: //')" ||
    fail "no loops timed"
[ -s "$tmp/avr.err" ] && fail "harness stderr: $(cat "$tmp/avr.err")"

finish "lobot-cm firmware"
