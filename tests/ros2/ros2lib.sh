# Shared by the ROS 2 tests, after testlib.sh: this test's DDS domain,
# loopback only and without multicast, so that its participants find each
# other and nobody else's; the domain from the process id keeps tests run
# at the same time apart. ROS 2's own discovery settings are cleared.
export CYCLONEDDS_URI='<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>64</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>'
export ROS_DOMAIN_ID=$(($$ % 200 + 1))
unset ROS_LOCALHOST_ONLY ROS_AUTOMATIC_DISCOVERY_RANGE ROS_STATIC_PEERS
