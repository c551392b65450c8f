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
# usage: service.sh BOTWIRE UNIT [ROS2_BUILT]
set -u
bw=$1 unit=$2 ros2=${3:-0}
. "$(dirname "$0")/testlib.sh"
lis=
cleanup() { [ -n "$lis" ] && kill "$lis" 2>/dev/null; }

# listen SECONDS: a listener on $tmp/notify for SECONDS, each datagram a
# line "T TEXT" (T: s since it started, the datagram's lines joined by |)
# in $tmp/heard; returns once it is bound.
listen() {
    rm -f "$tmp/notify" "$tmp/heard"
    /usr/bin/python3 -u -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(float(sys.argv[2]))
print("bound", flush=True)
t0 = time.monotonic()
try:
    while True:
        m = s.recv(4096).decode()
        print("%.3f %s" % (time.monotonic() - t0, m.replace("\n", "|")), flush=True)
except socket.timeout:
    pass
' "$tmp/notify" "$1" >"$tmp/heard" &
    lis=$!
    wait_line "$tmp/heard" "^bound" 10 || fail "the listener never bound"
}

# 1. sim
listen 5
env -u WATCHDOG_PID NOTIFY_SOCKET="$tmp/notify" WATCHDOG_USEC=1000000 "$bw" sim kobuki --pty "$tmp/k" --for 3 \
    >"$tmp/sim.out" 2>"$tmp/sim.err" &
sim=$! sim_pid=$!
wait_line "$tmp/heard" "READY=1" 10
ready_seen=$([ -e "$tmp/k" ] && echo 1 || echo 0)
wait "$sim"
sim=
wait "$lis"
lis=
ready=$(grep -c 'READY=1' "$tmp/heard")
grep -q "READY=1|MAINPID=$sim_pid|STATUS=$(head -n 1 "$tmp/sim.out")\$" "$tmp/heard" && [ "$ready" = 1 ] &&
    [ "$ready_seen" = 1 ] && pass "sim: READY=1 once, when its pty is there: $(grep READY "$tmp/heard" | cut -c1-90)" ||
    fail "sim READY: $ready, link there $ready_seen: $(cat "$tmp/heard")"
# the watchdog: never a gap of WATCHDOG_USEC (1 s, systemd's deadline)
# between two, from the first to the end of a 3 s run
gaps=$(awk '/WATCHDOG=1/ { if (n++) { g = $1 - last; if (g > max) max = g } last = $1 } END { print n + 0, max + 0 }' "$tmp/heard")
set -- $gaps
[ "$1" -ge 5 ] && awk -v m="$2" 'BEGIN { exit !(m < 1.0) }' &&
    pass "sim: $1 WATCHDOG=1, the longest gap $2 s (WATCHDOG_USEC 1 s)" ||
    fail "sim watchdog: $gaps ($(cat "$tmp/heard"))"
# a fleet's ready lines, one per robot, in one STATUS line
listen 3
env -u WATCHDOG_USEC -u WATCHDOG_PID NOTIFY_SOCKET="$tmp/notify" "$bw" sim kobuki --robots 2 \
    --pty "$tmp/f" --for 0.5 >"$tmp/fleet.out" 2>/dev/null
wait "$lis"
lis=
want="$(sed -n 1p "$tmp/fleet.out"); $(sed -n 2p "$tmp/fleet.out")"
[ "$(grep -vc '^bound' "$tmp/heard")" = 1 ] && grep -q "READY=1|MAINPID=[0-9]*|STATUS=$want\$" "$tmp/heard" &&
    pass "a fleet: one READY=1, its robots' lines in one STATUS" || fail "fleet READY: $(cat "$tmp/heard")"

# 2. ros2: ready once the robot is online (the base's first valid frames)
if [ "$ros2" = 1 ]; then
    listen 5
    env -u WATCHDOG_USEC NOTIFY_SOCKET="$tmp/notify" "$bw" ros2 sim:kobuki --for 2 >"$tmp/ros2.out" 2>"$tmp/ros2.err" &
    node=$!
    wait "$node"
    status=$?
    wait "$lis"
    lis=
    grep -q "READY=1|MAINPID=$node|STATUS=1 robot online\$" "$tmp/heard" && [ "$status" = 0 ] &&
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
k=0
while [ -e "$tmp/d.pid" ] && kill -0 "$pid" 2>/dev/null && [ $k -lt 200 ]; do
    sleep 0.05
    k=$((k + 1))
done
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

finish "service"
