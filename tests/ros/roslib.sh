# Shared by the ROS 1 tests, after testlib.sh: they set $check (their ROS
# client, tests/ros/check.cpp); watch_first sets $watcher and $copier,
# which each test's cleanup stops.

# watch_first OUT ARGS...: `$check watch ARGS...` in the background
# ($watcher), its lines in OUT, once it has said "watching" (its first
# odometry: a drive started after that is seen whole, from rest to rest);
# false if it ended without any (it ends by itself).
watch_first() {
    out=$1
    shift
    rm -f "$tmp/watch.fifo"
    mkfifo "$tmp/watch.fifo"
    "$check" watch "$@" >"$tmp/watch.fifo" &
    watcher=$!
    exec 4<"$tmp/watch.fifo"
    read -r first <&4
    cat <&4 >"$out" &
    copier=$!
    exec 4<&-
    [ "$first" = watching ]
}
# watch_end: waits for the watcher and its lines.
watch_end() {
    wait "$watcher"
    watched=$?
    wait "$copier"
    watcher= copier=
    return $watched
}
