#!/bin/sh
# A link that is taken, with real processes: a second emulator on a pty link
# another one serves is refused, in one line naming the one that serves it,
# and leaves it serving (it used to take the link over, and delete it on
# exit); a link an emulator left behind when it was killed is stale and
# taken. A second client of a TCP robot that has one is told that another
# client holds the robot, at which address (it used to hear "no answer"),
# and the emulator's log names both clients.
# usage: busy_link.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/testlib.sh"
holder=
cleanup() {
    for p in $sim $holder; do kill "$p" 2>/dev/null; done
}

# ---- the pty link ----
link=$tmp/robot
start_emulator "botwire sim: kobuki on /dev/pts/" kobuki --pty "$link" --for 60
first=$sim
served=$(readlink "$link")
"$bw" sim lobot --pty "$link" --for 5 >"$tmp/second.out" 2>"$tmp/second.err"
status=$?
if [ "$status" = 1 ] && [ "$(wc -l <"$tmp/second.err")" = 1 ] &&
    grep -q "$link is served by another emulator (pid $first, on $served)" "$tmp/second.err" &&
    [ ! -s "$tmp/second.out" ]; then
    pass "a second emulator on the link is refused: $(cat "$tmp/second.err")"
else
    fail "second emulator: status $status, $(cat "$tmp/second.err") $(cat "$tmp/second.out")"
fi
[ "$(readlink "$link")" = "$served" ] && pass "the link still leads to the first one ($served)" ||
    fail "the link now leads to $(readlink "$link"), not $served"
"$bw" drive "kobuki:$link" --v 0.2 --for 1 >"$tmp/drive.out" 2>"$tmp/drive.err"
status=$?
last=$(tail -n 1 "$tmp/drive.out")
x=$(field x "$last")
[ "$status" = 0 ] && cruised "$x" 0.2 "$last" "$tmp/drive.out" && pass "the first one still serves: drove x = $x m" ||
    fail "drive through the link: status $status, $last $(cat "$tmp/drive.err")"

# Killed without a word, the first leaves its link behind, leading to a pty
# that is gone, or whose number another program's new pty has taken since
# (tests side by side): stale either way (that pty is newer than the link),
# and the next emulator takes it. (The second case used to be refused.)
kill -KILL "$first"
wait "$first" 2>/dev/null
sim=
[ -L "$link" ] && pass "a killed emulator leaves its link ($(readlink "$link"))" ||
    fail "no link left behind"
rm -f "$tmp/announce"
start_emulator "botwire sim: lobot on /dev/pts/" lobot --pty "$link" --for 60
"$bw" drive "lobot:$link" --v 0.1 --for 0.3 >"$tmp/drive.out" 2>"$tmp/drive.err" &&
    pass "the stale link is taken over: a lobot drives through it" ||
    fail "stale link: $(cat "$tmp/drive.err")"
kill "$sim"
wait "$sim" 2>/dev/null
sim=

# ---- a TCP robot with a client ----
rm -f "$tmp/announce"
start_emulator "botwire sim: p2os p2dx on tcp://127.0.0.1:" p2os --tcp 127.0.0.1:0 --for 60
port=$(echo "$ready" | sed 's/.*tcp:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/')
url=p2os:tcp://127.0.0.1:$port
# The first client, online (its first line read) and driving until it is
# interrupted after the second has tried (a drive of a fixed time could
# end before a loaded machine started the second); its output is read all
# along (drive stops when nobody reads).
mkfifo "$tmp/lines"
"$bw" drive "$url" --v 0.1 >"$tmp/lines" 2>"$tmp/holder.err" &
holder=$!
exec 3<"$tmp/lines"
read -r line <&3
cat <&3 >/dev/null &
drain=$!
"$bw" drive "$url" --v 0.1 --for 1 >"$tmp/busy.out" 2>"$tmp/busy.err"
status=$?
if [ "$status" = 1 ] && [ "$(wc -l <"$tmp/busy.err")" = 1 ] &&
    grep -q "the robot at 127.0.0.1:$port is held by another client" "$tmp/busy.err" &&
    [ ! -s "$tmp/busy.out" ]; then
    pass "a second client is told: $(cat "$tmp/busy.err")"
else
    fail "second client: status $status, $(cat "$tmp/busy.err")"
fi
kill -INT "$holder"
wait "$holder"
holder=
wait "$drain"
exec 3<&-
holder_at=$(sed -n 's/^botwire sim: client \(.*\) connected$/\1/p' "$tmp/sim.err" | head -n 1)
refused=$(grep "refused" "$tmp/sim.err" | head -n 1)
case $refused in
"botwire sim: refused 127.0.0.1:"*": client $holder_at holds the robot") ok=1 ;;
*) ok=0 ;;
esac
[ "$ok" = 1 ] && [ -n "$holder_at" ] && pass "the emulator names both: $refused" ||
    fail "emulator log: $(cat "$tmp/sim.err")"
# The robot is free again for the next one.
"$bw" drive "$url" --v 0.1 --for 0.3 >/dev/null 2>"$tmp/next.err" &&
    pass "once the first client has gone, the next one drives" ||
    fail "next client: $(cat "$tmp/next.err")"

finish "busy-link"
