#!/bin/sh
# botwire as a systemd service, without systemd: a listener on its own
# NOTIFY_SOCKET hears what systemd would (sd_notify's datagrams).
# 1. sim: READY=1 once it serves (the pty's link is there when it comes),
#    with the ready line as STATUS; WATCHDOG=1 at least once per
#    WATCHDOG_USEC.
# 2. ros2 (when built with Cyclone DDS): READY=1 only once the robot is
#    online.
# 3. --pidfile: the detached emulator's pid, there when the caller returns,
#    gone when it ends.
# 4. The unit, botwire@.service, as installed: systemd-analyze verify
#    accepts it (where systemd-analyze is; the caller says if not).
# 5. Every long-running command (replay, view, ros2 when built, as sim
#    above) takes the same service options: --detach returns with its
#    first line and the serving process's pid, --pidfile holds that pid
#    until it ends, --log gets its later lines, named with the pid; --log
#    without --detach is refused.
# 6. A stop as soon as the pid file is there removes it all the same.
# usage: service.sh BOTWIRE UNIT [ROS2_BUILT]
set -u
bw=$1 unit=$2 ros2=${3:-0}
. "$(dirname "$0")/testlib.sh"
# The ROS 2 node's DDS as the ROS 2 tests have it: loopback only, on a
# domain no other test holds (ROS 2's default would reach the network).
[ "$ros2" = 1 ] && . "$(dirname "$0")/ros2/ros2lib.sh"
lis=
cleanup() {
    [ -n "$lis" ] && kill "$lis" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}

# listen: a listener on $tmp/notify, each datagram a line "T TEXT" (T: s
# since it started, the datagram's lines joined by |) in $tmp/heard, until
# heard_all; returns once it is bound. It ends on a word from the test,
# not after a silence of a guessed length (a notifier that a loaded
# machine started late was missed); its 60 s are for a broken build only.
listen() {
    rm -f "$tmp/notify" "$tmp/heard"
    /usr/bin/python3 -u -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
print("bound", flush=True)
t0 = time.monotonic()
try:
    while True:
        m = s.recv(4096).decode()
        if m == "END":
            break
        print("%.3f %s" % (time.monotonic() - t0, m.replace("\n", "|")), flush=True)
except socket.timeout:
    pass
' "$tmp/notify" >"$tmp/heard" &
    lis=$!
    wait_line "$tmp/heard" "^bound" 30 || fail "the listener never bound"
}
# heard_all: once the notifier has ended, everything it sent is queued
# before the END sent here (a datagram socket keeps their order), so the
# listener has heard it all when it stops.
heard_all() {
    /usr/bin/python3 -c '
import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"END", sys.argv[1])' "$tmp/notify"
    wait "$lis"
    lis=
}
# wait_count FILE PATTERN N SECONDS: true once N lines of FILE match
# PATTERN (it follows the file as it grows), false if not after SECONDS.
wait_count() {
    [ "$(timeout "$4" tail -n +1 -F "$1" 2>/dev/null | grep -m "$3" -c -e "$2")" = "$3" ]
}

# 1. sim, serving until it has been heard: READY=1, then seven WATCHDOG=1
# (their period is judged below), then Ctrl-C. --for 60 and the waits'
# 30 s are for a broken build only.
listen
env -u WATCHDOG_PID NOTIFY_SOCKET="$tmp/notify" WATCHDOG_USEC=1000000 "$bw" sim kobuki --pty "$tmp/k" --for 60 \
    >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim=$! sim_pid=$!
wait_line "$tmp/heard" "READY=1" 30
ready_seen=$([ -e "$tmp/k" ] && echo 1 || echo 0)
wait_count "$tmp/heard" "WATCHDOG=1" 7 30
kill -INT "$sim"
wait "$sim"
sim=
heard_all
ready=$(grep -c 'READY=1' "$tmp/heard")
grep -q "READY=1|MAINPID=$sim_pid|STATUS=$(head -n 1 "$tmp/sim.out")\$" "$tmp/heard" && [ "$ready" = 1 ] &&
    [ "$ready_seen" = 1 ] && pass "sim: READY=1 once, when its pty is there: $(grep READY "$tmp/heard" | cut -c1-90)" ||
    fail "sim READY: $ready, link there $ready_seen: $(cat "$tmp/heard")"
# The watchdog: WATCHDOG=1 every WATCHDOG_USEC / 2 (0.5 s), as
# sd_watchdog_enabled(3) advises, so that a ping late by up to half the
# period still meets systemd's deadline. A gap as heard is the sender's
# period and how late the scheduler ran the sender and the listener: a
# loaded machine lengthens some gaps, not most, so the median is the
# period: from 0.4 s to halfway to systemd's deadline, 0.75 s. A ping once
# per WATCHDOG_USEC (at the deadline), or none, fails.
gaps=$(awk '/WATCHDOG=1/ { if (n++) print $1 - last; last = $1 }' "$tmp/heard" | sort -n |
    awk '{ g[NR] = $1 } END { if (NR) print NR, g[int((NR + 1) / 2)], g[NR]; else print 0, -1, -1 }')
