#!/bin/sh
# A stalled client does not slow the driver: botwire drive kobuki:PTY --view
# runs twice against an emulated Kobuki on a pty (its serial line paced at
# 115200 baud), once with no client and once with a client that asks for a
# lot (each channel, the state one 100 times over) and then stops reading its
# socket. Measured each time: the drive commands the emulator received per
# second (the driver sends one each turn of its loop) and the longest gap
# between two turns of the driver's loop (its latency to what the robot
# says, at worst). The stalled run must lose messages (counted: the stall
# was real) and keep the rate and the gap within a generous bound of the
# free run's. The only wall-clock assertion of the view's tests.
# usage: stalled.sh BOTWIRE
set -u
bw=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testlib.sh"
client=
cleanup() {
    [ -n "$client" ] && kill "$client" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}
python=/usr/bin/python3
seconds=6

# run NAME STALL: one drive run; sets rate (commands/s), gap (ms), dropped.
run() {
    rm -f "$tmp/announce"
    start_emulator "botwire sim: kobuki on" kobuki --pty "$tmp/kobuki"
    rm -f "$tmp/drive.fifo"
    mkfifo "$tmp/drive.fifo"
    "$bw" drive "kobuki:$tmp/kobuki" --v 0.05 --for "$seconds" --view 127.0.0.1:0 \
        >"$tmp/drive.out" 2>"$tmp/drive.fifo" &
    drive=$!
    exec 5<"$tmp/drive.fifo"
    read -r line <&5
    case $line in
    "botwire drive: view on http://127.0.0.1:"*) ;;
    *) fail "$1: drive did not announce its view: $line"; finish stalled ;;
    esac
    if [ "$2" = 1 ]; then
        rm -f "$tmp/client.fifo"
        mkfifo "$tmp/client.fifo"
        $python "$here/stalled_client.py" "$(echo "$line" | sed 's|.*http://|ws://|')" \
            >"$tmp/client.fifo" &
        client=$!
        read -r said <"$tmp/client.fifo"
        case $said in
        stalled:*) pass "$1: $said" ;;
        *) fail "$1: the stalled client did not start: $said"; finish stalled ;;
        esac
    fi
    cat <&5 >"$tmp/drive.err"
    exec 5<&-
    wait "$drive"
    [ -n "$client" ] && kill "$client" && wait "$client" 2>/dev/null
    client=
    stop_emulator
    frames=$(sed -n 's/.*stopped; \([0-9]*\) command frames.*/\1/p' "$tmp/sim.err")
    viewline=$(grep "view: served" "$tmp/drive.err")
    gap=$(echo "$viewline" | sed -n 's/.*longest loop gap \([0-9.]*\) ms.*/\1/p')
    dropped=$(echo "$viewline" | sed -n 's/.*messages (\([0-9]*\) dropped.*/\1/p')
    # The run is --for plus the stop and its settling: count over --for.
    rate=$(awk -v f="$frames" -v s="$seconds" 'BEGIN { printf "%.1f", f / s }')
    pass "$1: $frames drive commands reached the robot ($rate/s), longest loop gap $gap ms, $dropped messages dropped ($viewline)"
}

run "no client" 0
rate0=$rate gap0=$gap
run "a stalled client" 1
if [ "${dropped:-0}" -gt 0 ]; then
    pass "the stalled client lost $dropped messages, counted"
else
    fail "the stalled client lost nothing: it did not stall the server's queue"
fi
if awk -v a="$rate0" -v b="$rate" 'BEGIN { exit !(b >= 0.8 * a) }'; then
    pass "command rate with the stalled client $rate/s, without $rate0/s"
else
    fail "command rate with the stalled client $rate/s, without $rate0/s: under 80%"
fi
if awk -v a="$gap0" -v b="$gap" 'BEGIN { exit !(b <= 2 * a + 30) }'; then
    pass "longest loop gap with the stalled client $gap ms, without $gap0 ms"
else
    fail "longest loop gap with the stalled client $gap ms, without $gap0 ms: over twice and 30 ms"
fi
finish stalled
