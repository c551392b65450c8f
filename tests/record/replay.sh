#!/bin/sh
# botwire replay: a record's robot side played back, in another process, to
# a driver that connects as to the robot.
# 1. A Kobuki recorded driving (MCAP), replayed on a pty to `botwire record`
#    driving the same way until the replay ends: the bytes the driver got
#    are the recorded robot's, byte for byte, none before its recorded time;
#    every host message was in the record, exit 0. The same replay to a
#    driver asking another speed: its messages said, exit 1.
# 2. A Pioneer (the host speaks first: SYNC0) recorded as JSON Lines, replayed
#    on TCP: the driver's handshake goes through against the recorded
#    answers, and it comes online.
# 3. What the command line refuses.
# Each driver runs until the replay has played its whole record and ended
# by itself (its --for is only a guard against a hang): what a machine that
# holds either process back changes is when the bytes come, which the
# checks allow for (the Pioneer's, below, within the record's length).
# usage: replay.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"
rep= drv=
cleanup() {
    [ -n "$rep" ] && kill "$rep" 2>/dev/null
    [ -n "$drv" ] && kill "$drv" 2>/dev/null
}

# start_replay WANT ARGS...: `botwire replay ARGS` in the background ($rep),
# its first line (where it serves) in $ready, its stderr in $tmp/rep.err.
# It ends by itself once it has played its record; the 60 s of timeout
# (exit 124) only end one that never did, a hang.
start_replay() {
    expect=$1
    shift
    rm -f "$tmp/announce"
    mkfifo "$tmp/announce"
    timeout 60 "$bw" replay "$@" >"$tmp/announce" 2>"$tmp/rep.err" &
    rep=$!
    read -r ready <"$tmp/announce"
    case $ready in
    "$expect"*) return 0 ;;
    *) fail "replay did not announce itself: $ready ($(cat "$tmp/rep.err"))"; return 1 ;;
    esac
}
# start_driver URL OUT ARGS...: `botwire record URL -o OUT ARGS` in the
# background ($drv), its stderr in $tmp/drv.err. Its --for of 60 s only
# ends a driver the replay never let go.
start_driver() {
    url=$1 out=$2
    shift 2
    "$bw" record "$url" -o "$out" --for 60 "$@" 2>"$tmp/drv.err" &
    drv=$!
}
# stop_both: waits for the replay to end by itself ($status: its exit),
# then interrupts the driver ($rstatus: its exit; 130, as SIGINT ends it).
stop_both() {
    wait "$rep"
    status=$?
    rep=
    kill -INT "$drv" 2>/dev/null
    wait "$drv"
    rstatus=$?
    drv=
}
# robot_hex FILE.jsonl: the robot's bytes of a JSON Lines record, one hex line
# robot_times FILE.jsonl: per robot chunk, the hex digits up to its end and its t
robot_times() {
    sed -n 's/^{"t":\([0-9.]*\),"from":"robot","data":"\([0-9a-f]*\)"}$/\1 \2/p' "$1" |
        awk '{ n += length($2); print n, $1 }'
}
robot_hex() { sed -n 's/.*"from":"robot","data":"\([0-9a-f]*\)".*/\1/p' "$1" | tr -d '\n'; }
# chunk_times FILE.jsonl: per chunk, either side, its t, its side and the
# robot's hex digits up to its end
chunk_times() {
    sed -n 's/^{"t":\([0-9.]*\),"from":"\([a-z]*\)","data":"\([0-9a-f]*\)"}$/\1 \2 \3/p' "$1" |
        awk '{ if ($2 == "robot") n += length($3); print $1, $2, n + 0 }'
}

# 1. Kobuki, MCAP, on a pty.
"$bw" record sim:kobuki -o "$tmp/k.mcap" --for 2 --v 0.2 2>"$tmp/rec.err" ||
    fail "record: $(cat "$tmp/rec.err")"
"$bw" convert "$tmp/k.mcap" "$tmp/k.jsonl" 2>/dev/null
want=$(robot_hex "$tmp/k.jsonl")
start_replay "botwire replay: $tmp/k.mcap (kobuki, " "$tmp/k.mcap" --pty "$tmp/robot" &&
    pass "replay on a pty: $ready"
start_driver "kobuki:$tmp/robot" "$tmp/got.jsonl" --v 0.2
stop_both
got=$(robot_hex "$tmp/got.jsonl")
[ "$rstatus" = 130 ] && [ -n "$got" ] && [ "${want#"$got"}" != "$want" ] &&
    pass "the driver got the recorded robot's bytes, byte for byte (${#got} hex digits of ${#want})" ||
    fail "driver's bytes: exit $rstatus, $(cat "$tmp/drv.err"); got ${#got} hex digits, not a prefix of the record's ${#want}"
