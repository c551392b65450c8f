# Shared by the ROS 2 tests, after testlib.sh: this test's DDS domain,
# loopback only and without multicast, so that its participants find each
# other and nobody else's; the domain from the process id keeps tests run
# at the same time apart. ROS 2's own discovery settings are cleared.
export CYCLONEDDS_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>64</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>'
export ROS_DOMAIN_ID=$(($$ % 200 + 1))
unset ROS_LOCALHOST_ONLY ROS_AUTOMATIC_DISCOVERY_RANGE ROS_STATIC_PEERS

# start_node ARGS...: `botwire ros2 ARGS` in the background ($node), its
# stderr in $tmp/node.err, once it has said its node is up (its second
# line in $second; anything more it prints is read and dropped).
start_node() {
    rm -f "$tmp/node.fifo"
    mkfifo "$tmp/node.fifo"
    "$bw" ros2 "$@" >"$tmp/node.fifo" 2>"$tmp/node.err" &
    node=$!
    exec 3<"$tmp/node.fifo"
    read -r first <&3
    read -r second <&3
    cat <&3 >/dev/null &
    exec 3<&-
    case $second in
    "botwire ros2: "*" on DDS domain $ROS_DOMAIN_ID"*) pass "node up: $first; $second" ;;
    *)
        fail "node did not come up: $first $second ($(cat "$tmp/node.err"))"
        exit 1
        ;;
    esac
}