set -- $gaps
[ "$1" -ge 6 ] && awk -v m="$2" 'BEGIN { exit !(m >= 0.4 && m < 0.75) }' &&
    pass "sim: $(($1 + 1)) WATCHDOG=1, the median gap $2 s, the longest $3 s (WATCHDOG_USEC 1 s)" ||
    fail "sim watchdog: $(($1 + 1)) pings, median gap $2 s, longest $3 s ($(cat "$tmp/heard"))"
# a fleet's ready lines, one per robot, in one STATUS line
listen
env -u WATCHDOG_USEC -u WATCHDOG_PID NOTIFY_SOCKET="$tmp/notify" "$bw" sim kobuki --robots 2 \
    --pty "$tmp/f" --for 0.5 >"$tmp/fleet.out" 2>/dev/null
heard_all
want="$(sed -n 1p "$tmp/fleet.out"); $(sed -n 2p "$tmp/fleet.out")"
[ "$(grep -vc '^bound' "$tmp/heard")" = 1 ] && grep -q "READY=1|MAINPID=[0-9]*|STATUS=$want\$" "$tmp/heard" &&
    pass "a fleet: one READY=1, its robots' lines in one STATUS" || fail "fleet READY: $(cat "$tmp/heard")"

# 2. ros2: ready once the robot is online (the base's first valid frames).
# The node serves until it has said so, then Ctrl-C (status 130, the robot
# stopped all the same): a node given a fixed time could run it out while
# a loaded machine brought up DDS. --for 60 and the wait's 30 s are for a
# broken build only.
if [ "$ros2" = 1 ]; then
    listen
    env -u WATCHDOG_USEC NOTIFY_SOCKET="$tmp/notify" "$bw" ros2 sim:kobuki --for 60 >"$tmp/ros2.out" 2>"$tmp/ros2.err" &
    node=$!
    wait_line "$tmp/heard" "READY=1" 30
    kill -INT "$node"
    wait "$node"
    status=$?
    heard_all
    grep -q "READY=1|MAINPID=$node|STATUS=1 robot online\$" "$tmp/heard" && [ "$status" = 130 ] &&
        pass "ros2: READY=1 once the robot is online ($(grep READY "$tmp/heard" | cut -c1-60))" ||
        fail "ros2 READY: exit $status, $(cat "$tmp/heard") $(cat "$tmp/ros2.err")"
fi

# 3. --pidfile
out=$(env -u NOTIFY_SOCKET "$bw" sim kobuki --pty "$tmp/d" --detach --pidfile "$tmp/d.pid" --for 60 2>&1)
pid=$(cat "$tmp/d.pid" 2>/dev/null)
[ -n "$pid" ] && echo "$out" | grep -q "(pid $pid)$" && kill -0 "$pid" &&
    pass "--pidfile: $pid, the detached emulator's, there when its caller returned" ||
    fail "--pidfile: '$pid', $out"
kill "$pid" 2>/dev/null
# gone PID: returns once the process has ended, as an event, not looked
# for after a sleep: its pidfd (Linux 5.3) becomes readable when it has
# gone (it removes its pid file before). 30 s are for a broken build only.
gone() {
    /usr/bin/python3 -c '
import os, select, sys
try:
    fd = os.pidfd_open(int(sys.argv[1]))
except ProcessLookupError:
    sys.exit(0)
select.select([fd], [], [], 30)' "$1"
}
gone "$pid"
[ ! -e "$tmp/d.pid" ] && pass "... removed when it ended" || fail "the pid file outlived the emulator"
expect_error "--pidfile in a missing folder" 1 "cannot write $tmp/no/such.pid" \
    "$bw" sim kobuki --pty "$tmp/e" --pidfile "$tmp/no/such.pid" --for 1

# 4. The unit as installed (its ExecStart this build's botwire).
if [ "$unit" != - ]; then
    mkdir -p "$tmp/units"
    sed "s|^ExecStart=[^ ]*|ExecStart=$bw|" "$unit" >"$tmp/units/botwire@robot1.service"
    systemd-analyze verify --man=no "$tmp/units/botwire@robot1.service" >"$tmp/verify" 2>&1 &&
        [ ! -s "$tmp/verify" ] && pass "systemd-analyze verify accepts botwire@robot1.service" ||
        fail "systemd-analyze verify: $(cat "$tmp/verify")"
    grep -q '^Type=notify$' "$unit" && grep -q '^Restart=on-failure$' "$unit" &&
        grep -q '^EnvironmentFile=/etc/botwire/%i.conf$' "$unit" &&
        pass "the unit: Type=notify, Restart=on-failure, its command line from /etc/botwire/%i.conf" ||
        fail "the unit: $(cat "$unit")"
fi

