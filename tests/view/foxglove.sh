#!/bin/sh
# The live view against a real Foxglove client: the @foxglove/ws-protocol
# package (npm, pinned by tests/npm/package-lock.json, installed into the
# build by scripts/deps.sh) under node. An emulated Kobuki serves its true
# pose (botwire sim --view), a driver serves and takes commands (botwire
# view URL); the client subscribes to the true pose (at least 10 messages a
# second), drives the robot on the command channel and sees it move; the
# true pose it heard last is the one the emulator says it stopped at.
# usage: foxglove.sh BOTWIRE NODE_MODULES
set -u
bw=$1
export NODE_PATH=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testlib.sh"
view=
cleanup() {
    [ -n "$view" ] && kill "$view" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}
[ -d "$NODE_PATH/@foxglove/ws-protocol" ] || {
    fail "no @foxglove/ws-protocol in $NODE_PATH (make deps installs it)"
    finish foxglove
}

# The emulator, its view on any free port: its second line says where.
mkfifo "$tmp/sim.fifo"
"$bw" sim kobuki --pty "$tmp/kobuki" --view 127.0.0.1:0 >"$tmp/sim.fifo" 2>"$tmp/sim.err" &
sim=$!
exec 3<"$tmp/sim.fifo"
read -r line <&3
read -r vline <&3
case $vline in
"botwire sim: view on http://127.0.0.1:"*) pass "$line; $vline" ;;
*) fail "the emulator did not announce its view: $line / $vline ($(cat "$tmp/sim.err"))"; finish foxglove ;;
esac
sim_ws=$(echo "$vline" | sed 's|.*http://|ws://|')

mkfifo "$tmp/view.fifo"
"$bw" view "kobuki:$tmp/kobuki" --listen 127.0.0.1:0 >"$tmp/view.fifo" 2>"$tmp/view.err" &
view=$!
exec 4<"$tmp/view.fifo"
read -r line <&4
case $line in
"botwire view: serving http://127.0.0.1:"*) pass "$line" ;;
*) fail "the view did not announce itself: $line ($(cat "$tmp/view.err"))"; finish foxglove ;;
esac
view_ws=$(echo "$line" | sed 's|.*http://\([^ ]*\) .*|ws://\1|')

node "$here/foxglove_check.js" "$sim_ws" "$view_ws" >"$tmp/node.out" 2>&1
status=$?
grep -E '^(ok|FAIL): ' "$tmp/node.out"
grep -qE '^FAIL' "$tmp/node.out" && failures=$((failures + 1))
[ "$status" = 0 ] || fail "the Foxglove client exited $status: $(grep -v -E '^(ok|FAIL|truth) ' "$tmp/node.out" | tail -n 5)"
heard=$(sed -n 's/^truth //p' "$tmp/node.out")

kill -INT "$view"
wait "$view"
pass "view stopped: $(tail -n 2 "$tmp/view.err" | tr '\n' ' ')"
view=
kill -INT "$sim"
wait "$sim"
sim=
said=$(pose_said "$tmp/sim.err")
# The last true pose the client heard is where the emulator says the robot
# stopped (both to the millimetre, as printed).
if [ -n "$heard" ] && awk -v a="$heard" -v b="$said" 'BEGIN { split(a, p, " "); split(b, q, " ");
        d = p[1] - q[1]; e = p[2] - q[2]; exit !(d * d + e * e < 4e-6) }'; then
    pass "the true pose heard ($heard) is the emulator's ($said)"
else
    fail "the true pose heard ($heard) is not the emulator's ($said)"
fi
finish foxglove
