#!/bin/sh
# The base firmware built to speak Kobuki (firmware/base) in a simulated
# ATmega2560 on a simulated two-wheeled base (botwire-avr base-kobuki: two
# DC motors with a lag, friction and a weaker right motor, quadrature
# encoders, bumpers, a wall when asked). Judged by the plant's true pose,
# integrated from its wheels, never by what the firmware says of itself.
# usage: base_kobuki.sh BOTWIRE BOTWIRE_AVR FIRMWARE_ELF
set -u
bw=$1 avr=$2 elf=$3
. "$(dirname "$0")/../testlib.sh"

# truth FILE: "X Y HEADING PATH TURN BUMPS" from the harness's report.
truth() {
    sed -n 's/.*the base at x \([-0-9.]*\) m, y \([-0-9.]*\) m, heading \([-0-9.]*\) degrees (truth).*, \([0-9]*\) bumps; it went \([0-9.]*\) m and turned \([0-9.]*\) degrees.*/\1 \2 \3 \5 \6 \4/p' "$1"
}
# ticks_alone FILE: "X Y THETA(rad)" the firmware's ticks alone give, read
# as a Kobuki's over 230 mm (the harness's reading: no gyro, so the ticks'
# difference must carry the turn on its own).
ticks_alone() {
    sed -n 's/.*ticks alone (as a Kobuki.s, no gyro): x \([-0-9.]*\) m, y \([-0-9.]*\) m, heading \([-0-9.]*\) degrees.*/\1 \2 \3/p' "$1" |
        awk '{ printf "%s %s %.6f", $1, $2, $3 * atan2(0, -1) / 180 }'
}
# check_ticks FILE METRES DEGREES: the ticks' pose within that of the truth.
check_ticks() {
    read -r d dh <<T
$(apart $(ticks_alone "$1") $(truth "$1" | cut -d' ' -f1-3))
T
    awk -v d="${d:-9}" -v h="${dh:-99}" -v m="$2" -v g="$3" 'BEGIN { exit !(d <= m && h <= g) }' &&
        pass "the firmware's ticks alone, read as a Kobuki's over 230 mm, within $d m and $dh degrees of the truth" ||
        fail "the ticks alone: $(grep 'ticks alone' "$1") vs the truth: ${d:-?} m, ${dh:-?} degrees"
}
# apart X Y THETA(rad) TX TY THETA(deg): "metres degrees" between a pose
# and the truth.
apart() {
    awk -v x="$1" -v y="$2" -v th="$3" -v tx="$4" -v ty="$5" -v td="$6" 'BEGIN {
        pi = atan2(0, -1); d = th * 180 / pi - td
        while (d > 180) d -= 360
        while (d < -180) d += 360
        printf "%.4f %.3f", sqrt((x - tx)^2 + (y - ty)^2), (d < 0 ? -d : d) }'
}
# start_base NAME ARGS...: the harness on a pty $tmp/NAME, its output in
# $tmp/NAME.out as it comes.
start_base() {
    name=$1
    shift
    "$avr" base-kobuki "$elf" --pty "$tmp/$name" --for 120 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    chip=$!
    wait_line "$tmp/$name.out" "^botwire-avr: base-kobuki on /dev/" 20 ||
        { fail "the harness did not announce itself: $(cat "$tmp/$name.out" "$tmp/$name.err")"; exit 1; }
}
stop_base() {
    kill -INT "$chip"
    wait "$chip"
    status=$?
    chip=
    sed 's/^/  /' "$tmp/$1.out"
    [ "$status" = 0 ] && [ ! -s "$tmp/$1.err" ] && pass "harness stopped cleanly" ||
        fail "harness: status $status, $(cat "$tmp/$1.err")"
}

# 1. Simulated time (the chip's clock; nothing of the machine's load):
# botwire's Kobuki driver turns at 0.5 rad/s while going at 0.2 m/s for
# 4 s. Its odometry, from the ticks a Kobuki would have made on the same
# path, within 5 mm and 0.5 degrees of the truth; feedback at 50 Hz.
"$avr" base-kobuki "$elf" --drive 0.2 0.5 4 >"$tmp/virtual.out" 2>"$tmp/virtual.err"
status=$?
sed 's/^/  /' "$tmp/virtual.out"
[ "$status" = 0 ] && [ ! -s "$tmp/virtual.err" ] && pass "--drive in simulated time ran" ||
    fail "--drive: status $status, $(cat "$tmp/virtual.err")"
read -r tx ty th path turn bumps <<T
$(truth "$tmp/virtual.out")
T
ox=$(sed -n 's/.*odometry x \([-0-9.]*\) m.*/\1/p' "$tmp/virtual.out")
oy=$(sed -n 's/.*odometry x [-0-9.]* m, y \([-0-9.]*\) m.*/\1/p' "$tmp/virtual.out")
oh=$(sed -n 's/.*odometry .* heading \([-0-9.]*\) degrees.*/\1/p' "$tmp/virtual.out")
# 0.8 m along an arc of radius 0.4 m turning 2 rad: the truth ends near
# (0.364, 0.566), 114.6 degrees.
within "${path:-0}" 0.8 0.04 && within "${th:-0}" 114.6 4 &&
    pass "the plant went ${path} m, turning to $th degrees (asked: 0.8 m, 114.6 degrees)" ||
    fail "the plant: ${path:-?} m, heading ${th:-?} (asked: 0.8 m, 114.6 degrees)"
