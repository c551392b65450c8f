#!/bin/sh
# A stalled client does not slow the driver: two `botwire drive kobuki:PTY
# --view` run side by side, each against an emulated Kobuki of its own on a
# pty (its serial line paced at 115200 baud), each with a client that asks
# for a lot (each channel, the state one 100 times over): one reads all it
# is sent, the other stops reading its socket. The stalled run must lose
# messages (counted: the stall was real); its drive must end by itself,
# send the robot as many commands per second of its own run as the reading
# one, and spend no more of the processor than it. The two run at once,
# with the same messages to make for their clients, so that only the stall
# differs.
#
# Nothing is judged by the wall clock: a loaded machine held one drive back
# for a second while its twin lost 80 ms (their longest loop gaps, which
# the view reports and this prints, were compared before and failed so).
# What a view that waits on a stalled client does shows without it: a
# blocking write stops the loop for good (the drive never ends), a retry
# that spins burns the processor.
# usage: stalled.sh BOTWIRE
set -u
bw=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testlib.sh"
clients= reading_sim= stalled_sim= reading_drive= stalled_drive=
cleanup() {
    for p in $clients $reading_sim $stalled_sim $reading_drive $stalled_drive; do
        kill "$p" 2>/dev/null
    done
}
python=/usr/bin/python3
seconds=6

# emulator NAME: an emulated Kobuki on the pty $tmp/NAME, once it says so
# (its stderr in $tmp/NAME.sim.err); its pid in $pid.
emulator() {
    mkfifo "$tmp/$1.announce"
    "$bw" sim kobuki --pty "$tmp/$1" >"$tmp/$1.announce" 2>"$tmp/$1.sim.err" &
    pid=$!
    read -r ready <"$tmp/$1.announce"
    case $ready in
    "botwire sim: kobuki on"*) pass "$1: $ready" ;;
    *) fail "$1: the emulator did not announce itself: $ready ($(cat "$tmp/$1.sim.err"))"; finish stalled ;;
    esac
}
# drive NAME: the driver on $tmp/NAME with its view, once its view is up
# (its stdout in $tmp/NAME.out, the rest of its stderr on fd 5 for
# `measure`, then the processor time it took, as `times` gives it); its
# pid in $pid, its view's ws:// URL in $ws. It ends by itself after its
# --for and the robot's settling (2 s at most): the 60 s of timeout (exit
# 124) only end one whose loop has stopped, a hang.
drive() {
    mkfifo "$tmp/$1.drive"
    sh -c 'timeout 60 "$0" "$@"; s=$?; times >&2; exit $s' \
        "$bw" drive "kobuki:$tmp/$1" --v 0.05 --for "$seconds" --view 127.0.0.1:0 \
        >"$tmp/$1.out" 2>"$tmp/$1.drive" &
    pid=$!
    exec 5<"$tmp/$1.drive"
    read -r line <&5
    case $line in
    "botwire drive: view on http://127.0.0.1:"*) ws=$(echo "$line" | sed 's|.*http://|ws://|') ;;
    *) fail "$1: drive did not announce its view: $line"; finish stalled ;;
    esac
}
# client NAME MODE: the client (MODE: --reading, or none: stalled) of the
# view at $ws, once it says it has subscribed; its pid added to $clients.
client() {
    rm -f "$tmp/client.fifo"
    mkfifo "$tmp/client.fifo"
    $python "$here/stalled_client.py" $2 "$ws" >"$tmp/client.fifo" &
    clients="$clients $!"
    read -r said <"$tmp/client.fifo"
    case $said in
    reading:* | stalled:*) pass "$1: $said" ;;
    *) fail "$1: the client did not start: $said"; finish stalled ;;
    esac
}
# measure NAME DRIVE_PID SIM_PID: once the drive has ended (its exit in
# $dstatus), rate (commands per second of its run), cpu (s), dropped; the
# emulator stopped.
measure() {
    wait "$2"
    dstatus=$?
    kill -INT "$3"
    wait "$3"
    frames=$(sed -n 's/.*stopped; \([0-9]*\) command frames.*/\1/p' "$tmp/$1.sim.err")
    viewline=$(grep "view: served" "$tmp/$1.err")
    dropped=$(echo "$viewline" | sed -n 's/.*messages (\([0-9]*\) dropped.*/\1/p')
    # The drive's own time, from its start to its last line (the stop and
    # the robot's settling included, as the commands are).
    took=$(field t "$(tail -n 1 "$tmp/$1.out")")
    rate=$(awk -v f="${frames:-0}" -v s="${took:-0}" 'BEGIN { if (s > 0) printf "%.1f", f / s; else print 0 }')
    # user and system time of the drive ("0m0.120000s 0m0.030000s")
    cpu=$(tail -n 1 "$tmp/$1.err" | awk '{ split($1, u, "m"); split($2, s, "m"); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
    if [ "$dstatus" = 0 ]; then
        pass "$1: $frames drive commands reached the robot in the drive's ${took:-?} s ($rate/s), $cpu s of processor time, $dropped messages dropped ($viewline)"
    else
        fail "$1: the drive exited $dstatus (124: its loop stopped): $(tail -n 3 "$tmp/$1.err")"
    fi
}

emulator reading
reading_sim=$pid
emulator stalled
stalled_sim=$pid
drive reading
reading_drive=$pid
exec 6<&5
client reading --reading
drive stalled
stalled_drive=$pid
client stalled ""
# The rest of each drive's stderr, to its end.
cat <&6 >"$tmp/reading.err" &
reader=$!
cat <&5 >"$tmp/stalled.err"
wait "$reader"
exec 5<&- 6<&-

measure reading "$reading_drive" "$reading_sim"
rate0=$rate cpu0=$cpu dropped0=$dropped
measure stalled "$stalled_drive" "$stalled_sim"
reading_drive= reading_sim= stalled_drive= stalled_sim=
for p in $clients; do
    kill "$p" 2>/dev/null # the reading one ends with its server
    wait "$p" 2>/dev/null
done
clients=
if [ "${dropped:-0}" -gt 0 ]; then
    pass "the stalled client lost $dropped messages, counted (the reading one ${dropped0:-?})"
else
    fail "the stalled client lost nothing: it did not stall the server's queue"
fi
# 80%: each driver sends a command for each of its robot's frames, 50 a
# second by the robot's clock, however late it reads them. A view that
# waits on the stalled client stops that (and the drive never ends).
if awk -v a="$rate0" -v b="$rate" 'BEGIN { exit !(b >= 0.8 * a) }'; then
    pass "command rate with the stalled client $rate/s, with the reading one $rate0/s"
else
    fail "command rate with the stalled client $rate/s, with the reading one $rate0/s: under 80%"
fi
# The processor time each drive took: what its loop did, which a machine
# that holds it back does not change. Dropping a stalled client's messages
# costs no more than sending them to one that reads: 1.5 times and 50 ms
# (`times` counts in hundredths, and one drive of two may take a few more
# turns). A view that retries the stalled client's full socket spins its
# loop for the whole run, seconds.
if awk -v a="$cpu0" -v b="$cpu" 'BEGIN { exit !(b <= 1.5 * a + 0.05) }'; then
    pass "processor time with the stalled client $cpu s, with the reading one $cpu0 s"
else
    fail "processor time with the stalled client $cpu s, with the reading one $cpu0 s: over 1.5 times and 50 ms"
fi
finish stalled
