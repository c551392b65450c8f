#!/bin/sh
# `botwire drive`, `sim`, `record` and `demo` on the command line, in virtual
# time (--fast) where a robot moves.
# usage: cli_drive.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/testlib.sh"

# A 1 m square, by odometry, in virtual time: back to the start, a line at
# each corner, a summary at the end.
"$bw" drive sim:kobuki --fast --square 1 >"$tmp/sq.out" 2>"$tmp/sq.err"
status=$?
last=$(grep '"online"' "$tmp/sq.out" | tail -n 1)
x=$(field x "$last")
y=$(field y "$last")
th=$(field theta "$last")
[ "$status" = 0 ] && within "$x" 0 0.02 && within "$y" 0 0.02 && within "$th" 0 0.035 &&
    pass "square closes: x=$x y=$y theta=$th" || fail "square: status $status, $last"
n=$(grep -c '"online":true' "$tmp/sq.out")
[ "$n" -ge 300 ] && pass "square: $n state lines" || fail "square: $n state lines"
corners=$(grep -c '"event":"corner"' "$tmp/sq.out")
[ "$corners" = 4 ] && grep -q '"event":"corner","corner":4' "$tmp/sq.out" &&
    pass "square: a line at each of the 4 corners" || fail "square: $corners corner lines"
summary=$(tail -n 1 "$tmp/sq.out")
d=$(field distance "$summary")
c=$(field closure "$summary")
case $summary in *'"summary":"square"'*'"complete":true'*) ok=1 ;; *) ok=0 ;; esac
[ "$ok" = 1 ] && within "$d" 4 0.05 && within "$c" 0 0.02 &&
    pass "square summary: distance $d m, closure $c m" || fail "square summary: $summary"

# Straight into the box: a bump event, and the robot ends at the box.
"$bw" drive sim:kobuki --fast --v 0.3 --for 10 >"$tmp/bump.out" 2>&1
grep -q '"event":"bump","on":true,"mask":2' "$tmp/bump.out" && pass "bump event reported" ||
    fail "no bump event"
x=$(field x "$(tail -n 1 "$tmp/bump.out")")
within "$x" 1.823 0.01 && pass "stopped at the box: x=$x" || fail "x=$x at the end"

# A square too big for the room: the box stops it early, status 1.
expect_failure "square stopped by a bump" 1 "square stopped early by a bump event" \
    "$bw" drive sim:kobuki --fast --square 3
grep -q '"event":"bump"' "$tmp/out" && pass "the bump is in the output too" || fail "bump not in the output"

# The same for a Pioneer, through the P2OS handshake, in virtual time.
"$bw" drive sim:p2os --fast --square 1 >"$tmp/p2.out" 2>"$tmp/p2.err"
status=$?
last=$(grep '"online"' "$tmp/p2.out" | tail -n 1)
x=$(field x "$last")
y=$(field y "$last")
[ "$status" = 0 ] && within "$x" 0 0.02 && within "$y" 0 0.02 &&
    pass "p2os square closes: x=$x y=$y" || fail "p2os square: status $status, $last, $(cat "$tmp/p2.err")"
"$bw" drive "sim:p2os?model=p2pb" --fast --v 0.3 --for 12 >"$tmp/pb.out" 2>&1
grep -q '"event":"bump","on":true,"mask":2' "$tmp/pb.out" && pass "PeopleBot bump reported" ||
    fail "no PeopleBot bump: $(tail -n 3 "$tmp/pb.out")"

# A world from a file.
"$bw" drive "sim:kobuki?world=$data/worlds/corridor.world" --fast --v 0.2 --for 1 >"$tmp/w.out" 2>&1 &&
    pass "drive in a world file" || fail "world file: $(tail -n 2 "$tmp/w.out")"

