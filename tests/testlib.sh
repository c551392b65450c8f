# Shared by the shell tests: `. testlib.sh` after setting nothing; gives $tmp
# (removed on exit, after the `cleanup` hook: by default it stops the
# emulator start_emulator started and the harness start_firmware started;
# a script may define its own), and:
#   pass MSG / fail MSG          report a check (failures are counted)
#   field NAME JSON              a number from a JSON line
#   within X WANT TOL            true if |X - WANT| <= TOL
#   expect_error NAME STATUS PATTERN CMD...
#                                CMD exits STATUS with one stderr line matching
#                                PATTERN and writes nothing to stdout
#   expect_failure NAME STATUS PATTERN CMD...   the same, stdout allowed
#   finish                       exits 1 if anything failed
#   start_emulator WANT SIM_ARGS...
#                                runs `$bw sim SIM_ARGS...` in the background
#                                ($sim: its pid, its stderr in $tmp/sim.err) and
#                                waits for its first line, which must start
#                                with WANT (else: fail and exit)
#   stop_emulator                SIGINT to it; $status, and its final pose
#                                in $truth ("X Y DEG", as it says it)
#   start_of FAMILY [ARGS...]    "X Y DEG" where that emulated robot starts
#   odometry_vs_truth X START TRUTH TOL
#                                the odometry's x within TOL m of how far the
#                                robot truly went along x
#   drove X V SECONDS LAST [OUT] / turned THETA W SECONDS LAST OUT
#                                a real-time drive's distance (turn) within
#                                what its own lines say of its time
#   cruised X V LAST OUT         a drive at V m/s by the robot's own odometry
#   drive_heard OUT ARGS...      `botwire drive ARGS`, again while a chip held
#                                back has not spoken within the drive's wait
#   every_tenth OUT SECONDS      a drive's lines: one per 100 ms of its clock
#   wait_line FILE PATTERN SECONDS
#                                true once a line of FILE (which a process is
#                                writing) matches PATTERN (grep), false if
#                                none has after SECONDS: it follows the file
#                                as it grows, it does not sleep on a guess
#   start_firmware BOTWIRE_AVR BOARD ELF LINK
#                                runs a firmware in the simulated chip on a
#                                pty named LINK ($chip: its pid, its stderr in
#                                $tmp/avr.err) and waits for its first line;
#   stop_firmware                SIGINT; its exit status in $status and the
#                                rest of its output in $tmp/avr.out
#   free_ports N                 a port P with P..P+N-1 free on 127.0.0.1,
#                                drawn below the kernel's ephemeral range, so
#                                that no client's connection takes one before
#                                the test binds them; another test's listener
#                                still may: a caller retries on "in use"
#   serve_ten WORLD RESERVE      the nine robots of WORLD served by one
#                                `$bw sim --world` on tcp ports $base.. ($fleet:
#                                its pid, its lines in $tmp/fleet.said, stderr
#                                in $tmp/fleet.err) and a Kobuki alone on
#                                $base+9 ($lone; its line in $said), with
#                                RESERVE more free ports after them; a port
#                                taken between the draw and the bind is drawn
#                                again (5 tries), else: fail and exit
tmp=$(mktemp -d)
sim= # start_emulator's emulator, stopped on exit unless the script did
chip= # start_firmware's harness, likewise
cleanup() {
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
    [ -n "$chip" ] && kill "$chip" 2>/dev/null
}
trap 'cleanup; rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
pass() { echo "ok: $*"; }
field() { echo "$2" | sed -E "s/.*\"$1\":(-?[0-9.e+-]+).*/\1/"; }
within() { awk -v x="$1" -v want="$2" -v tol="$3" 'BEGIN { d = x - want; exit !(d <= tol && -d <= tol) }'; }
# drove X V SECONDS LAST [OUT]: a real-time `botwire drive --v V --for
# SECONDS` went X m (LAST: its final line; OUT: its output). No farther than
# V m/s for the whole of the drive's own run, its settling included (LAST's
# time) plus 1 cm: a machine that holds a process back delays the stop, and
# adds no speed. At least V m/s from when the robot was first heard moving
# (moved_at OUT; without OUT, the drive's start) to SECONDS, less 5 cm: what
# the robot's own ramp up takes (its coast after the stop gives most of it
# back). An emulator held back starts the robot late; the drive's lines say
# when it did, and a bound that took the start for granted failed on loaded
# machines, as a fixed window around V * SECONDS did. The drive's time is
# SECONDS (with OUT: its last 100 ms line, later when the drive itself was
# held back at the end), then at most 2 s of settling, the drive's own limit
# (from up to 100 ms after that line).
drove() {
    swept x "$1" "$2" "$3" "$4" "${5:-}" 0.05 0.01
}
# turned THETA W SECONDS LAST OUT: the same for a `botwire drive --w W`:
# theta in radians, 0.02 rad of margin above (P2OS's profile does not
# overshoot) and 0.1 rad below (its ramp to 0.5 rad/s at 100 deg/s^2 takes
# 0.07 rad, which its coast gives back).
turned() {
    swept theta "$1" "$2" "$3" "$4" "$5" 0.1 0.02
}
# cruised X V LAST OUT: a real-time `botwire drive --v V` (LAST: its final
# line; OUT: its output) went X m at V m/s: the robot's own speed, as its
# odometry gives it (the median v of the state lines that heard it moving,
# above V / 2: three at least), within 5 % of V, and X no farther than V
# m/s over the drive's whole time (LAST's), plus 1 cm. How far it went in
# all is not judged by the drive's time: a robot whose emulator a loaded
# machine held back past its command timeout (a Kobuki's 0.5 s) stopped
# meanwhile, as a real one would, and one the drive did not hear at its
# end (its last line offline, a silence past the 0.1 s link timeout) went
# on unheard; the emulator's own pose says how far (where there is one).
cruised() {
    cr_v=$(grep '"online":true' "$4" | sed -n 's/.*"v":\([-0-9.e+]*\),.*/\1/p' |
        awk -v v="$2" '$1 > v / 2' | sort -g |
        awk '{ a[NR] = $1 } END { if (NR >= 3) print a[int((NR + 1) / 2)] }')
    [ -n "$cr_v" ] && awk -v x="$1" -v v="$2" -v m="$cr_v" -v t="$(field t "$3")" \
        'BEGIN { d = m - v; exit !(d <= 0.05 * v && -d <= 0.05 * v && x > 0 && x <= v * t + 0.01) }'
}
# drive_heard OUT ARGS...: `botwire drive ARGS...`, its lines in $tmp/OUT.out,
# its errors in $tmp/OUT.err, its exit status in $status. The drive waits 3 s
# of the host's clock for the robot's first frame; a chip the machine holds
# back that long has not sent it yet, which the drive says ("nothing came
# from"), having sent nothing itself: it is run again (five tries only
# catch a robot that never speaks).
drive_heard() {
    out=$1
    shift
    heard=0
    while :; do
        heard=$((heard + 1))
        "$bw" drive "$@" >"$tmp/$out.out" 2>"$tmp/$out.err"
        status=$?
        [ "$status" = 1 ] && grep -q "nothing came from" "$tmp/$out.err" && [ "$heard" -lt 5 ] || break
    done
}
# swept FIELD X RATE SECONDS LAST OUT BELOW ABOVE: drove and turned.
swept() {
    sw_t=$(field t "$5")
    sw_from=0 sw_ran=$4
    if [ -n "$6" ]; then
        sw_from=$(moved_at "$6" "$1")
        sw_ran=$(field t "$(state_lines "$6" | sed '$d' | tail -n 1)")
    fi
    awk -v x="$2" -v r="$3" -v s="$4" -v t="$sw_t" -v from="${sw_from:-none}" -v ran="${sw_ran:-0}" \
        -v below="$7" -v above="$8" 'BEGIN {
            exit !(from != "none" && ran + 0 >= s - 0.0005 && t + 0 >= ran && t <= ran + 2.15 &&
                   x >= r * (s - from) - below && x <= r * t + above) }'
}
# state_lines OUT: a drive's state lines (the ones with an "online" field;
# not its events, {"event":"online"} among them), each with a joystick's
# fields taken out, whose "x" field would read for the pose's.
state_lines() { grep '"online":' "$1" | sed 's/,"joystick":{[^}]*}//'; }
# heard LAST: a drive's final line says the robot was heard to the end (its
# link not judged lost: "online", a speed and not null), so that what it
# says of the robot at rest holds.
heard() { echo "$1" | grep -q '"v":-*[0-9].*"online":true'; }
# link_said OUT: what a drive said of its link (a failure's message): the
# times it judged it lost, and its final line's counts.
link_said() {
    echo "offline $(grep -c '"event":"offline"' "$1") times; $(tail -n 1 "$1" | sed -n 's/.*\("frames":.*\)}$/\1/p')"
}
# moved_at OUT FIELD: the time ("t") of a drive's first state line whose
# FIELD is not its first line's: the robot was heard moving by then (it
# started before); empty if it never was.
moved_at() {
    state_lines "$1" | {
        first=
        while IFS= read -r line; do
            now=$(field "$2" "$line")
            if [ -z "$first" ]; then
                first=$now
            elif [ "$now" != "$first" ]; then
                field t "$line"
                break
            fi
        done
    }
}
# every_tenth OUT SECONDS: true if a drive's state lines but its last are
# one per 100 ms of its own clock (t = 0, 0.1, 0.2, ...) up to SECONDS at
# least: all of them, whatever the load, as a drive held back prints the
# lines it owes when it runs again (a drive that printed only at its end
# gives one or two).
every_tenth() {
    state_lines "$1" | sed '$d' | sed -n 's/^{"t":\([-0-9.e+]*\),.*/\1/p' |
        awk -v s="$2" '{ d = $1 - 0.1 * (NR - 1); if (d > 0.0005 || d < -0.0005) bad = 1; last = $1 }
            END { exit !(NR > 0 && !bad && last >= s - 0.0005) }'
}