# 5. The same options on every long-running command. Each serves until
# it is stopped here (--for 60 is for a broken build only).
env -u NOTIFY_SOCKET "$bw" record sim:kobuki -o "$tmp/r.jsonl" --for 0.3 2>/dev/null
detached() { # NAME COMMAND...: run detached, check, stop, check
    name=$1
    shift
    rm -f "$tmp/$name.pid" "$tmp/$name.log"
    out=$(env -u NOTIFY_SOCKET "$@" --detach --pidfile "$tmp/$name.pid" --log "$tmp/$name.log" 2>&1)
    status=$?
    pid=$(cat "$tmp/$name.pid" 2>/dev/null)
    if [ "$status" = 0 ] && [ -n "$pid" ] && echo "$out" | tail -n 1 | grep -q "^botwire $name: .* (pid $pid)\$" &&
        kill -0 "$pid" 2>/dev/null; then
        pass "$name --detach: returned with its first line and pid $pid, serving"
    else
        fail "$name --detach: exit $status, pid file '$pid', said: $out"
        [ -n "$pid" ] && kill "$pid" 2>/dev/null
        return
    fi
    kill "$pid"
    gone "$pid"
    [ ! -e "$tmp/$name.pid" ] && grep -q "^botwire $name \[.*, pid $pid\]: " "$tmp/$name.log" &&
        pass "... stopped: its pid file gone, its lines in --log named with its pid" ||
        fail "$name stopped: pid file $(ls "$tmp/$name.pid" 2>&1), log: $(cat "$tmp/$name.log")"
    expect_error "$name --log without --detach" 2 "--log goes with --detach" "$@" --log "$tmp/x.log"
}
detached replay "$bw" replay "$tmp/r.jsonl" --tcp 0
detached view "$bw" view sim:kobuki --listen 0 --for 60
[ "$ros2" = 1 ] && detached ros2 "$bw" ros2 sim:kobuki --for 60

# 6. A stop as soon as the pid file is there (a script's `kill $(cat
# PIDFILE)` right after the start) ends the command as any stop does: its
# pid file removed, its first line out whole. It has caught signals before
# it writes the pid file. Made certain, not left to the scheduler: its
# standard output is a pipe filled beforehand, so that the command, once
# it has written the pid file, waits in writing its first line until the
# stop has come; then the pipe is drained until the command has ended.
# (ros2 says its robots' lines before its pid file, so a full pipe holds
# it before; it catches signals before it opens anything.)
stopped_at_once() { # NAME COMMAND...
    name=$1
    shift
    rm -f "$tmp/full" "$tmp/$name.now.pid"
    mkfifo "$tmp/full"
    exec 3<>"$tmp/full"
    # The filler's length, to tell the command's own output after it.
    if ! filled=$(/usr/bin/python3 -c '
import os
os.set_blocking(3, False)
n = 0
try:
    while True:
        n += os.write(3, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(3, True)
print(n)'); then
        fail "$name: could not fill the pipe"
        exec 3>&-
        return
    fi
    env -u NOTIFY_SOCKET "$@" --pidfile "$tmp/$name.now.pid" >&3 2>"$tmp/$name.now.err" &
    now=$!
    if wait_line "$tmp/$name.now.pid" "^$now\$" 30; then
        kill -TERM "$now"
        wrote=yes
    else
        kill -KILL "$now"
        wrote=no
    fi
    # The drain: what the pipe holds, until the command has ended (its
    # pidfd readable) and the pipe is empty.
    /usr/bin/python3 -c '
import os, select, sys
out = open(sys.argv[2], "wb")
try:
    pid = os.pidfd_open(int(sys.argv[1]))
    ended = False
except ProcessLookupError:  # ended, and reaped by the shell already
    pid, ended = 3, True
os.set_blocking(3, False)
while True:
    r, _, _ = select.select([3, pid], [], [], 60)
    if not r:
        sys.exit("the drain: nothing for 60 s")
    ended = ended or pid in r
    try:
        while True:
            out.write(os.read(3, 65536))
    except BlockingIOError:
        if ended:
            break' "$now" "$tmp/$name.now.out"
    wait "$now"
    status=$?
    exec 3>&-
    # Its first line, whole: it begins as it should and its newline came.
    tail -c +$((filled + 1)) "$tmp/$name.now.out" | head -n 1 >"$tmp/$name.now.first"
    first=$(cat "$tmp/$name.now.first")
    whole=no
    [ "$(tail -c 1 "$tmp/$name.now.first" | od -An -tx1 | tr -d ' ')" = 0a ] &&
        echo "$first" | grep -q "^botwire $name: " && whole=yes
    case $status in 0 | 143) ended=yes ;; *) ended=no ;; esac
    [ "$wrote" = yes ] && [ "$ended" = yes ] && [ ! -e "$tmp/$name.now.pid" ] && [ "$whole" = yes ] &&
        pass "$name: stopped as soon as its pid file was there: it ended (exit $status), removed it, and its first line came out whole after the pipe's $filled bytes: $first" ||
        fail "$name stopped at once: pid file written: $wrote, exit $status, pid file now: $(cat "$tmp/$name.now.pid" 2>&1), first line: '$first', said: $(cat "$tmp/$name.now.err")"
}
stopped_at_once sim "$bw" sim kobuki --pty "$tmp/n" --for 60
stopped_at_once replay "$bw" replay "$tmp/r.jsonl" --tcp 0
stopped_at_once view "$bw" view sim:kobuki --listen 0 --for 60

finish "service"
