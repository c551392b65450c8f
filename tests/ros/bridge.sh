#!/bin/sh
# botwire_ros under a real roscore on a free port, on sim:kobuki and
# sim:p2os, started by roslaunch with the package's launch file; a cmd_vel
# publisher and a watcher (ros_bridge_check) in other processes.
# usage: bridge.sh ROS_PACKAGE_DIR CHECK BOTWIRE
set -u
pkgdir=$1 check=$2 bw=$3
. "$(dirname "$0")/../testlib.sh"

# A port nobody listens on, and ROS's files in the test's own folder.
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export ROS_MASTER_URI="http://127.0.0.1:$port" ROS_HOME="$tmp/ros" ROS_LOG_DIR="$tmp/ros/log"
export ROS_PACKAGE_PATH="$pkgdir${ROS_PACKAGE_PATH:+:$ROS_PACKAGE_PATH}" ROS_HOSTNAME=127.0.0.1
core= node= watcher= copier=
cleanup() {
    [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
    [ -n "$node" ] && kill -INT "$node" 2>/dev/null && wait "$node"
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
    [ -n "$core" ] && kill -INT "$core" 2>/dev/null && wait "$core"
}

# roscore is up when its master answers and /rosout is registered: ask the
# master (its log lines are Python's to buffer, and on a machine without
# PYTHONUNBUFFERED they come late or never).
roscore -p "$port" >"$tmp/core.out" 2>&1 &
core=$!
"$check" master 60 2>"$tmp/master.err" && pass "roscore on port $port" ||
    { fail "roscore: $(cat "$tmp/master.err") $(tail -n 3 "$tmp/core.out")"; exit 1; }

# A URL that names nothing: one line saying why, exit 1.
"$pkgdir/botwire_ros/botwire_ros" _url:=nosuchrobot:/dev/null >"$tmp/bad.out" 2>&1
status=$?
[ "$status" = 1 ] && [ "$(grep -c . "$tmp/bad.out")" = 1 ] && grep -q "botwire_ros: .*nosuchrobot" "$tmp/bad.out" &&
    pass "a bad ~url: exit 1, $(cat "$tmp/bad.out")" || fail "bad url: exit $status, $(cat "$tmp/bad.out")"

# launch URL: roslaunch the node; waits until it reports the link online
# and publishes odometry (60 s only catch a node that never does: roslaunch
# is Python, and slow to start on a loaded machine).
launch() {
    url=$1
    shift
    roslaunch --wait botwire_ros botwire.launch "url:=$url" "$@" >"$tmp/node.out" 2>&1 &
    node=$!
    "$check" online 60 >"$tmp/diag" && return 0
    fail "the node on $url never came online: $(tail -n 5 "$tmp/node.out")"
    return 1
}
stop_node() {
    kill -INT "$node"
    wait "$node"
    status=$?
    node=
    [ "$status" = 0 ] && pass "roslaunch and the node shut down cleanly" ||
        fail "roslaunch exit $status: $(tail -n 5 "$tmp/node.out")"
}

. "$(dirname "$0")/roslib.sh"

# went_as NAME V RAMP PERIOD WATCH: the robot drove at V m/s, by its own
# odometry (the watch's cruise: the upper quartile of the speeds it moved
# at), within 3 %: a tick more or less in a feedback period is 2 % of a
# Kobuki's at 0.2 m/s, and the quartile of a hundred of them is well inside
# that; a speed or a tick's length off by a twentieth fails it. How
# long it drove is the machine's to say, not this test's: when the
# publisher's 2 s began and ended for the node (and if the node's timeout
# cut the stream short in between, a machine holding the publisher back
# that long). Then the stop: at rest RAMP (its deceleration from V) after
# the first zero twist came, plus the robot's report PERIOD (the odometry
# can say so no sooner; with the time its line takes to carry the stop
# down and the report up), 0.15 s for node cycles and the odometry to show it,
# and the time the machine held the node's cycles back (its odometry's
# stamps say how much); a stop left to the node's 0.6 s timeout fails it.
went_as() {
    x=$(sed -n 's/^odom \([-0-9.]*\) .*/\1/p' "$5")
    set -- "$1" "$2" "$3" "$4" "$5" "$(sed -n 's/^cruise //p' "$5")" $(sed -n 's/^zero_to_rest //p' "$5")
    awk -v c="${6:--1}" -v v="$2" 'BEGIN { d = c - v; exit !(d <= 0.03 * v && -d <= 0.03 * v) }' &&
        pass "$1: at $6 m/s by its odometry, $x m" ||
        fail "$1: at ${6:-?} m/s by its odometry, $2 asked ($(cat "$5"))"
    awk -v s="${7:--1}" -v l="${8:-0}" -v r="$3" -v p="$4" 'BEGIN { exit !(s > 0 && s <= r + p + 0.15 + l) }' &&
        pass "$1: at rest $7 s after the first zero twist (the node's cycles $8 s late)" ||
        fail "$1: at rest ${7:-?} s after the first zero twist, ${8:-?} s late ($(cat "$5"))"
}

# 1. sim:kobuki: 2 s at 0.2 m/s, then a clean stop (the Kobuki slows down
# at 1 m/s^2: 0.2 s; feedback every 20 ms).
launch sim:kobuki && pass "node on sim:kobuki online (/diagnostics)"
watch_first "$tmp/watch" 3.2 || fail "the watcher heard no odometry: $(cat "$tmp/watch")"
"$check" publish 0.2 2 zero || fail "publisher"
watch_end
x=$(sed -n 's/^odom \([-0-9.]*\) .*/\1/p' "$tmp/watch")
v=$(sed -n 's/^odom [-0-9.]* \([-0-9.]*\)/\1/p' "$tmp/watch")
went_as "2 s of cmd_vel at 0.2 m/s" 0.2 0.2 0.02 "$tmp/watch"
within "$v" 0 0.001 && pass "stopped by the zero twist: v = $v" || fail "v = $v"
grep -q "^online 1" "$tmp/watch" && pass "/diagnostics: the link online" || fail "diagnostics: $(cat "$tmp/watch")"

# 2. The publisher dies mid-stream: the robot stops within the timeout.
watch_first "$tmp/watch" 2.5 || fail "the watcher heard no odometry: $(cat "$tmp/watch")"
"$check" publish 0.2 1 die
watch_end
slowing=$(sed -n 's/^slowing_after //p' "$tmp/watch")
after=$(sed -n 's/^stopped_after //p' "$tmp/watch")
late=$(sed -n 's/^late_by //p' "$tmp/watch")
# The stop goes out at the timeout; the robot then brakes at its own limit
# (Kobuki: 1 m/s^2: half speed 0.1 s later, at rest 0.2 s later). Allowed
# on top: 0.15 s for node cycles and the odometry to show it, and the time
# the machine held the node's loop back in between (its odometry's stamps
# say how much; a loaded runner with the sanitizers adds tenths).
awk -v s="$slowing" -v l="$late" 'BEGIN { exit !(s > 0.6 && s <= 0.6 + 0.1 + 0.15 + l) }' &&
    pass "publisher killed: the robot brakes, at half speed ${slowing} s after its last cmd_vel (timeout 0.6 s; the node's cycles $late s late)" ||
    fail "publisher killed: slowing_after $slowing ($(cat "$tmp/watch"))"
awk -v a="$after" -v l="$late" 'BEGIN { exit !(a > 0.6 && a <= 0.6 + 0.2 + 0.15 + l) }' &&
    pass "... and at rest (odom v = 0) ${after} s after it" ||
    fail "publisher killed: stopped_after $after ($(cat "$tmp/watch"))"
stop_node

# 3. sim:p2os facing a wall 2 m ahead: every forward sonar's Range reads the
# wall within 3 cm of the truth after a 0.4 m drive.
cat >"$tmp/wall.world" <<'W'
size 6 4
wall 3 0 3 4
start 1 2 0
W
launch "sim:p2os?world=$tmp/wall.world" rate:=20 diagnostic_period:=0.5 range_frame_prefix:=sonar_ &&
    pass "node on sim:p2os online"
# The launch file passes on every parameter the node takes.
got="$(rosparam get /botwire/rate) $(rosparam get /botwire/diagnostic_period) $(rosparam get /botwire/range_frame_prefix)"
[ "$got" = "20.0 0.5 sonar_" ] && pass "launch arguments rate, diagnostic_period, range_frame_prefix reach the node: $got" ||
    fail "launch arguments: $got"
watch_first "$tmp/watch" 3.5 3.0 1.0 || fail "the watcher heard no odometry: $(cat "$tmp/watch")"
"$check" publish 0.2 2 zero || fail "publisher"
watch_end
# (a Pioneer slows down at 0.3 m/s^2: 0.67 s; a SIP each 100 ms, and at
# 9600 baud VEL and RVEL take 19 ms down, a SIP and its encoder packet
# 60 ms up: 0.18 s)
went_as "p2os" 0.2 0.667 0.18 "$tmp/watch"
n=$(grep -c "^range " "$tmp/watch")
[ "$n" -ge 2 ] && pass "$n forward sonars publish Range in their own frames" || fail "ranges: $(cat "$tmp/watch")"
while read -r _ frame got want; do
    within "$got" "$want" 0.03 && pass "$frame reads $got m, the wall is $want m away" ||
        fail "$frame reads $got m, the wall is $want m away"
done <<R
$(grep "^range " "$tmp/watch")
R
grep -q "^online 1" "$tmp/watch" && pass "p2os: /diagnostics online" || fail "p2os diagnostics"
stop_node

# 4. A real port: a Kobuki emulator on a pty goes away and comes back on a
# bad cable (a bit in a thousand flipped); the node reports the link
# offline, reopens it, is online again, counts what the noise costs in
# /diagnostics without a log line per bad frame, and still drives.
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 120
launch "kobuki:$tmp/kobuki" && pass "node on kobuki:PTY online"
kill "$sim"
wait "$sim"
sim=
# (each wait ends as soon as /diagnostics says so; 30 s only catch a node
# that never does)
"$check" online 30 0 >"$tmp/diag" && pass "emulator gone: /diagnostics says offline" ||
    fail "still online: $(cat "$tmp/diag")"
rm -f "$tmp/announce"
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 120 --ber 1e-3
"$check" online 30 >"$tmp/diag" && grep -q "^reconnects [1-9]" "$tmp/diag" &&
    pass "emulator back: online again, $(grep '^reconnects' "$tmp/diag")" ||
    fail "not back online: $(cat "$tmp/diag")"
lines=$(wc -l <"$tmp/node.out")
watch_first "$tmp/watch" 3.2 || fail "the watcher heard no odometry: $(cat "$tmp/watch")"
"$check" publish 0.2 2 zero || fail "publisher"
watch_end
"$check" online 30 >"$tmp/diag"
bad=$(awk '$1 == "checksum_errors" || $1 == "length_errors" { n += $2 } END { print n + 0 }' "$tmp/diag")
[ "$bad" -gt 0 ] && pass "the bad cable counted in /diagnostics: $bad frames rejected, $(grep '^skipped_bytes' "$tmp/diag")" ||
    fail "no errors counted on a bad cable: $(cat "$tmp/diag")"
more=$(($(wc -l <"$tmp/node.out") - lines))
# No log line per bad frame: three lines at most besides the link's own
# offline and online, and those only as the link truly goes quiet, which
# takes the driver's timeout (a Kobuki's: 0.1 s) of silence after it came
# back each time (a machine that holds the emulator back that long makes
# them; one a bad frame would come every 20 ms).
tail -n "$more" "$tmp/node.out" >"$tmp/node.more"
links=$(grep -c ' offline\| online' "$tmp/node.more")
spaced=$(sed -n 's/.*\[\([0-9]*\.[0-9]*\)\]: .* offline.*/\1/p' "$tmp/node.more" |
    awk 'NR > 1 && $1 - p < 0.1 { bad = 1 } { p = $1 } END { exit bad }' && echo yes)
[ $((more - links)) -le 3 ] && [ "$spaced" = yes ] &&
    pass "no log spam: $more node log lines ($links of the link going and coming) while $bad frames were rejected" ||
    fail "$more log lines: $(cat "$tmp/node.more")"
went_as "drives on the bad cable" 0.2 0.2 0.02 "$tmp/watch"
stop_node

# 5. docs/ros.md's commands as a user types them: rosrun, then rostopic
# (Python, with the message modules Debian packages apart) publishing
# cmd_vel and echoing odom.
rosrun botwire_ros botwire_ros _url:=sim:kobuki >"$tmp/rosrun.out" 2>&1 &
node=$!
"$check" online 60 >"$tmp/diag" && pass "rosrun botwire_ros botwire_ros _url:=sim:kobuki: online" ||
    fail "rosrun: never online: $(tail -n 5 "$tmp/rosrun.out")"
rostopic pub -r 10 /cmd_vel geometry_msgs/Twist '{linear: {x: 0.2}}' >"$tmp/pub.out" 2>&1 &
pub=$!
# rostopic is Python: on a loaded machine it takes seconds to start
# publishing. The glance ends once the odometry is 0.1 m along, well short
# of a wall; 60 s only catch a rostopic that never drives it.
"$check" glance 60 0.1 >"$tmp/watch"
kill -INT "$pub"
wait "$pub"
x=$(sed -n 's/^odom \([-0-9.]*\) .*/\1/p' "$tmp/watch")
awk -v x="$x" 'BEGIN { exit !(x > 0.1) }' && pass "rostopic pub /cmd_vel drives it: odom x = $x m" ||
    fail "rostopic pub: odom x = $x ($(cat "$tmp/pub.out"))"
rostopic echo -n 1 /odom >"$tmp/echo.out" 2>&1
status=$?
ex=$(sed -n '/position:/{n;s/^ *x: *//p;q}' "$tmp/echo.out")
[ "$status" = 0 ] && awk -v x="$ex" -v w="$x" 'BEGIN { exit !(x != "" && x >= w - 0.01) }' &&
    pass "rostopic echo -n 1 /odom: position x = $ex" ||
    fail "rostopic echo /odom: exit $status, $(head -n 5 "$tmp/echo.out")"
rostopic echo -n 1 /battery >"$tmp/echo.out" 2>&1 && grep -q "voltage:" "$tmp/echo.out" &&
    pass "rostopic echo -n 1 /battery: $(grep -m1 voltage: "$tmp/echo.out" | tr -s ' ')" ||
    fail "rostopic echo /battery: $(head -n 5 "$tmp/echo.out")"
rostopic echo -n 1 /diagnostics >"$tmp/echo.out" 2>&1 && grep -q "botwire" "$tmp/echo.out" &&
    pass "rostopic echo -n 1 /diagnostics" || fail "rostopic echo /diagnostics: $(head -n 5 "$tmp/echo.out")"
kill -INT "$node"
wait "$node"
status=$?
node=
[ "$status" = 0 ] && pass "rosrun's node shuts down cleanly on SIGINT" || fail "rosrun exit $status"

# 6. Without the launch file, a node started in a namespace prefixes its
# frames with it by itself: two such nodes under one master name two
# trees, r1/odom and r2/odom, not both odom.
rosrun botwire_ros botwire_ros __ns:=r1 _url:=sim:kobuki >"$tmp/r1.out" 2>&1 &
r1=$!
rosrun botwire_ros botwire_ros __ns:=r2 _url:=sim:kobuki >"$tmp/r2.out" 2>&1 &
r2=$!
for k in 1 2; do
    rostopic echo -n 1 "/r$k/odom" >"$tmp/echo.out" 2>&1
    frame=$(sed -n 's/^ *frame_id: *"*\([^"]*\)"*$/\1/p' "$tmp/echo.out" | head -n 1)
    child=$(sed -n 's/^child_frame_id: *"*\([^"]*\)"*$/\1/p' "$tmp/echo.out" | head -n 1)
    [ "$frame $child" = "r$k/odom r$k/base_footprint" ] &&
        pass "rosrun __ns:=r$k: /r$k/odom in frames $frame -> $child" ||
        fail "rosrun __ns:=r$k: frames '$frame' -> '$child' ($(head -n 8 "$tmp/echo.out"))"
done
for p in $r1 $r2; do kill -INT "$p" && wait "$p"; done

# 7. Docking: a Create 2 1.5 m in front of the built-in room's Home Base,
# facing away, its battery half full. /battery says the percentage (its
# charge over its capacity) and discharging; an Empty on /dock: the node
# says it has begun, the robot seeks its dock itself (its own Seek Dock),
# and the node says it is docked and charging; /battery then says
# charging, from the robot's own report. (120 s only catch a docking that
# never ends: the robot takes about 15 s of the emulator's real time.)
rosrun botwire_ros botwire_ros "_url:=sim:create?model=create2&battery=0.5&start=3.601,2.250,90" \
    >"$tmp/dock.out" 2>&1 &
node=$!
"$check" online 60 >"$tmp/diag" || fail "the Create's node never came online: $(tail -n 5 "$tmp/dock.out")"
rostopic echo -n 1 /battery >"$tmp/echo.out" 2>&1
pct=$(sed -n 's/^percentage: *//p' "$tmp/echo.out")
status=$(sed -n 's/^power_supply_status: *//p' "$tmp/echo.out")
within "${pct:--1}" 0.5 0.01 && [ "$status" = 2 ] &&
    pass "/battery: percentage $pct, power_supply_status $status (discharging)" ||
    fail "/battery before docking: $(cat "$tmp/echo.out")"
rostopic pub -1 /dock std_msgs/Empty '{}' >"$tmp/pub.out" 2>&1 || fail "rostopic pub /dock: $(cat "$tmp/pub.out")"
wait_line "$tmp/dock.out" "dock: done: docked and charging after" 120 &&
    pass "an Empty on /dock: $(grep -o 'dock: done: docked and charging after [0-9.]* s' "$tmp/dock.out")" ||
    fail "not docked: $(grep 'dock' "$tmp/dock.out")"
grep -q "dock: begun" "$tmp/dock.out" && pass "the node said the docking began" || fail "no 'dock: begun'"
rostopic echo -n 1 /battery >"$tmp/echo.out" 2>&1
status=$(sed -n 's/^power_supply_status: *//p' "$tmp/echo.out")
[ "$status" = 1 ] && pass "/battery on the dock: power_supply_status 1 (charging)" ||
    fail "/battery on the dock: $(cat "$tmp/echo.out")"
kill -INT "$node"
wait "$node"
node=

finish "ROS bridge"