run_expecting() {
    quiet=$1 name=$2 want=$3 pattern=$4
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then
        fail "$name: exit $got, wanted $want ($(cat "$tmp/err"))"
    elif [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q -e "$pattern" "$tmp/err"; then
        fail "$name: error message: $(cat "$tmp/err")"
    elif [ "$quiet" = 1 ] && [ -s "$tmp/out" ]; then
        fail "$name: wrote output despite the error"
    else
        pass "$name ($(cat "$tmp/err"))"
    fi
}
expect_error() { run_expecting 1 "$@"; }
expect_failure() { run_expecting 0 "$@"; }

finish() {
    [ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
    echo "all $1 checks passed"
}

free_ports() {
    /usr/bin/python3 -c '
import random, socket, sys
n = int(sys.argv[1])
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        floor = int(f.read().split()[0])
except (OSError, ValueError, IndexError):
    floor = 32768
lo, hi = 10000, (floor - n if floor - n > 12000 else 65536 - n)
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); return True
    except OSError:
        return False
    finally:
        s.close()
while True:
    base = random.randrange(lo, hi)
    if all(free(p) for p in range(base, base + n)):
        print(base); break' "$1"
}

serve_ten() {
    tries=0
    while :; do
        tries=$((tries + 1))
        base=$(free_ports $((10 + $2)))
        rm -f "$tmp/fleet.fifo" "$tmp/lone.fifo"
        mkfifo "$tmp/fleet.fifo" "$tmp/lone.fifo"
        "$bw" sim --world "$1" --tcp "127.0.0.1:$base" >"$tmp/fleet.fifo" 2>"$tmp/fleet.err" &
        fleet=$!
        head -n 9 "$tmp/fleet.fifo" >"$tmp/fleet.said"
        if [ "$(grep -c "on tcp://" "$tmp/fleet.said")" = 9 ]; then
            "$bw" sim kobuki --tcp "127.0.0.1:$((base + 9))" >"$tmp/lone.fifo" 2>"$tmp/lone.err" &
            lone=$!
            said=
            read -r said <"$tmp/lone.fifo"
            case $said in *"tcp://127.0.0.1:$((base + 9))"*) return 0 ;; esac
            wait "$lone"
            lone=
            err=$(cat "$tmp/lone.err")
            kill "$fleet" 2>/dev/null && wait "$fleet"
        else
            wait "$fleet"
            err=$(cat "$tmp/fleet.said" "$tmp/fleet.err")
        fi
        fleet=
        case $err in *"in use"*) [ "$tries" -lt 5 ] && continue ;; esac
        fail "serving ten robots from port $base (try $tries): $err"
        exit 1
    done
}