# A noisy wire, end to end: one bit in a thousand flipped both ways. The
# square ends within 3 cm of the same run on a clean wire, no bump, cliff or
# other phantom event is reported, and the last line counts what the
# checksums and the plausibility checks threw out.
for family in kobuki p2os; do
    for seed in 1 2 3; do
        "$bw" drive "sim:$family?seed=$seed" --fast --square 1 >"$tmp/clean.out" 2>&1
        "$bw" drive "sim:$family?seed=$seed&ber=1e-3" --fast --square 1 >"$tmp/noisy.out" 2>&1
        status=$?
        c=$(grep '"online"' "$tmp/clean.out" | tail -n 1)
        n=$(grep '"online"' "$tmp/noisy.out" | tail -n 1)
        dx=$(awk -v a="$(field x "$c")" -v b="$(field x "$n")" -v c="$(field y "$c")" \
            -v d="$(field y "$n")" 'BEGIN { print sqrt((a - b) ^ 2 + (c - d) ^ 2) }')
        phantom=$(grep -c '"event":"\(bump\|cliff\|wheel_drop\|button\|power\|stall\)"' "$tmp/noisy.out")
        summary=$(tail -n 1 "$tmp/noisy.out")
        rejected=$(field rejected "$summary")
        case $summary in *'"implausible":'*) counted=1 ;; *) counted=0 ;; esac
        if [ "$status" = 0 ] && within "$dx" 0 0.03 && [ "$phantom" = 0 ] && [ "$counted" = 1 ] &&
            [ "$rejected" -gt 0 ]; then
            pass "$family, seed $seed, BER 1e-3 both ways: ends $dx m from the clean run, no phantom event, $rejected frames rejected, $(field implausible "$summary") implausible"
        else
            fail "$family seed $seed noisy: status $status, $dx m off, $phantom phantom events, $summary"
        fi
    done
done
"$bw" sim kobuki --ber 0.2 --for 0 2>&1 | grep -q "must be a number in" && pass "sim --ber is range-checked" ||
    fail "sim --ber 0.2 accepted"
expect_error "URL line noise is range-checked" 1 "ber=0.5: expected a number in" \
    "$bw" drive "sim:kobuki?ber=0.5" --fast --for 1
expect_error "URL parameters: a typo is an error" 1 'unknown parameter "nosie" (this URL takes: world, noise' \
    "$bw" drive "sim:kobuki?nosie=1" --fast --for 1
expect_error "URL parameters: a number out of range" 1 "noise=1e308: expected a number in \[0, 100\]" \
    "$bw" drive "sim:kobuki?noise=1e308" --fast --for 1

# Above the robot's top speed: a warning naming it, and the robot goes.
"$bw" drive sim:kobuki --fast --v 2 --for 0.5 >/dev/null 2>"$tmp/fastv.err"
grep -q "warning: --v 2 is above the kobuki's top speed of 0.70 m/s" "$tmp/fastv.err" &&
    pass "speed above the limit: $(cat "$tmp/fastv.err")" || fail "no speed warning: $(cat "$tmp/fastv.err")"

# Bad input: one clear line and a non-zero status.
expect_error "unknown option" 2 "unknown option --bogus (botwire drive --help lists them)" \
    "$bw" drive sim:kobuki --bogus
expect_error "unknown short option" 2 "unknown option -x" "$bw" drive sim:kobuki -x
expect_error "option without its value" 2 "--v needs a value" "$bw" drive sim:kobuki --v
expect_error "sim: unknown option" 2 "botwire sim: unknown option --ptty" "$bw" sim kobuki --ptty x
expect_error "decode: unknown option" 2 "botwire decode: unknown option --form" \
    "$bw" decode --proto kobuki --form robot
expect_error "unknown family lists the known ones" 1 "(known: kobuki, p2os, lobot, create, rbsm, rflex)" "$bw" drive roomba:/dev/x
expect_error "a missing serial device" 1 "cannot open /dev/ttyBOTWIRE9: no such device (" \
    "$bw" drive kobuki:/dev/ttyBOTWIRE9
expect_error "unknown command" 2 'unknown command "dirve" (botwire --help lists them)' "$bw" dirve
"$bw" drive SIM:Kobuki --fast --for 0.2 >/dev/null 2>&1 && pass "families in any case (SIM:Kobuki)" ||
    fail "SIM:Kobuki refused"
"$bw" --help | grep -q -- "--version | -V" && [ "$("$bw" -V)" = "$("$bw" --version)" ] &&
    pass "--version and -V, listed in the usage" || fail "-V"
# sim that cannot serve says that alone. The first one serves until it is
# killed after the check (--for 60 only ends it if the script does not):
# one that ran out a few seconds of its own while a loaded machine started
# the second would have left the port free.
"$bw" sim p2os --tcp 0 --for 60 --detach >"$tmp/first.out" 2>/dev/null
port=$(sed -E 's/.*:([0-9]+) \(pid.*/\1/' "$tmp/first.out")
pid=$(sed -E 's/.*\(pid ([0-9]+)\)/\1/' "$tmp/first.out")
expect_error "sim: the port is taken" 1 "Address already in use (another emulator there?" \
    "$bw" sim p2os --tcp "$port" --for 1