# Paced: no byte reached the driver before its recorded time. The replay's
# clock starts when the driver has opened the pty, the driver's before it
# opens it: a byte sent at its recorded time r is at r or later on the
# driver's clock. The driver stamps a read with the time its loop woke,
# before it reads, so a read's stamp alone says nothing of when it read
# (a machine may hold the driver between the two); but the read was done
# before the loop woke again, whose stamp is on the next chunk stamped
# later, of either side. So each read's last byte has its recorded time
# at or before that next stamp, however the machine runs both; the last
# reads, with no later stamp, are not judged. 2 us: both records' times
# are to the microsecond. A replay that sends everything at once, or that
# runs fast, has its bytes ahead of that in its first reads.
robot_times "$tmp/k.jsonl" >"$tmp/k.times"
chunk_times "$tmp/got.jsonl" >"$tmp/got.times"
set -- $(awk 'NR == FNR { end[++n] = $1; t[n] = $2; next }
    { g[++m] = $1; side[m] = $2; upto[m] = $3 }
    END {
        later = ""
        for (j = m; j >= 1; j--) {
            if (j < m && g[j + 1] > g[j]) later = g[j + 1]
            if (side[j] != "robot" || later == "") continue
            judged++
            for (i = 1; i < n && end[i] < upto[j]; i++) ;
            if (t[i] > later + 2e-6) { early++; first = g[j] " s, bytes of " t[i] " s by " later " s" }
        }
        print judged + 0, early + 0, first
    }' "$tmp/k.times" "$tmp/got.times")
judged=${1:-0} early=${2:-0}
shift 2
reads=$(grep -c ' robot ' "$tmp/got.times")
[ "$early" = 0 ] && [ "$judged" -ge 1 ] &&
    pass "at the recorded pace: none of the driver's $judged reads judged (of $reads) had a byte before the record's time of it" ||
    fail "not paced: $early of the driver's $judged reads judged (of $reads) early, the first read at $*"
said=$(tail -n 1 "$tmp/rep.err")
[ "$status" = 0 ] && echo "$said" | grep -q ', 0 it never did$' && ! echo "$said" | grep -q 'sent 0 messages' &&
    pass "every host message was the record's host's: $said" ||
    fail "replay: exit $status, $(cat "$tmp/rep.err")"

# Twice the pace: the driver, asking 0.3 m/s all along, is told.
start_replay "botwire replay: " "$tmp/k.mcap" --pty "$tmp/robot" --speed 2
start_driver "kobuki:$tmp/robot" "$tmp/got2.jsonl" --v 0.3
stop_both
[ "$status" = 1 ] && grep -q 'the host sent {.*300.*}, which the record.s host never did' "$tmp/rep.err" &&
    pass "a driver asking 0.3 m/s: exit 1, $(grep -m 1 'never did$' "$tmp/rep.err")" ||
    fail "another speed: exit $status, $(cat "$tmp/rep.err")"

# 2. Pioneer, JSON Lines, on TCP: the driver speaks first. The replay plays
# the recorded answers at their times from the driver's first bytes,
# whatever the driver does, then 4 s of the robot's packets: the driver,
# held back, still reads the answers and comes online while they play
# (its handshake took 0.3 s on a quiet machine, 1.1 s on one loaded with
# the sanitizers' build: the record's length is the margin).
"$bw" record sim:p2os -o "$tmp/p.jsonl" --for 4 --v 0.1 2>"$tmp/rec.err" ||
    fail "record p2os: $(cat "$tmp/rec.err")"
if start_replay "botwire replay: $tmp/p.jsonl (p2os, " "$tmp/p.jsonl" --tcp 127.0.0.1:0; then
    port=${ready##*:}
    start_driver "p2os:tcp://127.0.0.1:$port" "$tmp/pgot.jsonl" --v 0.1
    stop_both
    [ "$rstatus" = 130 ] && grep -q 'online' "$tmp/drv.err" &&
        pass "a Pioneer's handshake against the recorded answers on TCP: online ($(tail -n 1 "$tmp/rep.err"))" ||
        fail "p2os over TCP: exit $rstatus, $(cat "$tmp/drv.err"); replay: $(cat "$tmp/rep.err")"
fi

# 3. Refusals: one line, exit 2 (usage) or 1.
expect_error "no place to serve" 2 "--pty PATH or --tcp" "$bw" replay "$tmp/k.mcap"
expect_error "both places" 2 "--pty PATH or --tcp" "$bw" replay "$tmp/k.mcap" --pty "$tmp/x" --tcp 1
expect_error "a bad --speed" 2 "speed" "$bw" replay "$tmp/k.mcap" --pty "$tmp/x" --speed 0
printf 'hello\n' >"$tmp/not.txt"
expect_error "not a record" 1 "not a botwire record" "$bw" replay "$tmp/not.txt" --pty "$tmp/x"
expect_error "no such file" 1 "cannot open" "$bw" replay "$tmp/none.mcap" --pty "$tmp/x"
[ ! -e "$tmp/x" ] && pass "nothing left at --pty's PATH after a refusal" || fail "$tmp/x left"

finish "replay"