wait_line() {
    # tail -F wakes on each write (and waits for the file to appear), and
    # ends when grep, matched, goes.
    timeout "$3" tail -n +1 -F "$1" 2>/dev/null | grep -q -m 1 -e "$2"
}

# The emulator announces where it serves on its first line: wait for that
# line (a blocking read on a fifo), never for a guessed time.
start_emulator() {
    want=$1
    shift
    mkfifo "$tmp/announce"
    "$bw" sim "$@" >"$tmp/announce" 2>"$tmp/sim.err" &
    sim=$!
    read -r ready <"$tmp/announce"
    case $ready in
    "$want"*) pass "emulator up: $ready" ;;
    *)
        fail "emulator did not announce itself: $ready ($(cat "$tmp/sim.err"))"
        exit 1
        ;;
    esac
}

# The emulated robot's pose as it says when it stops ("robot at (X, Y,
# DEG deg)"): pose_said FILE gives "X Y DEG" of the last such line.
pose_said() {
    sed -n 's/.*robot at (\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\) deg).*/\1 \2 \3/p' "$1" | tail -n 1
}
# start_of FAMILY [SIM_ARGS...]: "X Y DEG" where that emulated robot starts
# (an emulator on a pty of its own, stopped at once).
start_of() {
    fam=$1
    shift
    "$bw" sim "$fam" "$@" --pty "$tmp/start_probe" --for 0.01 >/dev/null 2>"$tmp/start_probe.err"
    pose_said "$tmp/start_probe.err"
}
# stop_emulator: SIGINT to start_emulator's emulator; its exit status in
# $status and the pose it stopped at in $truth ("X Y DEG").
stop_emulator() {
    kill -INT "$sim"
    wait "$sim"
    status=$?
    sim=
    truth=$(pose_said "$tmp/sim.err")
}
# cut_ends_only STATS MAX: true if a record's decode stats (its last line)
# show no damage but a frame cut at either end: the recorder opens and
# closes the line while the robot sends, as on a real serial line. No
# checksum error, at most two bad lengths, at most MAX bytes skipped.
cut_ends_only() {
    echo "$1" | grep -q '"checksum_errors":0,"length_errors":[012],' &&
        [ "$(field skipped_bytes "$1")" -le "$2" ] 2>/dev/null
}
# wander_signals URL COUNTS_PER_M NSWITCHES: `botwire wander URL` prints on
# every progress line raw_x = x in encoder counts (COUNTS_PER_M 0: no raw_x
# at all) and NSWITCHES booleans in bump_switches (0: none): GRL's
# raw-base-x and bump-switch-state on that base.
wander_signals() {
    "$bw" wander "$1" --fast --for 3 >"$tmp/wander.out" 2>"$tmp/wander.err" ||
        { fail "wander $1: $(cat "$tmp/wander.err")"; return; }
    n=0 bad=""
    while IFS= read -r line; do
        case $line in *'"t":'*) ;; *) continue ;; esac
        n=$((n + 1))
        if [ "$2" = 0 ]; then
            case $line in *'"raw_x"'*) bad="$line" ;; esac
        else
            x=$(field x "$line") rx=$(field raw_x "$line")
            case $line in *'"raw_x"'*) ;; *) bad="$line" ;; esac
            within "$rx" "$(awk -v x="$x" -v k="$2" 'BEGIN { print x * k }')" 1.5 || bad="$line"
        fi
        sw=$(echo "$line" | sed -n 's/.*"bump_switches":\[\([^]]*\)\].*/\1/p')
        k=$(echo "$sw" | tr ',' '\n' | grep -c 'true\|false')
        [ "$k" = "$3" ] || bad="$line"
    done <"$tmp/wander.out"
    [ "$n" -ge 3 ] && [ -z "$bad" ] &&
        pass "wander $1: raw_x (x $2 counts/m) and $3 bump switches in each of $n lines" ||
        fail "wander $1: $n lines, wrong: $bad"
}

