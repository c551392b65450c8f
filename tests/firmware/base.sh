#!/bin/sh
# The base firmware (firmware/base) in a simulated ATmega2560 on a
# simulated two-wheeled base (botwire-avr base-PROTO: two DC motors with a
# lag, friction and a weaker right motor, quadrature encoders, bumpers, a
# wall when asked), built to speak PROTO: kobuki or create2. Judged by the
# plant's true pose, integrated from its wheels, never by what the firmware
# says of itself.
# usage: base.sh PROTO BOTWIRE BOTWIRE_AVR FIRMWARE_ELF [WATCHDOG_ELF]
# (create2: WATCHDOG_ELF, the build with BASE_OI_WATCHDOG_MS=500)
set -u
proto=$1 bw=$2 avr=$3 elf=$4 watchdog_elf=${5:-}
board=base-$proto
case $proto in
kobuki) url_of() { echo "kobuki:$1"; } ;;
create2) url_of() { echo "create:$1?model=create2"; } ;;
*) echo "base.sh: no protocol $proto" >&2; exit 2 ;;
esac
. "$(dirname "$0")/../testlib.sh"
driver= # a drive in the background, stopped on exit as the harness is
cleanup() {
    [ -n "$driver" ] && kill "$driver" 2>/dev/null
    [ -n "$chip" ] && kill "$chip" 2>/dev/null
}

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
# wait_after OFFSET FILE PATTERN SECONDS: wait_line on what FILE gets past
# its first OFFSET bytes (a line about what happens after now, not before).
wait_after() {
    timeout "$4" tail -c +$(($1 + 1)) -F "$2" 2>/dev/null | grep -q -m 1 -e "$3"
}
# start_base NAME ARGS...: the harness on a pty $tmp/NAME, its output in
# $tmp/NAME.out as it comes. (Its --for only ends a harness the test lost;
# stop_base ends it. The 60 s for its first line only catch a harness that
# hangs: it prints it before the chip's first cycle.)
start_base() {
    name=$1
    shift
    "$avr" "$board" "$elf" --pty "$tmp/$name" --for 600 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    chip=$!
    wait_line "$tmp/$name.out" "^botwire-avr: $board on /dev/" 60 ||
        { fail "the harness did not announce itself: $(cat "$tmp/$name.out" "$tmp/$name.err")"; exit 1; }
}
# drive_until NAME PATTERN1 PATTERN2 URL ARGS...: `botwire drive URL
# ARGS...` ($tmp/NAME.drive) until it prints a line matching PATTERN2 at or
# after one matching PATTERN1, then SIGINT: the drive stops the robot and
# ends with its last line (exit 130). Timed by what the robot does, not by
# a --for that a chip the machine holds back may not fill (the chip runs
# behind the host's clock then). False if that line never came: 60 s only
# catch a robot that never gets there.
drive_until() {
    name=$1 first=$2 then=$3
    shift 3
    "$bw" drive "$@" --for 600 >"$tmp/$name.drive" 2>"$tmp/$name.err" &
    driver=$!
    timeout 60 tail -n +1 -F "$tmp/$name.drive" 2>/dev/null |
        awk -v a="$first" -v b="$then" '$0 ~ a { seen = 1 } seen && $0 ~ b { found = 1; exit } END { exit !found }'
    came=$?
    kill -INT "$driver"
    wait "$driver"
    driver=
    return $came
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
# botwire's driver turns at 0.5 rad/s while going at 0.2 m/s for 4 s. Its
# odometry, from the ticks or counts a Kobuki or a Create 2 would have made
# on the same path, within 5 mm and 0.5 degrees of the truth.
"$avr" "$board" "$elf" --drive 0.2 0.5 4 >"$tmp/virtual.out" 2>"$tmp/virtual.err"
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
# An arc of radius 0.4 m: 0.8 m and 114.6 degrees in 4 s (the Create's
# driver starts it some 70 ms late: 0.786 m); the ratio is the command's.
awk -v p="${path:-0}" -v t="${turn:-0}" 'BEGIN { exit !(p > 0.76 && p < 0.82 && t / p > 139 && t / p < 147.5) }' &&
    pass "the plant went ${path} m, turning $turn degrees (asked: 0.8 m, 143.2 degrees a metre)" ||
    fail "the plant: ${path:-?} m, ${turn:-?} degrees (asked: 0.8 m, 143.2 degrees a metre)"
read -r d dh <<T
$(apart "${ox:-0}" "${oy:-0}" "$(awk -v h="${oh:-0}" 'BEGIN { print h * atan2(0, -1) / 180 }')" "${tx:-9}" "${ty:-9}" "${th:-0}")
T
awk -v d="$d" -v h="$dh" 'BEGIN { exit !(d <= 0.005 && h <= 0.5) }' &&
    pass "simulated time: the driver's odometry ($ox, $oy, $oh deg) within $d m and $dh degrees of the truth" ||
    fail "simulated time: odometry ($ox, $oy, $oh deg) vs truth ($tx, $ty, $th deg): $d m, $dh degrees"
frames=$(sed -n 's/.*online yes, \([0-9]*\) frames, 0 rejected.*/\1/p' "$tmp/virtual.out")
case $proto in
kobuki)
    check_ticks "$tmp/virtual.out" 0.005 0.5
    # every 20 ms
    [ "${frames:-0}" -ge 245 ] && [ "${frames:-0}" -le 251 ] &&
        pass "feedback at 50 Hz: $frames frames in 5 s, none rejected" ||
        fail "feedback: ${frames:-no} frames in 5 s ($(grep odometry "$tmp/virtual.out"))" ;;
