# Shared by the ROS 2 tests, after testlib.sh: this test's DDS domain,
# loopback only and without multicast, so that its participants find each
# other and nobody else's. ROS 2's own discovery settings are cleared.
export CYCLONEDDS_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>64</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>'
unset ROS_LOCALHOST_ONLY ROS_AUTOMATIC_DISCOVERY_RANGE ROS_STATIC_PEERS
# The domain is one no other test on this machine holds: tests run at the
# same time on one domain hear each other's nodes (a node told of another
# test's Twist writer on its /robot1/cmd_vel). Each domain of 10-101 has a
# lock file (ROS 2's range clear of Linux's ephemeral ports; 7, below it,
# is the docs' own); the test takes the first it can, from one its process
# id picks, on fd 9, which this shell and every process it starts hold:
# the kernel lets it go once the last of them has ended, however they end,
# so a node that outlives its test still keeps its domain from the next.
# A test that wants one domain above all sets dds_first to it before this
# file is sourced, and gets it whenever it is free.
dds_locks=/tmp/botwire-test-dds-domains.$(id -u)
mkdir -p "$dds_locks" || { fail "cannot make $dds_locks for the DDS domains' locks"; exit 1; }
ROS_DOMAIN_ID=
i=0
from=$$
[ -n "${dds_first:-}" ] && from=$((dds_first - 10))
while [ -z "$ROS_DOMAIN_ID" ] && [ "$i" -lt 92 ]; do
    d=$((10 + (from + i) % 92))
    exec 9>"$dds_locks/$d"
    flock -n 9 && ROS_DOMAIN_ID=$d
    i=$((i + 1))
done
if [ -z "$ROS_DOMAIN_ID" ]; then
    fail "no DDS domain of 10-101 free: 92 other tests hold them ($dds_locks)"
    exit 1
fi
export ROS_DOMAIN_ID

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
