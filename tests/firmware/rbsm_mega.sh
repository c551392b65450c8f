#!/bin/sh
# The RoboBuggy Mega firmware in a simulated ATmega2560 (botwire-avr): the
# rbsm driver steers and brakes the emulated buggy through it, first in the
# chip's simulated time (the figures: nothing of the machine's load in
# them), then unmodified in real time over a real pty.
# usage: rbsm_mega.sh BOTWIRE BOTWIRE_AVR FIRMWARE_ELF
set -u
bw=$1 avr=$2 elf=$3
. "$(dirname "$0")/../testlib.sh"

# truth_of FILE: "X Y HEADING TICKS TOLD" from the harness's report; the
# lot's start is (10, 20), heading 0.
truth_of() {
    sed -n 's/.*the buggy at x \([-0-9.]*\) m, y \([-0-9.]*\) m, heading \([-0-9.]*\) degrees (truth).*, \([0-9]*\) encoder ticks (the firmware.s last report: \([-0-9]*\)).*/\1 \2 \3 \4 \5/p' "$1"
}
# off OX OY TX TY: the distance between odometry and the true pose.
off() { awk -v a="$1" -v b="$2" -v c="$3" -v e="$4" 'BEGIN { printf "%.4f", sqrt((a - c + 10)^2 + (b - e + 20)^2) }'; }

# 1. Simulated time: pushed off at 2 m/s, steered at 0.2 rad/s for 3 s,
# braked to rest. Every encoder edge reaches the host, and the driver's
# estimate stays within one encoder tick (87 mm) of the true pose.
"$avr" rbsm-mega "$elf" --drive 2 0.2 3 >"$tmp/virtual.out" 2>"$tmp/virtual.err"
status=$?
sed 's/^/  /' "$tmp/virtual.out"
[ "$status" = 0 ] && [ ! -s "$tmp/virtual.err" ] && pass "--drive in simulated time ran" ||
    fail "--drive: status $status, $(cat "$tmp/virtual.err")"
read -r tx ty th ticks told <<T
$(truth_of "$tmp/virtual.out")
T
ox=$(sed -n 's/.*odometry x \([-0-9.]*\) m.*/\1/p' "$tmp/virtual.out")
oy=$(sed -n 's/.*odometry x [-0-9.]* m, y \([-0-9.]*\) m.*/\1/p' "$tmp/virtual.out")
awk -v th="$th" -v x="$tx" 'BEGIN { exit !(th > 20 && x > 13) }' &&
    pass "simulated time: the buggy rolled and turned: truth ($tx, $ty), heading $th degrees" ||
    fail "simulated time: the buggy did not steer: truth ($tx, $ty), heading $th"
[ -n "$ticks" ] && [ "$ticks" -gt 50 ] && [ "$told" = "$ticks" ] &&
    pass "every encoder edge counted by the firmware: $ticks made, $told reported" ||
    fail "encoder: ${ticks:-?} ticks made, the firmware reported ${told:-?}"
d=$(off "$ox" "$oy" "$tx" "$ty")
awk -v d="$d" 'BEGIN { exit !(d <= 0.087) }' &&
    pass "simulated time: driver odometry ($ox, $oy) within $d m of the true pose (one tick: 0.087 m)" ||
    fail "simulated time: odometry ($ox, $oy) vs true ($tx, $ty) - (10, 20): $d m off"
grep -q "online yes, [1-9][0-9]* frames, 0 rejected" "$tmp/virtual.out" &&
    pass "simulated time: online to the end, no frame rejected" || fail "$(grep odometry "$tmp/virtual.out")"

# 2. Real time over a pty, the unmodified driver as a user runs it.
start_firmware "$avr" rbsm-mega "$elf" "$tmp/mega"

# 2a. Steering alone (v = 0): the Mega keeps the brake down, the buggy stays.
"$bw" drive "rbsm:$tmp/mega" --w 0.2 --for 2 >"$tmp/steer.out" 2>"$tmp/steer.err"
status=$?
last=$(tail -n 1 "$tmp/steer.out")
x=$(field x "$last")
[ "$status" = 0 ] && within "$x" 0 0.001 && echo "$last" | grep -q '"brake":true' &&
    pass "--w 0.2 with v = 0: braked, x = $x" || fail "--w 0.2: status $status, $last, $(cat "$tmp/steer.err")"
# The driver opens the line while the Mega sends, as on a real serial
# line: the first bytes may be the tail of a message (at most 5 of its 6),
# one frame set aside. Nothing else.
rejected=$(field rejected "$last")
skipped=$(field skipped_bytes "$last")
echo "$last" | grep -q '"mode":"auton"' && [ "${rejected:-9}" -le 1 ] && [ "${skipped:-99}" -le 5 ] &&
    pass "the Mega reports auton, no frame rejected but one cut by the opening" || fail "$last"

# 2b. Released, pushed off, steered at 0.2 rad/s for 3 s, braked to a stop.
"$bw" drive "rbsm:$tmp/mega" --v 2 --w 0.2 --for 3 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
[ "$status" = 0 ] || fail "drive exited $status: $(cat "$tmp/drive.err")"
echo "$last" | grep -q '"brake":true' && within "$(field v "$last")" 0 0.001 &&
    pass "braked to a stop through the firmware" || fail "not stopped: $last"

stop_firmware
read -r tx ty th ticks told <<T
$(truth_of "$tmp/avr.out")
T
awk -v th="$th" -v x="$tx" 'BEGIN { exit !(th > 20 && x > 13) }' &&
    pass "the buggy rolled and turned: truth ($tx, $ty), heading $th degrees" ||
    fail "the buggy did not steer: truth ($tx, $ty), heading $th"
grep -q "brake down" "$tmp/avr.out" && pass "the brake relay is down at the end" || fail "brake not down"
[ -n "$ticks" ] && [ "$ticks" -gt 50 ] && [ "$told" = "$ticks" ] &&
    pass "real time: every encoder edge counted: $ticks made, $told reported" ||
    fail "real time: ${ticks:-?} ticks made, the firmware reported ${told:-?}"
ox=$(field x "$last")
oy=$(field y "$last")
d=$(off "$ox" "$oy" "$tx" "$ty")
# The estimate between ticks runs on the host's clock, the buggy on the
# chip's; on a loaded machine the two drift apart by centimetres (5.1 cm
# seen), which part 1 measures without. Here: the driver keeps track.
awk -v d="$d" 'BEGIN { exit !(d <= 0.25) }' &&
    pass "real time: driver odometry ($ox, $oy) within $d m of the true pose" ||
    fail "real time: odometry ($ox, $oy) vs true ($tx, $ty) - (10, 20): $d m off"
loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/avr.out")
[ "${loops:-0}" -gt 300 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/avr.out" | sed 's/.*loop: //')" ||
    fail "loops timed: ${loops:-none}"
[ -s "$tmp/avr.err" ] && fail "harness stderr: $(cat "$tmp/avr.err")"

finish "rbsm-mega firmware"