create2)
    # every 15 ms from the Stream command on, on the 10 ms periods
    [ "${frames:-0}" -ge 320 ] && [ "${frames:-0}" -le 334 ] &&
        pass "the stream at 66 Hz: $frames frames in 5 s, none rejected" ||
        fail "stream: ${frames:-no} frames in 5 s ($(grep odometry "$tmp/virtual.out"))" ;;
esac

# 2. Real time, the unmodified driver over a real pty: a 1 m square.
start_base square
"$bw" drive "$(url_of "$tmp/square")" --square 1 --v 0.3 --w 1.0 >"$tmp/square.drive" 2>"$tmp/square.derr"
dstatus=$?
summary=$(grep '"summary"' "$tmp/square.drive")
last=$(grep -v '"summary"\|"event"' "$tmp/square.drive" | tail -n 1)
stop_base square
[ "$dstatus" = 0 ] && echo "$summary" | grep -q '"complete":true' &&
    pass "the driver drove the square: $summary" || fail "square: status $dstatus, $summary $(cat "$tmp/square.derr")"
read -r tx ty th path turn bumps <<T
$(truth "$tmp/square.out")
T
# (at least: a driver the machine holds back goes past a corner and back)
awk -v p="${path:-0}" -v t="${turn:-0}" 'BEGIN { exit !(p >= 3.9 && t >= 350) }' &&
    pass "the plant went $path m and turned $turn degrees (a 1 m square: 4 m, 360)" ||
    fail "the plant went ${path:-?} m and turned ${turn:-?} degrees (a 1 m square: 4 m, 360)"
# (the driver's last state, once it saw the base at rest: the plant stops
# from the square's last slow turn in a tenth of a second of the chip's
# clock, well inside the drive's 2 s of waiting for it on the host's)
read -r d dh <<T
$(apart "$(field x "$last")" "$(field y "$last")" "$(field theta "$last")" "${tx:-9}" "${ty:-9}" "${th:-0}")
T
awk -v d="$d" -v h="$dh" 'BEGIN { exit !(d <= 0.02 && h <= 2) }' &&
    pass "the driver's odometry within $d m and $dh degrees of the true pose ($tx, $ty, $th deg)" ||
    fail "odometry $last vs truth ($tx, $ty, $th deg): $d m, $dh degrees"
