#!/bin/sh
# botwire replay: a record's robot side played back, in another process, to
# a driver that connects as to the robot.
# 1. A Kobuki recorded driving (MCAP), replayed on a pty to `botwire record`
#    driving the same way: the bytes the driver got are the recorded robot's,
#    byte for byte, paced (not all at once); every host message was in the
#    record, exit 0. The same replay to a driver asking another speed: its
#    messages said, exit 1.
# 2. A Pioneer (the host speaks first: SYNC0) recorded as JSON Lines, replayed
#    on TCP: the driver's handshake goes through against the recorded
#    answers, and it comes online.
# 3. What the command line refuses.
# usage: replay.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/../testlib.sh"
rep=
cleanup() { [ -n "$rep" ] && kill "$rep" 2>/dev/null; }

# start_replay WANT ARGS...: `botwire replay ARGS` in the background ($rep),
# its first line (where it serves) in $ready, its stderr in $tmp/rep.err.
start_replay() {
    expect=$1
    shift
    rm -f "$tmp/announce"
    mkfifo "$tmp/announce"
    "$bw" replay "$@" >"$tmp/announce" 2>"$tmp/rep.err" &
    rep=$!
    read -r ready <"$tmp/announce"
    case $ready in
    "$expect"*) return 0 ;;
    *) fail "replay did not announce itself: $ready ($(cat "$tmp/rep.err"))"; return 1 ;;
    esac
}
stop_replay() {
    wait "$rep"
    status=$?
    rep=
}
# robot_hex FILE.jsonl: the robot's bytes of a JSON Lines record, one hex line
# robot_times FILE.jsonl: per robot chunk, the hex digits up to its end and its t
robot_times() {
    sed -n 's/^{"t":\([0-9.]*\),"from":"robot","data":"\([0-9a-f]*\)"}$/\1 \2/p' "$1" |
        awk '{ n += length($2); print n, $1 }'
}
robot_hex() { sed -n 's/.*"from":"robot","data":"\([0-9a-f]*\)".*/\1/p' "$1" | tr -d '\n'; }

# 1. Kobuki, MCAP, on a pty.
"$bw" record sim:kobuki -o "$tmp/k.mcap" --for 2 --v 0.2 2>"$tmp/rec.err" ||
    fail "record: $(cat "$tmp/rec.err")"
"$bw" convert "$tmp/k.mcap" "$tmp/k.jsonl" 2>/dev/null
want=$(robot_hex "$tmp/k.jsonl")
start_replay "botwire replay: $tmp/k.mcap (kobuki, " "$tmp/k.mcap" --pty "$tmp/robot" &&
    pass "replay on a pty: $ready"
"$bw" record "kobuki:$tmp/robot" -o "$tmp/got.jsonl" --for 1 --v 0.2 2>"$tmp/rec2.err"
rstatus=$?
stop_replay
got=$(robot_hex "$tmp/got.jsonl")
[ "$rstatus" = 0 ] && [ -n "$got" ] && [ "${want#"$got"}" != "$want" ] &&
    pass "the driver got the recorded robot's bytes, byte for byte (${#got} hex digits of ${#want})" ||
    fail "driver's bytes: exit $rstatus, $(cat "$tmp/rec2.err"); got ${#got} hex digits, not a prefix of the record's ${#want}"
# Paced: no byte reached the driver before its recorded time (the driver's
# clock starts before it opens the pty, the replay's when it has: a replay
# held back by the machine is only later). A replay that sent all at once,
# or too fast, has bytes early, in most reads. The driver stamps a read
# with the time its loop woke, just before it reads: a machine that holds
# it back between the two (15 ms seen on a loaded machine) makes that one
# read look early, so two such reads are let pass.
robot_times "$tmp/k.jsonl" >"$tmp/k.times"
robot_times "$tmp/got.jsonl" >"$tmp/got.times"
early=$(awk 'NR == FNR { end[++n] = $1; t[n] = $2; next }
    { while (i < n && end[i + 1] < $1) i++
      if (i < n && t[i + 1] > $2 + 0.005) { bad++; if (!first) first = ", the first at " $2 " s for " t[i + 1] " s" } }
    END { print bad + 0 first }' "$tmp/k.times" "$tmp/got.times")
reads=$(wc -l <"$tmp/got.times")
[ "${early%%,*}" -le 2 ] && [ "$reads" -gt 20 ] &&
    pass "at the recorded pace: $early of the driver's $reads reads came before the record's time of its bytes" ||
    fail "not paced: $early of $reads reads early"
said=$(tail -n 1 "$tmp/rep.err")
[ "$status" = 0 ] && echo "$said" | grep -q ', 0 it never did$' && ! echo "$said" | grep -q 'sent 0 messages' &&
    pass "every host message was the record's host's: $said" ||
    fail "replay: exit $status, $(cat "$tmp/rep.err")"

start_replay "botwire replay: " "$tmp/k.mcap" --pty "$tmp/robot" --speed 2
"$bw" record "kobuki:$tmp/robot" -o "$tmp/got2.jsonl" --for 0.6 --v 0.3 2>/dev/null
stop_replay
[ "$status" = 1 ] && grep -q 'the host sent {.*300.*}, which the record.s host never did' "$tmp/rep.err" &&
    pass "a driver asking 0.3 m/s: exit 1, $(grep -m 1 'never did$' "$tmp/rep.err")" ||
    fail "another speed: exit $status, $(cat "$tmp/rep.err")"

# 2. Pioneer, JSON Lines, on TCP: the driver speaks first.
"$bw" record sim:p2os -o "$tmp/p.jsonl" --for 2 --v 0.1 2>"$tmp/rec.err" ||
    fail "record p2os: $(cat "$tmp/rec.err")"
if start_replay "botwire replay: $tmp/p.jsonl (p2os, " "$tmp/p.jsonl" --tcp 127.0.0.1:0; then
    port=${ready##*:}
    # 2 s, the record's length: the handshake, from the record's start, in
    # 0.3 s on a quiet machine, in 1.1 s seen on one loaded with ASan's build.
    "$bw" record "p2os:tcp://127.0.0.1:$port" -o "$tmp/pgot.jsonl" --for 2 --v 0.1 2>"$tmp/rec2.err"
    rstatus=$?
    stop_replay
    [ "$rstatus" = 0 ] && grep -q 'online' "$tmp/rec2.err" &&
        pass "a Pioneer's handshake against the recorded answers on TCP: online ($(tail -n 1 "$tmp/rep.err"))" ||
        fail "p2os over TCP: exit $rstatus, $(cat "$tmp/rec2.err"); replay: $(cat "$tmp/rep.err")"
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
