#!/bin/sh
# The ROS 2 names on the wire, read by a second, independent reader:
# Debian's tshark and its RTPS dissector, on a loopback capture of
# `botwire ros2` discovering a peer. Every topic the node uses with its
# ROS 2 type name, the node's reader of cmd_vel, the participant's
# USER_DATA (enclave=/;) and the node list's topic, ros_discovery_info;
# with --humble, the same names.
# usage: wire.sh BOTWIRE ROS2_PEER
set -u
bw=$1 peer=$2
. "$(dirname "$0")/../testlib.sh"

# Domain 82 whenever it is free: its first participant's port, 27910, is
# Quake II's, which tshark reads as Quake's unless told to try its RTPS
# heuristic first (below): the test is to fail if that is ever lost.
dds_first=82
. "$(dirname "$0")/ros2lib.sh"
cap=
cleanup() {
    [ -n "$cap" ] && kill "$cap" 2>/dev/null
    [ -n "$sim" ] && kill "$sim" 2>/dev/null
}
# The domain's ports (RTPS: 7400 + 250 x domain, participants above it).
lo=$((7400 + 250 * ROS_DOMAIN_ID))
hi=$((lo + 249))

# capture NAME LAYOUT CMD...: runs CMD (a node, until SIGINT) and a peer
# reading LAYOUT's types (jazzy or humble), discovering it, under a capture
# of the domain's UDP ports on the loopback; the dissected packets in
# $tmp/NAME.txt. Waited for, not timed: the capture live (a datagram of
# the test's own into the ports shows in it: "Capturing on" comes before
# the capture does), and each peer ends once it has the node with all its
# endpoints in ros_discovery_info (10 readers, 33 writers on sim:p2os) and a
# reading from each of its 16 sonars, the last writers the node makes:
# their discovery data has been on the wire by then, and the others' before
# it. 60 s only catch a node that is never heard.
# (A Pioneer's readers and writers; a Kobuki has no sonars, but imu and
# joint_states: `until` and `ranges` say so before its capture.)
until="10 33" ranges="--ranges robot1"
capture() {
    name=$1 layout=
    [ "$2" = humble ] && layout=--humble
    shift 2
    rm -f "$tmp/cap.err" "$tmp/cap.fifo" "$tmp/cap.live"
    mkfifo "$tmp/cap.fifo"
    tshark -i lo -f "udp portrange $lo-$hi" -w "$tmp/$name.pcapng" -P -l >"$tmp/cap.fifo" 2>"$tmp/cap.err" &
    cap=$!
    # a probe every 0.1 s (the test's own pace) until the capture shows one
    (
        while [ ! -e "$tmp/cap.live" ] && kill -0 "$cap" 2>/dev/null; do
            /usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"probe", ("127.0.0.1", int(sys.argv[1])))' "$lo"
            sleep 0.1
        done
    ) &
    exec 5<"$tmp/cap.fifo"
    read -r first <&5 || { fail "tshark cannot capture on the loopback: $(cat "$tmp/cap.err")"; cap=; return 1; }
    touch "$tmp/cap.live"
    cat <&5 >/dev/null &
    exec 5<&-
    "$@" >"$tmp/$name.node" 2>&1 &
    run=$!
    "$peer" nodes 60 $layout $ranges --until "node /robot1 botwire $until" >"$tmp/$name.nodes" 2>&1
    # A second peer, once the node is up: a participant that joins late is
    # sent every endpoint's discovery data at once, whatever the first one
    # saw while the node was starting.
    "$peer" nodes 60 $layout $ranges --until "node /robot1 botwire $until" >/dev/null 2>&1
    kill -INT "$run"
    wait "$run"
    kill -INT "$cap"
    wait "$cap"
    cap=
    # RTPS is found by tshark's heuristic dissector on any UDP port, tried
    # first: by default a dissector registered for a port takes its packets
    # before any heuristic does, and some domains' ports are such (domain
    # 82: participant 0's 27910 is Quake II's, and the node's discovery was
    # read as Quake's).
    tshark -r "$tmp/$name.pcapng" -o udp.try_heuristic_first:TRUE -V -Y rtps >"$tmp/$name.txt" 2>"$tmp/dissect.err" ||
        fail "tshark -r: $(cat "$tmp/dissect.err")"
}

# has FILE TOPIC TYPE: one endpoint's discovery data (a parameter list, up
# to its PID_SENTINEL) names TOPIC with TYPE, in whichever order.
has() {
    awk -v topic="$2" -v type="$3" '
        /^ *topic: / { t = $2 }
        /^ *typeName: / { y = $2 }
        /PID_SENTINEL/ { if (t == topic && y == type) found = 1; t = y = "" }
        END { exit !found }' "$1"
}