[ "$proto" = kobuki ] && check_ticks "$tmp/square.out" 0.02 2
[ "$(field rejected "$last")" = 0 ] && pass "no frame rejected" || fail "rejected frames: $last"

# 3. A wall 0.6 m ahead presses the bumper, which the driver reports; then
# a host that stops talking while the wheels turn (SIGKILL: no stop sent).
# A Kobuki's command timeout (0.5 s) cuts the drive and the wheels come to
# rest; a Create 2 turns on (the OI has no watchdog).
start_base safety --wall 0.6
case $proto in
kobuki) bump='"event":"bump","on":true,"mask":2' ;;
create2) bump='"event":"bump","on":true,"mask":5' ;; # a hit at the centre closes both switches
esac
# (driven until the driver reports the bump: 1.5 s of the chip's time at
# 0.3 m/s, however long the machine takes to run them)
drive_until bump "$bump" "$bump" "$(url_of "$tmp/safety")" --v 0.3 &&
    pass "the wall pressed the bumper at its centre: $(grep '"event":"bump"' "$tmp/bump.drive" | head -n 1)" ||
    fail "no centre bump reported: $(grep event "$tmp/bump.drive") $(cat "$tmp/bump.err")"

# The host killed while it talks: its last line online, the driver taking
# each feedback frame and answering it with its command. A chip the machine
# holds back past the driver's link timeout leaves it with no frames to
# answer (the line says offline), its last bytes then not a command: that
# kill is no test of the timeout, and another driver is started and killed
# (five tries only catch a driver never online).
tries=0
while :; do
    tries=$((tries + 1))
    "$bw" drive "$(url_of "$tmp/safety")" --w 0.8 --for 60 >"$tmp/killed.drive" 2>&1 &
    driver=$!
    # (any turn: a chip held back by a loaded machine runs slower than the
    # host's clock, by which the Create's driver times its odometry; 60 s
    # only catch a base that never turns)
    wait_line "$tmp/killed.drive" '"w":0\.[1-9]\|"w":1\.' 60 || fail "never turning: $(tail -n 2 "$tmp/killed.drive")"
    # what the harness says from here on is about the silence to come (a
    # host that ends its session stops the wheels at the acceleration
    # limit, and the harness tells of that too)
    offset=$(wc -c <"$tmp/safety.out")
    kill -KILL "$driver"
    wait "$driver" 2>/dev/null
    driver=
    grep -v '"event"' "$tmp/killed.drive" | tail -n 1 | grep -q '"online":true' && break
    [ "$tries" -lt 5 ] || break
done
pass "the base was turning when its host was killed (try $tries): $(tail -n 1 "$tmp/killed.drive")"
case $proto in
kobuki)
    # (60 s only catch wheels that never stop: the chip takes 0.5 s of its
    # own time, however long the machine makes them)
    wait_after "$offset" "$tmp/safety.out" "the host quiet since" 60 ||
        fail "the wheels never came to rest after the host went quiet"
    read -r silent cut rest <<T
$(tail -c +$((offset + 1)) "$tmp/safety.out" | sed -n 's/.*the host quiet since \([0-9.]*\) s with the wheels turning; their drive cut at \([0-9.]*\) s, at rest at \([0-9.]*\) s.*/\1 \2 \3/p' | head -n 1)
T
    # 0.5 s after the last byte the program stops; the loop sees it within
    # a period (10 ms) and the drive reverses to brake.
    awk -v q="${silent:-0}" -v c="${cut:-0}" -v r="${rest:-0}" 'BEGIN { exit !(c - q >= 0.49 && c - q <= 0.53 && r - q <= 0.7) }' &&
        pass "host quiet at $silent s: the drive cut at $cut s, the wheels at rest at $rest s (the timeout: 0.5 s)" ||
        fail "host quiet at ${silent:-?} s: the drive cut at ${cut:-?} s, at rest at ${rest:-?} s" ;;