# odometry_vs_truth X START TRUTH TOL: true if the odometry's x (from a
# start facing along +x) is within TOL m of how far the robot truly went.
odometry_vs_truth() {
    awk -v x="$1" -v s="$2" -v t="$3" -v tol="$4" 'BEGIN {
        split(s, a, " "); split(t, b, " "); d = x - (b[1] - a[1]); exit !(d <= tol && -d <= tol) }'
}

start_firmware() {
    mkfifo "$tmp/avr.fifo"
    "$1" "$2" "$3" --pty "$4" --for 60 >"$tmp/avr.fifo" 2>"$tmp/avr.err" &
    chip=$!
    # The fifo stays open on fd 3 for the report at the end.
    exec 3<"$tmp/avr.fifo"
    read -r ready <&3
    case $ready in
    "botwire-avr: $2 on /dev/"*) pass "$ready" ;;
    *)
        fail "the harness did not announce itself: $ready ($(cat "$tmp/avr.err"))"
        exit 1
        ;;
    esac
}

stop_firmware() {
    kill -INT "$chip"
    wait "$chip"
    status=$?
    chip=
    cat <&3 >"$tmp/avr.out"
    exec 3<&-
    sed 's/^/  /' "$tmp/avr.out"
    [ "$status" = 0 ] && pass "harness stops cleanly" || fail "harness exit status $status: $(cat "$tmp/avr.err")"
}
