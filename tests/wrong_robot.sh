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
# The wait for a robot is 3 s; a drive that names the family it hears
# does so in a fraction of that: 3.5 s tells the two apart. A silent line
# takes the whole wait; 5 s tells it from a doubled wait and leaves a
# loaded machine 2 s to start the process and print (4 s, 1 s of room,
# was this machine's speed, not the driver's).
named_bound=3.5
silent_bound=5.0

now() { date +%s.%N; }

# pairing N F G [noise]: G's driver on F's emulator (with noise: on a line
# of noise from it); the verdict in $tmp/result.N
pairing() {
    n=$1 f=$2 g=$3 noise=${4:-}
    d=$tmp/p$n
    mkdir "$d"
    mkfifo "$d/announce"
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
    t0=$(now)
    "$bw" drive "$g:$d/link" --v 0.1 --for 1 >"$d/out" 2>"$d/err"
    status=$?
    t1=$(now)
    kill "$emu" 2>/dev/null
    wait "$emu" 2>/dev/null
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    err=$(cat "$d/err")
    lines=$(wc -l <"$d/err")
    if [ -n "$noise" ]; then
        f="noise"
        want="bytes came, in no protocol botwire knows\|bytes came that look like\|bytes of .* came, but"
        bound=$silent_bound
    elif [ "$f" = "$g" ]; then
        last=$(tail -n 1 "$d/out")
        case $last in *'"online":true'*'"frames":'*) online=1 ;; *) online=0 ;; esac
        if [ "$status" = 0 ] && [ "$online" = 1 ]; then
            echo "ok: $g on $f drives (${took} s): $(echo "$last" | cut -c1-60)..." >"$tmp/result.$n"
        else
            echo "FAIL: $g on $f: status $status, $err, $last" >"$tmp/result.$n"
        fi
        return
    fi
    case $f in
    noise) ;;
    kobuki | lobot | rbsm) want="speaks .*: try $f:$d/link\$" bound=$named_bound ;;
    *) want="the line is silent" bound=$silent_bound ;;
    esac
    if [ "$status" != 1 ]; then
        echo "FAIL: $g on $f: status $status, wanted 1 ($err)" >"$tmp/result.$n"
    elif [ "$lines" != 1 ] || ! grep -q -e "$want" "$d/err"; then
        echo "FAIL: $g on $f: wanted one line matching \"$want\", got: $err" >"$tmp/result.$n"
    elif [ -s "$d/out" ]; then
        echo "FAIL: $g on $f: wrote output: $(head -n 1 "$d/out")" >"$tmp/result.$n"
    elif ! awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t <= b) }'; then
        echo "FAIL: $g on $f: took $took s (bound $bound s): $err" >"$tmp/result.$n"
    else
        echo "ok: $g on $f, ${took} s: $(echo "$err" | sed "s|$d/link|LINK|g")" >"$tmp/result.$n"
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
