#!/bin/sh
# The wrong robot, with real processes on real ptys: every family's driver
# (`botwire drive G:LINK --v 0.1 --for 1`) on every other family's emulator
# (`botwire sim F --pty LINK`). Each of the 30 must fail (status 1, nothing
# on stdout) with one line: naming F, and the URL to try, when F's robot
# speaks unasked (kobuki, lobot, rbsm) or the wrong driver's bytes make it
# speak; saying the line is silent when it does not (p2os, create and rflex
# robots answer only their own protocol). The lobot driver on a Kobuki used
# to report success with x = 40 m. The 6 right pairings still drive. And
# every driver on a line of noise (a Kobuki emulator at a bit error rate
# of 0.1, as a wrong baud rate gives) fails saying what came (the lobot
# driver used to come online on it). Three pairings run at a time; the
# time each drive took is printed.
# usage: wrong_robot.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/testlib.sh"

families="kobuki p2os lobot create rbsm rflex"
# The drive's wait for a robot is 3 s, and each bound below is the least
# time a mistake takes, not a guess at how soon a process runs. A drive
# that names the family it hears does so in a fraction of the wait; one
# that sat the wait out took at least 3 s: under 3 s tells them apart. A
# silent line takes the whole wait, at least 3 s (less: it gave up early),
# and a doubled wait at least 6 s: under 6 s tells them apart. The drive
# does not say how long it listened, so its time is taken from outside,
# less the time a loaded machine held it back: what the kernel counts as
# its time runnable but not running (/proc/PID/schedstat), over its whole
# life, starting and exiting included. (A machine that held a drive back
# as long as it slept could only pass a mistake this way, never fail a
# good drive.)
wait_s=3.0
named_bound=$wait_s
silent_bound=6.0

# timed OUT ERR CMD...: runs CMD, its output in OUT and ERR, and says
# "STATUS TOOK HELD": its exit status, the seconds it took, and the seconds
# of those it was runnable but not running, by the kernel's count (read
# once it has ended, before it is reaped).
timed() {
    /usr/bin/python3 -c '
import os, sys, time
def held(pid):
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    os.dup2(os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    os.execv(sys.argv[3], sys.argv[3:])
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
took, waited = time.monotonic() - t0, held(pid)
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st), "%.3f %.3f" % (took, waited))
' "$@"
}

# pairing N F G [noise]: G's driver on F's emulator (with noise: on a line
# of noise from it); the verdict in $tmp/result.N
pairing() {
    n=$1 f=$2 g=$3 noise=${4:-}
    d=$tmp/p$n
    mkdir "$d"
    mkfifo "$d/announce"
    # --for 30: for a hang only; it is killed once the drive has ended.
    "$bw" sim "$f" --pty "$d/link" --for 30 ${noise:+--ber 0.1} >"$d/announce" 2>"$d/sim.err" &
    emu=$!
    read -r ready <"$d/announce"
    case $ready in
    "botwire sim: $f "*) ;;
    *)
        echo "FAIL: $g on $f: the emulator did not start: $ready $(cat "$d/sim.err")" >"$tmp/result.$n"
        kill "$emu" 2>/dev/null
        return
        ;;
    esac
    # shellcheck disable=SC2046
    set -- $(timed "$d/out" "$d/err" "$bw" drive "$g:$d/link" --v 0.1 --for 1)
    status=${1:-none} took=${2:-0} held=${3:-0}
    kill "$emu" 2>/dev/null
    wait "$emu" 2>/dev/null
    err=$(cat "$d/err")
    lines=$(wc -l <"$d/err")
    least=0 own=$(awk -v t="$took" -v h="$held" 'BEGIN { printf "%.2f", t - h }')
    if [ -n "$noise" ]; then
        # Noise fills the driver's ear before the wait is out, or not.
        f="noise"
        want="bytes came, in no protocol botwire knows\|bytes came that look like\|bytes of .* came, but"
        bound=$silent_bound
    elif [ "$f" = "$g" ]; then
        # Online (a state line says so), driven (status 0) and its frames
        # counted at the end. Whether the last line is still online is the
        # scheduler's: an emulator held back past the link timeout (the
        # Kobuki's 0.1 s) is a silence, and ends the drive's settling.
        last=$(tail -n 1 "$d/out")
        case $last in *'"frames":'*) counted=$(field frames "$last") ;; *) counted=0 ;; esac
        if [ "$status" = 0 ] && grep -q '"online":true' "$d/out" && [ "$counted" -gt 0 ]; then
            echo "ok: $g on $f drives ($took s): $(echo "$last" | cut -c1-60)..." >"$tmp/result.$n"
        else
            echo "FAIL: $g on $f: status $status, $err, $last" >"$tmp/result.$n"
        fi
        return
    fi
    case $f in
    noise) ;;
    kobuki | lobot | rbsm) want="speaks .*: try $f:$d/link\$" bound=$named_bound ;;
    *) want="the line is silent" bound=$silent_bound least=$wait_s ;;
    esac
    if [ "$status" != 1 ]; then
        echo "FAIL: $g on $f: status $status, wanted 1 ($err)" >"$tmp/result.$n"
    elif [ "$lines" != 1 ] || ! grep -q -e "$want" "$d/err"; then
        echo "FAIL: $g on $f: wanted one line matching \"$want\", got: $err" >"$tmp/result.$n"
    elif [ -s "$d/out" ]; then
        echo "FAIL: $g on $f: wrote output: $(head -n 1 "$d/out")" >"$tmp/result.$n"
    elif ! awk -v t="$took" -v o="$own" -v lo="$least" -v b="$bound" 'BEGIN { exit !(t >= lo && o < b) }'; then
        echo "FAIL: $g on $f: took $took s, $own s less the time held back (from $least s, under $bound s): $err" >"$tmp/result.$n"
    else
        echo "ok: $g on $f, $took s, $own s not held back: $(echo "$err" | sed "s|$d/link|LINK|g")" >"$tmp/result.$n"
    fi
}

n=0
for f in $families; do
    for g in $families; do
        n=$((n + 1))
        pairing "$n" "$f" "$g" &
        [ $((n % 3)) = 0 ] && wait
    done
done
for g in $families; do
    n=$((n + 1))
    pairing "$n" kobuki "$g" noise &
    [ $((n % 3)) = 0 ] && wait
done
wait

i=1
while [ "$i" -le "$n" ]; do
    r=$(cat "$tmp/result.$i" 2>/dev/null || echo "FAIL: pairing $i left no result")
    case $r in
    ok:*) pass "${r#ok: }" ;;
    *) fail "${r#FAIL: }" ;;
    esac
    i=$((i + 1))
done

finish "wrong-robot"