kill "$pid" 2>/dev/null
echo precious >"$tmp/mine"
expect_error "sim: --pty on an existing file" 1 "it exists and is not a link (a file); not replacing it" \
    "$bw" sim kobuki --pty "$tmp/mine" --for 1
[ "$(cat "$tmp/mine")" = precious ] && pass "the file is untouched" || fail "the file changed"
expect_error "record: a robot that is not there" 1 "cannot open /dev/ttyBOTWIRE9" \
    "$bw" record kobuki:/dev/ttyBOTWIRE9 -o "$tmp/mine"
[ "$(cat "$tmp/mine")" = precious ] && [ "$(ls "$tmp" | grep -c mine)" = 1 ] &&
    pass "record keeps an existing file when it fails, and leaves no temporary" ||
    fail "record touched $tmp/mine: $(ls "$tmp")"
# Every way a drive ends stops the robot, and the status says which way.
"$bw" drive sim:kobuki --fast | head -n 3 >/dev/null
[ $? = 0 ] && pass "drive | head ends (the robot stopped when the output went)"
for pair in HUP:1 INT:2 QUIT:3 TERM:15; do
    sig=${pair%:*}
    # Emptied here, not by the job's own redirection: that happens in the
    # child, after this shell may already have read the last run's lines.
    : >"$tmp/sig.out"
    # --for 60: for a hang only; the signal ends it.
    "$bw" drive sim:kobuki --v 0.1 --for 60 >"$tmp/sig.out" 2>&1 &
    pid=$!
    # Its first state line says it is online; then the signal. (The wait
    # follows the file as it grows; 30 s is for a broken build only.)
    wait_line "$tmp/sig.out" '"online"' 30 || fail "SIG$sig: drive never online: $(cat "$tmp/sig.out")"
    kill -s "$sig" "$pid"
    wait "$pid"
    status=$?
    want=$((128 + ${pair#*:}))
    v=$(field v "$(grep '"online"' "$tmp/sig.out" | tail -n 1)")
    [ "$status" = "$want" ] && within "$v" 0 0.005 &&
        pass "SIG$sig: stopped (v = $v), exit $status" || fail "SIG$sig: exit $status (want $want), v = $v"
done
expect_error "sim: pty link in a missing directory" 1 "cannot create link /no/such/dir/x" \
    "$bw" sim kobuki --pty /no/such/dir/x --for 1
expect_error "no URL" 2 "a robot URL is required" "$bw" drive
expect_error "bad URL" 1 "bad robot URL" "$bw" drive nonsense --for 1
expect_error "unknown family" 1 'unknown robot family "roomba"' "$bw" drive sim:roomba --for 1
expect_error "not a serial device" 1 "not a serial device" "$bw" drive kobuki:/dev/null --for 1
expect_error "--fast on a real robot" 2 "needs a sim: URL" "$bw" drive kobuki:/dev/ttyUSB0 --fast
expect_error "bad --v" 2 "--v must be a number" "$bw" drive sim:kobuki --v fast
expect_error "bad world in URL" 1 "no-such.world" "$bw" drive "sim:kobuki?world=/no-such.world" --fast
expect_error "sim: unknown family" 2 'no emulated robot for family "hal9000"' "$bw" sim hal9000 --for 0
expect_error "sim: missing world" 1 "cannot open /no-such.world" "$bw" sim kobuki --world /no-such.world
expect_error "sim: no family" 2 "which robot" "$bw" sim
expect_error "sim: unknown model" 2 'no P2OS model "p9"' "$bw" sim p2os --model p9 --for 0
expect_error "sim: bad --tcp" 2 "--tcp wants" "$bw" sim p2os --tcp host:port
expect_error "sim: pty and tcp" 2 "one or the other" "$bw" sim p2os --tcp 9000 --pty /tmp/x
expect_error "sim: --robots 0" 2 "--robots" "$bw" sim p2os --robots 0
expect_error "sim: --robots 2.5" 2 "--robots wants a whole number" "$bw" sim p2os --robots 2.5
expect_error "sim: fleet past port 65535" 2 "beyond port 65535" "$bw" sim p2os --robots 10 --tcp 65530
expect_error "sim: two families" 2 "one family at a time" "$bw" sim kobuki p2os
printf 'size 4 3\nrobot kobuki 1 1 0\n' >"$tmp/fleet.world"
expect_error "sim: family with a fleet world" 2 "places its robots" "$bw" sim kobuki --world "$tmp/fleet.world"
printf 'size 4 3\nrobot roomba 1 1 0\n' >"$tmp/fleet.world"
expect_error "sim: unknown family in a world" 2 'robot 1: no emulated robot for family "roomba"' \
    "$bw" sim --world "$tmp/fleet.world" --pty "$tmp/fl" --for 1
printf 'size 4 3\nrobot kobuki 1 1\n' >"$tmp/fleet.world"
expect_error "world: robot line" 1 "line 2: robot needs FAMILY" "$bw" sim --world "$tmp/fleet.world"
expect_error "drive: bad start" 1 "start=1,x,0" "$bw" drive "sim:kobuki?start=1,x,0" --fast --for 1
expect_error "bench: --fleet 0" 2 "--fleet" "$bw" bench --fleet 0
expect_error "bench: --fleet=0" 2 "--fleet=N,N,... wants robot counts" "$bw" bench --fleet=0
expect_error "bench: --fleet-tcp 0" 2 "--fleet-tcp must be" "$bw" bench --fleet-tcp 0
expect_error "drive: bad model" 1 "model=p9" "$bw" drive "sim:p2os?model=p9" --fast --for 1
expect_error "record: no -o" 2 "-o FILE is required" "$bw" record sim:kobuki
expect_error "record: unwritable" 1 "cannot write /no/such/dir/rec: No such file or directory" "$bw" record sim:kobuki -o /no/such/dir/rec
expect_error "demo: bad side" 2 "--side must be a number" "$bw" demo --side 0.01
printf 'size 4 3\nbox 1 1 2\n' >"$tmp/bad.world"
expect_error "demo: bad world" 1 "line 2: box needs 4 numbers" "$bw" demo --world "$tmp/bad.world" --svg "$tmp/x.svg"

# wander: progress lines, a summary, a picture; its errors.
"$bw" wander sim:rflex --fast --for 30 --svg "$tmp/wander.svg" >"$tmp/wander.out" 2>"$tmp/wander.err"
status=$?
last=$(tail -n 1 "$tmp/wander.out")
[ "$status" = 0 ] && [ "$(grep -c '"t":' "$tmp/wander.out")" -ge 29 ] &&
    echo "$last" | grep -q '"distance":.*"collisions":0,"min_clearance":.*"time":' &&
    grep -q "<svg" "$tmp/wander.svg" && pass "wander: $last" ||
    fail "wander: status $status, $last, $(cat "$tmp/wander.err")"
expect_error "wander: --fast on a real robot" 2 "needs a sim: URL" "$bw" wander p2os:/dev/ttyS0 --fast
expect_error "wander: bad keep-out" 2 "--keep-out wants X0,Y0,X1,Y1" "$bw" wander sim:p2os --keep-out 1,2,0,3
expect_error "wander: no URL" 2 "a robot URL is required" "$bw" wander

# demo writes its picture.
"$bw" demo --svg "$tmp/demo.svg" >"$tmp/demo.out" 2>&1 && grep -q "<svg" "$tmp/demo.svg" &&
    pass "demo draws $tmp/demo.svg" || fail "demo: $(cat "$tmp/demo.out")"
for c in sim drive record wander demo; do
    "$bw" "$c" --help >"$tmp/help" 2>&1 && grep -q "usage: botwire $c" "$tmp/help" &&
        pass "$c --help" || fail "$c --help"
done
# Every command that opens a robot lists every URL form.
for c in drive record; do
    "$bw" "$c" --help >"$tmp/help"
    for form in "kobuki:/dev/ttyUSB0" "p2os:/dev/ttyS0" "p2os:tcp://HOST:PORT" "sim:FAMILY" \
        "world=FILE" "noise=X" "seed=N" "model=M" "?baud=N"; do
        grep -qF -- "$form" "$tmp/help" || fail "$c --help does not show $form"
    done
    pass "$c --help shows every URL form"
done

# The fleet in one process, in virtual time: 40 wandering P2OS robots for 5
# s of robot time; every figure there and sane; the same run on one thread
# and on two ends with the same poses, bit for bit (each robot sees the
# others where the frame began, whichever thread steps it); robots do not
# pass through each other (the least gap between two outlines seen is at
# most the travel of a frame into one another). The heap per robot is 0
# where the allocator is not glibc's (the sanitizers' build): the resident
# memory says it there. The speed figures are the machine's, so they are
# held to the run's own wall and CPU times, not to a speed: each derived
# figure from the times it prints (to their printed rounding), and no more
# CPU than its threads had wall time (a figure off by a unit, ms taken for
# s, fails either).
# times_agree LINE: a --fast run's real_time_factor is its sim_s over its
# wall_s, its cpu_ms_per_robot_s its cpu_s per robot-second, each within
# what the printed digits (3 decimals, 4 for the latter) leave; and its
# cpu_s at most its threads' wall time (1 % and 10 ms for the accounting).
times_agree() {
    awk -v r="$(field real_time_factor "$1")" -v w="$(field wall_s "$1")" \
        -v s="$(field sim_s "$1")" -v cpu="$(field cpu_s "$1")" \
        -v c="$(field cpu_ms_per_robot_s "$1")" -v n="$(field robots "$1")" \
        -v th="$(field threads "$1")" \
        'function abs(x) { return x < 0 ? -x : x }
         BEGIN { exit !(r > 0 && w > 0 && c > 0 && cpu > 0 &&
                        abs(r * w - s) <= 0.001 * (r + w + 1) &&
                        abs(c * n * s / 1000 - cpu) <= 0.001 + 0.001 * (cpu / s + n * s / 1000) &&
                        cpu <= th * w * 1.01 + 0.01) }'
}
one=$("$bw" sim p2os --robots 40 --fast --for 5 --wander --threads 1 2>"$tmp/err")
two=$("$bw" sim p2os --robots 40 --fast --for 5 --wander --threads 2 2>>"$tmp/err")
three=$("$bw" sim p2os --robots 40 --fast --for 5 --wander --threads 3 2>>"$tmp/err")
poses1=$(echo "$one" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
poses2=$(echo "$two" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
poses3=$(echo "$three" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
if [ "$(field robots "$one")" = 40 ] && [ "$(field online "$one")" = 40 ] &&
    [ "$(field threads "$two")" = 2 ] && within "$(field sim_s "$one")" 5 0.011 &&
    times_agree "$one" && times_agree "$two" &&
    awk -v m="$(field mem_per_robot_kb "$one")" -v rss="$(field rss_per_robot_kb "$one")" \
        -v d="$(field mean_distance_m "$one")" \
        -v g="$(field min_gap_m "$one")" -v s="$(field sips "$one")" \
        'BEGIN { exit !((m > 1 || m == 0) && m < 10000 && rss > 1 &&
                       rss < 10000 && d > 0.3 && d < 5 * 0.7 &&
                       g > -0.02 && s >= 40 * 45) }' &&
    [ "$(field threads "$three")" = 3 ] &&
    [ -n "$poses1" ] && [ "$poses1" = "$poses2" ] && [ "$poses1" = "$poses3" ]; then
    pass "sim --fast: figures sane, one thread, two and three agree ($poses1)"
else
    fail "sim --fast: $one / $two ($(cat "$tmp/err"))"
fi
# Another seed, another run (the hash above says something); and a world
# file's robot lines of three families in one --fast fleet.
other=$("$bw" sim p2os --robots 40 --fast --for 5 --wander --threads 1 --seed 2 2>/dev/null)
poses3=$(echo "$other" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
printf 'size 6 4\nrobot kobuki 1 1 0\nrobot p2os/p2at 3 1 90\nrobot create 1 3 0\n' >"$tmp/fast.world"
mixed=$("$bw" sim --world "$tmp/fast.world" --fast --for 10 --wander 2>"$tmp/err")
if [ -n "$poses3" ] && [ "$poses3" != "$poses1" ] && [ "$(field robots "$mixed")" = 3 ] &&
    [ "$(field online "$mixed")" = 3 ] &&
    awk -v d="$(field mean_distance_m "$mixed")" 'BEGIN { exit !(d > 0.5) }'; then
    pass "sim --fast: another seed differs; a world's robot lines of three families wander"
else
    fail "sim --fast: seed 2 $poses3; world: $mixed ($(cat "$tmp/err"))"
fi
# --stack names the behaviours each robot wanders with: the default stack
# named is --wander's run, bit for bit; the cruise alone (no reflex, no
# avoidance, no sonar-safe) is another run, and still moves.
named=$("$bw" sim p2os --robots 40 --fast --for 5 --stack reflex,safe-avoid,safe-wander 2>"$tmp/err")
bare=$("$bw" sim p2os --robots 40 --fast --for 5 --stack wander 2>>"$tmp/err")
posesn=$(echo "$named" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
posesb=$(echo "$bare" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')
if [ "$posesn" = "$poses1" ] && [ -n "$posesb" ] && [ "$posesb" != "$poses1" ] &&
    awk -v d="$(field mean_distance_m "$bare")" 'BEGIN { exit !(d > 0.3) }'; then
    pass "sim --fast --stack: the default named is --wander's run; the cruise alone another"
else
    fail "sim --fast --stack: $named / $bare (--wander: $poses1) ($(cat "$tmp/err"))"
fi
expect_error "sim: --stack typo" 2 \
    '--stack wants behaviours from reflex, avoid, safe-avoid, wander, safe-wander, comma-separated, each once, not "reflex,wnader"' \
    "$bw" sim p2os --robots 3 --fast --for 1 --stack reflex,wnader
expect_error "sim: --stack without --fast" 2 "go with --fast" "$bw" sim p2os --robots 3 --stack wander
expect_error "wander: --stack twice the same" 2 'each once, not "wander,wander"' \
    "$bw" wander sim:p2os --fast --for 1 --stack wander,wander

# bench --fleet: a line per size on one thread, the largest on two, then
# the largest once more with one thread and two in turn, 1 s blocks of
# robot time: both modes measured, and the robots end where a plain run of
# the same 4 s leaves them (every robot stepped each frame, in either mode).
"$bw" bench --fleet=10,40 --seconds 2 --threads 2 >"$tmp/bench" 2>"$tmp/err"
rc=$?
alt=$(sed -n 4p "$tmp/bench")
plain=$("$bw" sim p2os --robots 40 --fast --for 4 --wander 2>/dev/null)
if [ $rc = 0 ] && [ "$(wc -l <"$tmp/bench")" = 4 ] &&
    [ "$(field fleet "$(sed -n 3p "$tmp/bench")")" = 40 ] &&
    [ "$(field threads "$(sed -n 3p "$tmp/bench")")" = 2 ] &&
    [ "$(field fleet "$alt")" = 40 ] && [ "$(field threads "$alt")" = 2 ] &&
    [ "$(field alternating_s "$alt")" = 1 ] && within "$(field sim_s "$alt")" 4 0.011 &&
    [ "$(field online "$alt")" = 40 ] &&
    awk -v a="$(field real_time_factor_threads "$alt")" -v b="$(field real_time_factor_one "$alt")" \
        -v s="$(field speedup "$alt")" \
        'BEGIN { exit !(a > 0 && b > 0 && s > 0 && (a / b - s) < 0.01 && (s - a / b) < 0.01) }' &&
    [ "$(echo "$alt" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')" = \
      "$(echo "$plain" | sed -E 's/.*"poses":"([0-9a-f]+)".*/\1/')" ]; then
    pass "bench --fleet: sizes, threaded, one and two threads in turn (same poses as sim)"
else
    fail "bench --fleet: rc $rc: $(cat "$tmp/bench") / $plain ($(cat "$tmp/err"))"
fi
# A lone robot has no gap to another: null, not a number that reads as an
# overlap.
lone=$("$bw" sim p2os --fast --for 1 --wander 2>/dev/null)
if echo "$lone" | grep -q '"min_gap_m":null,' && [ "$(field robots "$lone")" = 1 ]; then
    pass "sim --fast: a lone robot's min_gap_m is null"
else
    fail "sim --fast: a lone robot: $lone"
fi
expect_error "sim: --fast without --for" 2 "wants --for S" "$bw" sim p2os --robots 3 --fast
expect_error "sim: --wander without --fast" 2 "go with --fast" "$bw" sim p2os --robots 3 --wander --for 1

finish "drive/sim CLI"