capture jazzy jazzy "$bw" ros2 sim:p2os --ns robot1 --distro jazzy
grep -q "node /robot1 botwire" "$tmp/jazzy.nodes" && pass "the peer heard the node (DDS domain $ROS_DOMAIN_ID)" ||
    fail "no node: $(cat "$tmp/jazzy.nodes" "$tmp/jazzy.node")"
while read -r topic type; do
    has "$tmp/jazzy.txt" "$topic" "$type" && pass "on the wire: $topic as $type" ||
        fail "not on the wire: $topic as $type"
done <<'EOF'
rt/robot1/odom nav_msgs::msg::dds_::Odometry_
rt/tf tf2_msgs::msg::dds_::TFMessage_
rt/tf_static tf2_msgs::msg::dds_::TFMessage_
rt/robot1/cmd_vel geometry_msgs::msg::dds_::Twist_
rt/robot1/range/0 sensor_msgs::msg::dds_::Range_
rt/robot1/range/7 sensor_msgs::msg::dds_::Range_
rt/robot1/bumper std_msgs::msg::dds_::UInt32_
rt/robot1/cliff std_msgs::msg::dds_::UInt32_
rt/robot1/wheel_drop std_msgs::msg::dds_::UInt32_
rt/robot1/events std_msgs::msg::dds_::String_
rt/robot1/battery sensor_msgs::msg::dds_::BatteryState_
rt/diagnostics diagnostic_msgs::msg::dds_::DiagnosticArray_
ros_discovery_info rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_
rt/rosout rcl_interfaces::msg::dds_::Log_
rt/robot1/reset_odometry std_msgs::msg::dds_::Empty_
rt/parameter_events rcl_interfaces::msg::dds_::ParameterEvent_
rq/robot1/botwire/list_parametersRequest rcl_interfaces::srv::dds_::ListParameters_Request_
rr/robot1/botwire/list_parametersReply rcl_interfaces::srv::dds_::ListParameters_Response_
rq/robot1/botwire/get_parametersRequest rcl_interfaces::srv::dds_::GetParameters_Request_
rr/robot1/botwire/get_parametersReply rcl_interfaces::srv::dds_::GetParameters_Response_
rq/robot1/botwire/get_parameter_typesRequest rcl_interfaces::srv::dds_::GetParameterTypes_Request_
rr/robot1/botwire/get_parameter_typesReply rcl_interfaces::srv::dds_::GetParameterTypes_Response_
rq/robot1/botwire/describe_parametersRequest rcl_interfaces::srv::dds_::DescribeParameters_Request_
rr/robot1/botwire/describe_parametersReply rcl_interfaces::srv::dds_::DescribeParameters_Response_
rq/robot1/botwire/set_parametersRequest rcl_interfaces::srv::dds_::SetParameters_Request_
rr/robot1/botwire/set_parametersReply rcl_interfaces::srv::dds_::SetParameters_Response_
rq/robot1/botwire/set_parameters_atomicallyRequest rcl_interfaces::srv::dds_::SetParametersAtomically_Request_
rr/robot1/botwire/set_parameters_atomicallyReply rcl_interfaces::srv::dds_::SetParametersAtomically_Response_
EOF
# USER_DATA as tshark shows it: the bytes in hex.
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
grep -q "userData: $(hex 'enclave=/;')$" "$tmp/jazzy.txt" &&
    pass "the participant's USER_DATA: enclave=/; (10 bytes)" ||
    fail "the participant's USER_DATA is not enclave=/;: $(grep -m1 'userData:' "$tmp/jazzy.txt")"
# (tshark shows a long USER_DATA's first 36 bytes: 20 hex digits of the hash)
grep -q "userData: $(hex 'typehash=RIHS01_3cc97dc7fb7502f87144')" "$tmp/jazzy.txt" &&
    pass "Jazzy: odom's writer carries Odometry's type hash" || fail "no Odometry type hash on the wire"
# /rosout's and /parameter_events' writers: their types' hashes, computed
# here from the definitions (tests/ros2/rihs01.py).
for t in rcl_interfaces/msg/Log rcl_interfaces/msg/ParameterEvent; do
    h=$(/usr/bin/python3 "$(dirname "$0")/rihs01.py" "$t" | cut -d' ' -f2)
    grep -q "userData: $(hex "typehash=$(echo "$h" | cut -c1-27)")" "$tmp/jazzy.txt" &&
        pass "Jazzy: $t's writer carries its type hash, $h" || fail "no $t type hash ${h:-?} on the wire"
