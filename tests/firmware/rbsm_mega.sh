#!/bin/sh
# The RoboBuggy Mega firmware in a simulated ATmega2560 (botwire-avr, real
# time): the unmodified rbsm driver steers and brakes the emulated buggy
# through it, over a real pty.
# usage: rbsm_mega.sh BOTWIRE BOTWIRE_AVR FIRMWARE_ELF
set -u
bw=$1 avr=$2 elf=$3
. "$(dirname "$0")/../testlib.sh"

start_firmware "$avr" rbsm-mega "$elf" "$tmp/mega"

# 1. Steering alone (v = 0): the Mega keeps the brake down, the buggy stays.
"$bw" drive "rbsm:$tmp/mega" --w 0.2 --for 2 >"$tmp/steer.out" 2>"$tmp/steer.err"
status=$?
last=$(tail -n 1 "$tmp/steer.out")
x=$(field x "$last")
[ "$status" = 0 ] && within "$x" 0 0.001 && echo "$last" | grep -q '"brake":true' &&
    pass "--w 0.2 with v = 0: braked, x = $x" || fail "--w 0.2: status $status, $last, $(cat "$tmp/steer.err")"
echo "$last" | grep -q '"mode":"auton"' && echo "$last" | grep -q '"rejected":0' &&
    pass "the Mega reports auton, no frame rejected" || fail "$last"

# 2. Released, pushed off, steered at 0.2 rad/s for 3 s, braked to a stop.
"$bw" drive "rbsm:$tmp/mega" --v 2 --w 0.2 --for 3 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
echo "$last" | grep -q '"brake":true' && within "$(field v "$last")" 0 0.001 &&
    pass "braked to a stop through the firmware" || fail "not stopped: $last"

stop_firmware
# "the buggy at x X m, y Y m, heading H degrees (truth), ...": the lot's
# start is (10, 20), heading 0.
tx=$(sed -n 's/.*the buggy at x \([-0-9.]*\) m.*/\1/p' "$tmp/avr.out")
ty=$(sed -n 's/.*the buggy at x [-0-9.]* m, y \([-0-9.]*\) m.*/\1/p' "$tmp/avr.out")
th=$(sed -n 's/.*heading \([-0-9.]*\) degrees (truth).*/\1/p' "$tmp/avr.out")
awk -v th="$th" -v x="$tx" 'BEGIN { exit !(th > 20 && x > 13) }' &&
    pass "the buggy rolled and turned: truth ($tx, $ty), heading $th degrees" ||
    fail "the buggy did not steer: truth ($tx, $ty), heading $th"
grep -q "brake down" "$tmp/avr.out" && pass "the brake relay is down at the end" || fail "brake not down"
ox=$(field x "$last")
oy=$(field y "$last")
d=$(awk -v a="$ox" -v b="$oy" -v c="$tx" -v e="$ty" 'BEGIN { printf "%.3f", sqrt((a - c + 10)^2 + (b - e + 20)^2) }')
# As against the bare emulator: the pot through a 10-bit ADC and the
# encoder's edges through INT0 keep the driver's estimate within 5 cm.
awk -v d="$d" 'BEGIN { exit !(d <= 0.05) }' &&
    pass "driver odometry ($ox, $oy) within $d m of the true pose" ||
    fail "odometry ($ox, $oy) vs true ($tx, $ty) - (10, 20): $d m off"
loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/avr.out")
[ "${loops:-0}" -gt 300 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/avr.out" | sed 's/.*loop: //')" ||
    fail "loops timed: ${loops:-none}"
[ -s "$tmp/avr.err" ] && fail "harness stderr: $(cat "$tmp/avr.err")"

finish "rbsm-mega firmware"