create2)
    # two seconds of the chip's time, however long the machine takes (60 s
    # of the wall clock only catch a harness that hangs)
    wait_after "$offset" "$tmp/safety.out" "the host quiet for 2 s" 60 &&
        pass "a Create 2 drives on when its host has gone: $(grep 'quiet for 2 s' "$tmp/safety.out" | sed 's/botwire-avr: //')" ||
        fail "the wheels did not turn on for 2 s after the host went quiet: $(grep quiet "$tmp/safety.out")"
    tail -c +$((offset + 1)) "$tmp/safety.out" | grep -q "the host quiet since" &&
        fail "the wheels stopped: $(grep 'quiet since' "$tmp/safety.out")" ;;
esac
stop_base safety
read -r tx ty th path turn bumps <<T
$(truth "$tmp/safety.out")
T
within "${tx:-0}" 0.45 0.001 && [ "${bumps:-0}" -ge 1 ] &&
    pass "the plant stopped at the wall (x $tx m, $bumps bumps)" || fail "the plant at x ${tx:-?}, ${bumps:-?} bumps"

# 4. The floor ends 0.6 m ahead: the front cliff sensor passes the edge
# when the centre is at 0.45 m. A Kobuki reports it and drives on (its
# host decides); a Create 2 in Safe mode stops the wheels itself and drops
# to Passive, as the OI does.
start_base edge --cliff 0.6
case $proto in
kobuki) url="kobuki:$tmp/edge" front="4" ;; # BW_CLIFF_FRONT
create2) url="create:$tmp/edge?model=create2&mode=safe" front="2 8" ;; # front left, front right
esac
# Driven until what the base does at the edge has happened, by the
# driver's own lines (a chip the machine holds back takes longer than 4 s
# of the host's clock to get there): a Kobuki's odometry 0.65 m along, past
# the edge (its odometry is the plant's within millimetres, part 2); a
# Create 2 in Passive after the cliff.
case $proto in
kobuki) drive_until edge '"event":"cliff","on":true' '"x":(0[.](6[5-9]|[7-9])|[1-9])' "$url" --v 0.2 ;;
create2) drive_until edge '"event":"cliff","on":true' '"mode":"passive"' "$url" --v 0.2 ;;
esac || fail "the drive towards the edge: $(tail -n 3 "$tmp/edge.drive") $(cat "$tmp/edge.err")"
stop_base edge
# the first cliff the driver heard has the front sensor's bit (a driver the
# machine holds back may first hear the side sensors' too)
first=$(grep -m 1 '"event":"cliff","on":true' "$tmp/edge.drive")
awk -v m="$(field mask "$first")" -v bits="$front" 'BEGIN {
        if (m == "") exit 1
        n = split(bits, b, " ")
        for (i = 1; i <= n; i++) if (int(m / b[i]) % 2 != 1) exit 1 }' &&
    pass "the edge under the front cliff sensor reported: $first" ||
    fail "no front cliff reported: $(grep event "$tmp/edge.drive") $(cat "$tmp/edge.err")"
read -r tx ty th path turn bumps <<T
$(truth "$tmp/edge.out")
T
case $proto in
kobuki)
    awk -v x="${tx:-0}" 'BEGIN { exit !(x > 0.6) }' &&
        pass "a Kobuki drives on over the edge (x $tx m): stopping is its host's" ||
        fail "the Kobuki base stopped at x ${tx:-?} m by itself" ;;
create2)
    awk -v x="${tx:-0}" 'BEGIN { exit !(x >= 0.45 && x <= 0.47) }' &&
        tail -n 1 "$tmp/edge.drive" | grep -q '"mode":"passive"' &&
        pass "Safe mode stopped the wheels at the edge (x $tx m, the sensor over it at 0.45) and left Passive" ||
        fail "Safe mode at the edge: x ${tx:-?} m, $(tail -n 1 "$tmp/edge.drive")" ;;