done
# A service's request reader and reply writer carry serviceid=...; before
# their type hash, as rmw_cyclonedds's: six services, a pair each, twelve
# endpoints. (That the two of a pair carry one id, which a client needs to
# hold the service available, ros2_params's client checks: tshark shows
# the first 36 bytes alone.)
ids=$(awk '/^ *topic: /{ t = $2 } /^ *userData: /{ u = $2 }
    /PID_SENTINEL/ { if (t ~ /^r[qr]\/robot1\/botwire\//) print t, substr(u, 1, 20); t = u = "" }' "$tmp/jazzy.txt" | sort -u)
pairs=$(echo "$ids" | awk '{ sub(/Request$|Reply$/, "", $1); sub(/^r[qr]/, "", $1); print $1, $2 }' | sort | uniq -c | awk '$1 == 2' | wc -l)
[ "$(echo "$ids" | grep -c "$(hex 'serviceid=')")" = 12 ] && [ "$pairs" = 6 ] &&
    pass "Jazzy: the six parameter services' request readers and reply writers carry serviceid=" ||
    fail "service ids on the wire: $ids"

# xcdr1_only FILE: no endpoint in FILE offers XCDR2 (the peer's offer
# XCDR1 alone, so whatever does is the node's). Cyclone leaves
# PID_DATA_REPRESENTATION out when it is XCDR1 alone, the default; so does
# rmw_cyclonedds, whose serializer allows XCDR1 only.
xcdr1_only() {
    ! grep -q "XCDR2_DATA_REPRESENTATION" "$1"
}
xcdr1_only "$tmp/jazzy.txt" && pass "Jazzy: XCDR1 alone on every endpoint" ||
    fail "Jazzy: an endpoint offers XCDR2: $(grep -c XCDR2_DATA "$tmp/jazzy.txt") times"

# Kilted: cmd_vel as TwistStamped (Nav2's default since Kilted), its hash.
capture kilted jazzy "$bw" ros2 sim:p2os --ns robot1 --distro kilted
has "$tmp/kilted.txt" rt/robot1/cmd_vel geometry_msgs::msg::dds_::TwistStamped_ &&
    pass "Kilted: rt/robot1/cmd_vel as geometry_msgs::msg::dds_::TwistStamped_" ||
    fail "Kilted: no TwistStamped reader of rt/robot1/cmd_vel on the wire"
# (the hash computed here from TwistStamped's definition, apart from the
# node: tests/ros2/rihs01.py)
stamped=$(/usr/bin/python3 "$(dirname "$0")/rihs01.py" geometry_msgs/msg/TwistStamped | cut -d' ' -f2)
grep -q "userData: $(hex "typehash=$(echo "$stamped" | cut -c1-27)")" "$tmp/kilted.txt" &&
    pass "Kilted: cmd_vel's reader carries TwistStamped's type hash, $stamped" ||
    fail "no TwistStamped type hash ${stamped:-?} on the wire"
xcdr1_only "$tmp/kilted.txt" && pass "Kilted: XCDR1 alone on every endpoint" ||
    fail "Kilted: an endpoint offers XCDR2"

# A Kobuki: imu, joint_states, reset_odometry, dock and undock, their types' hashes
# computed here from their definitions.
until="10 19" ranges=
capture kobuki jazzy "$bw" ros2 sim:kobuki --ns robot1 --distro jazzy
while read -r topic type; do
    has "$tmp/kobuki.txt" "$topic" "$type" && pass "on the wire: $topic as $type" ||
        fail "not on the wire: $topic as $type"
done <<'EOF'
rt/robot1/imu sensor_msgs::msg::dds_::Imu_
rt/robot1/joint_states sensor_msgs::msg::dds_::JointState_
rt/robot1/reset_odometry std_msgs::msg::dds_::Empty_
rt/robot1/dock std_msgs::msg::dds_::Empty_
rt/robot1/undock std_msgs::msg::dds_::Empty_
EOF
for t in sensor_msgs/msg/Imu sensor_msgs/msg/JointState std_msgs/msg/Empty; do
    h=$(/usr/bin/python3 "$(dirname "$0")/rihs01.py" "$t" | cut -d' ' -f2)
    grep -q "userData: $(hex "typehash=$(echo "$h" | cut -c1-27)")" "$tmp/kobuki.txt" &&
        pass "a Kobuki: $t carries its type hash, $h" || fail "no $t type hash ${h:-?} on the wire"
done
xcdr1_only "$tmp/kobuki.txt" && pass "a Kobuki: XCDR1 alone on every endpoint" ||
    fail "a Kobuki: an endpoint offers XCDR2"
until="10 33" ranges="--ranges robot1"

capture humble humble "$bw" ros2 sim:p2os --ns robot1 --humble
has "$tmp/humble.txt" rt/robot1/range/0 sensor_msgs::msg::dds_::Range_ &&
    has "$tmp/humble.txt" ros_discovery_info rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_ &&
    pass "--humble: the same names (Range, ParticipantEntitiesInfo)" || fail "--humble: names"
grep -q "userData: $(hex 'typehash=')" "$tmp/humble.txt" && fail "--humble sends type hashes (Humble has none)" ||
    pass "--humble: no type hashes, as Humble"

finish "ROS 2 names on the wire"