read -r d dh <<T
$(apart "${ox:-0}" "${oy:-0}" "$(awk -v h="${oh:-0}" 'BEGIN { print h * atan2(0, -1) / 180 }')" "${tx:-9}" "${ty:-9}" "${th:-0}")
T
awk -v d="$d" -v h="$dh" 'BEGIN { exit !(d <= 0.005 && h <= 0.5) }' &&
    pass "simulated time: the driver's odometry ($ox, $oy, $oh deg) within $d m and $dh degrees of the truth" ||
    fail "simulated time: odometry ($ox, $oy, $oh deg) vs truth ($tx, $ty, $th deg): $d m, $dh degrees"
check_ticks "$tmp/virtual.out" 0.005 0.5
frames=$(sed -n 's/.*online yes, \([0-9]*\) frames, 0 rejected.*/\1/p' "$tmp/virtual.out")
[ "${frames:-0}" -ge 245 ] && [ "${frames:-0}" -le 251 ] &&
    pass "feedback at 50 Hz: $frames frames in 5 s, none rejected" ||
    fail "feedback: ${frames:-no} frames in 5 s ($(grep odometry "$tmp/virtual.out"))"

# 2. Real time, the unmodified driver over a real pty: a 1 m square.
start_base square
"$bw" drive "kobuki:$tmp/square" --square 1 --v 0.3 --w 1.0 >"$tmp/square.drive" 2>"$tmp/square.derr"
dstatus=$?
summary=$(grep '"summary"' "$tmp/square.drive")
last=$(grep -v '"summary"\|"event"' "$tmp/square.drive" | tail -n 1)
stop_base square
[ "$dstatus" = 0 ] && echo "$summary" | grep -q '"complete":true' &&
    pass "the driver drove the square: $summary" || fail "square: status $dstatus, $summary $(cat "$tmp/square.derr")"
read -r tx ty th path turn bumps <<T
$(truth "$tmp/square.out")
T
within "${path:-0}" 4 0.1 && within "${turn:-0}" 360 10 &&
    pass "the plant went $path m and turned $turn degrees (a 1 m square: 4 m, 360)" ||
    fail "the plant went ${path:-?} m and turned ${turn:-?} degrees (a 1 m square: 4 m, 360)"
read -r d dh <<T
$(apart "$(field x "$last")" "$(field y "$last")" "$(field theta "$last")" "${tx:-9}" "${ty:-9}" "${th:-0}")
T
awk -v d="$d" -v h="$dh" 'BEGIN { exit !(d <= 0.02 && h <= 2) }' &&
    pass "the driver's odometry within $d m and $dh degrees of the true pose ($tx, $ty, $th deg)" ||
    fail "odometry $last vs truth ($tx, $ty, $th deg): $d m, $dh degrees"
check_ticks "$tmp/square.out" 0.02 2
[ "$(field rejected "$last")" = 0 ] && pass "no frame rejected" || fail "rejected frames: $last"

# 3. A host that stops talking while the wheels turn (SIGKILL: no stop
# sent): the Kobuki's command timeout (0.5 s) cuts the drive, and the
# wheels come to rest; then a wall 1.2 m ahead presses the centre bumper,
# which the driver reports as a Kobuki's.
start_base safety --wall 1.2
"$bw" drive "kobuki:$tmp/safety" --v 0.2 --for 60 >"$tmp/killed.drive" 2>&1 &
driver=$!
wait_line "$tmp/killed.drive" '"v":0\.1[5-9]\|"v":0\.2' 20 && pass "the base is moving" || fail "never moving: $(tail -n 2 "$tmp/killed.drive")"
kill -KILL "$driver"
wait "$driver" 2>/dev/null
wait_line "$tmp/safety.out" "the host quiet since" 20 ||
    fail "the wheels never came to rest after the host went quiet"
read -r quiet cut rest <<T
$(sed -n 's/.*the host quiet since \([0-9.]*\) s with the wheels turning; their drive cut at \([0-9.]*\) s, at rest at \([0-9.]*\) s.*/\1 \2 \3/p' "$tmp/safety.out")
T
# 0.5 s after the last byte the program stops; the loop sees it within a
# period (10 ms) and the drive reverses to brake.
awk -v q="${quiet:-0}" -v c="${cut:-0}" -v r="${rest:-0}" 'BEGIN { exit !(c - q >= 0.49 && c - q <= 0.53 && r - q <= 0.7) }' &&
    pass "host quiet at $quiet s: the drive cut at $cut s, the wheels at rest at $rest s (the timeout: 0.5 s)" ||
    fail "host quiet at ${quiet:-?} s: the drive cut at ${cut:-?} s, at rest at ${rest:-?} s"

"$bw" drive "kobuki:$tmp/safety" --v 0.3 --for 5 >"$tmp/bump.drive" 2>"$tmp/bump.err"
stop_base safety
grep -q '"event":"bump","on":true,"mask":2' "$tmp/bump.drive" &&
    pass "the wall pressed the centre bumper: $(grep '"event":"bump"' "$tmp/bump.drive" | head -n 1)" ||
    fail "no centre bump reported: $(grep event "$tmp/bump.drive") $(cat "$tmp/bump.err")"
read -r tx ty th path turn bumps <<T
$(truth "$tmp/safety.out")
T
within "${tx:-0}" 1.05 0.001 && [ "${bumps:-0}" -ge 1 ] &&
    pass "the plant stopped at the wall (x $tx m, $bumps bumps)" || fail "the plant at x ${tx:-?}, ${bumps:-?} bumps"

loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/square.out")
[ "${loops:-0}" -gt 1000 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/square.out" | sed 's/.*loop: //')" ||
    fail "loops timed: ${loops:-none}"

finish "base firmware (Kobuki)"