esac

# 4b. The same edge met on an arc, in the chip's simulated time: turning
# left (0.25 rad/s at 0.2 m/s) the right sensor passes the edge first, at a
# heading of about 35 degrees and 0.16 s before the centre's; turning right,
# the left. The first cliff the driver hears is that side's, not the other.
for arc in "0.25 right 16 left 1" "-0.25 left 1 right 16"; do # BW_CLIFF_RIGHT, BW_CLIFF_LEFT
    set -- $arc
    "$avr" "$board" "$elf" --drive 0.2 "$1" 4 --cliff 0.6 >"$tmp/arc.out" 2>"$tmp/arc.err"
    first=$(grep -m 1 "heard cliff on" "$tmp/arc.out")
    m=$(echo "$first" | sed -n 's/.*mask \([0-9]*\),.*/\1/p')
    awk -v m="${m:-0}" -v yes="$3" -v no="$5" 'BEGIN { exit !(int(m / yes) % 2 == 1 && int(m / no) % 2 == 0) }' &&
        pass "turning at $1 rad/s towards the edge: the $2 cliff first ($(echo "$first" | sed 's/botwire-avr: //'))" ||
        fail "turning at $1 rad/s: wanted the $2 cliff first, not the $4: $(grep heard "$tmp/arc.out") $(cat "$tmp/arc.err")"
done

# 5. The Create 2 built with the watchdog the OI has not (500 ms): a host
# that sends Drive every 100 ms (Start, Full, then Drive 100 mm/s turning
# in place, ten times) and falls silent has the wheels cut as a Kobuki's
# are. (botwire's driver sends a Drive only when the speed changes: such a
# build stops it every half second, which is why the option is off.)
if [ -n "$watchdog_elf" ]; then
    plain=$elf
    elf=$watchdog_elf
    start_base watchdog
    (
        exec 3>"$tmp/watchdog"
        printf '\200\204' >&3
        for i in 1 2 3 4 5 6 7 8 9 10; do
            printf '\211\000\144\000\001' >&3
            sleep 0.1 # the host's own pace, not a wait for anything
        done
    )
    # (0.5 s of the chip's time; 60 s only catch wheels that never stop)
    wait_line "$tmp/watchdog.out" "the host quiet since" 60 ||
        fail "the watchdog build's wheels never came to rest after the host went quiet"
    # the last silence is the host's end (a machine that held the host back
    # longer than the watchdog may have made one before)
    read -r silent cut rest <<T
$(sed -n 's/.*the host quiet since \([0-9.]*\) s with the wheels turning; their drive cut at \([0-9.]*\) s, at rest at \([0-9.]*\) s.*/\1 \2 \3/p' "$tmp/watchdog.out" | tail -n 1)
T
    stop_base watchdog
    awk -v q="${silent:-0}" -v c="${cut:-0}" -v r="${rest:-0}" 'BEGIN { exit !(c - q >= 0.49 && c - q <= 0.53 && r - q <= 0.7) }' &&
        pass "watchdog build: host quiet at $silent s, the drive cut at $cut s, at rest at $rest s" ||
        fail "watchdog build: host quiet at ${silent:-?} s, the drive cut at ${cut:-?} s, at rest at ${rest:-?} s"
    elf=$plain
fi

loops=$(sed -n 's/.*firmware loop: \([0-9]*\) loops.*/\1/p' "$tmp/square.out")
[ "${loops:-0}" -gt 1000 ] && pass "firmware loop timed in simulated cycles: $(grep 'firmware loop' "$tmp/square.out" | sed 's/.*loop: //')" ||
    fail "loops timed: ${loops:-none}"

finish "base firmware ($proto)"
