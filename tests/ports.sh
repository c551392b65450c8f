#!/bin/sh
# botwire ports --probe: emulators of three families on ptys (kobuki, p2os,
# a Create 1 and a Create 2), a pty nothing answers on, and one a driver
# holds. Each emulator's family, rate and URL found (a Create 2's with its
# model and its own 115200); the silent one unknown within the stated
# bound; the held one named with its holder and left alone.
# usage: ports.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/testlib.sh"
silent_pid= holder= emus=
cleanup() {
    for p in $silent_pid $holder $emus; do kill "$p" 2>/dev/null; done
}

# Every wait below is for a broken build only: --for 120, the holds of 120 s
# and the waits' 30 s are far beyond what a loaded machine takes.
for f in kobuki p2os create create2 held; do
    fam=$f opts=
    [ "$f" = create2 ] && fam=create opts="--model create2"
    [ "$f" = held ] && fam=kobuki opts="--log $tmp/held.log" # who opens its pty
    # shellcheck disable=SC2086
    out=$("$bw" sim "$fam" $opts --pty "$tmp/$f" --detach --for 120 2>/dev/null)
    pid=$(echo "$out" | sed -n 's/.*(pid \([0-9]*\))$/\1/p')
    [ -n "$pid" ] && emus="$emus $pid" || fail "sim $fam: $out"
done
# a pty nothing answers on: its master held by a process that says nothing
/usr/bin/python3 -c '
import os, pty, sys, time
m, s = pty.openpty()
os.symlink(os.ttyname(s), sys.argv[1])
print("ready", flush=True)
time.sleep(120)
' "$tmp/silent" >"$tmp/silent.out" &
silent_pid=$!
wait_line "$tmp/silent.out" ready 30 || fail "no silent pty"
# a driver holds the last one
"$bw" drive "kobuki:$tmp/held" --for 120 >"$tmp/drive.out" 2>&1 &
holder=$!
wait_line "$tmp/drive.out" '"online":true' 30 || fail "the driver never came online: $(tail -n 2 "$tmp/drive.out")"

"$bw" ports --probe --json "$tmp/kobuki" "$tmp/p2os" "$tmp/create" "$tmp/create2" "$tmp/silent" \
    "$tmp/held" >"$tmp/ports.json" 2>"$tmp/ports.err"
status=$?
[ "$status" = 0 ] && [ "$(wc -l <"$tmp/ports.json")" = 6 ] && pass "ports --probe --json: 6 ports, a line each" ||
    fail "ports: exit $status, $(cat "$tmp/ports.err") $(cat "$tmp/ports.json")"
line() { grep "\"path\":\"$tmp/$1\"" "$tmp/ports.json"; }
for f in kobuki:kobuki:115200 p2os:p2os:9600 create:create:57600 create2:create:115200; do
    name=${f%%:*} fam=${f#*:} baud=${fam#*:} fam=${fam%%:*}
    url="$fam:$tmp/$name"
    [ "$name" = create2 ] && url="$url?model=create2"
    l=$(line "$name")
    echo "$l" | grep -qF "\"driver\":\"pty\"" &&
        echo "$l" | grep -qF "\"held_by\":null,\"family\":\"$fam\",\"baud\":$baud,\"url\":\"$url\"" &&
        pass "$name found: $(echo "$l" | sed 's/.*"family"/"family"/')" ||
        fail "$name: $l"
done
l=$(line silent)
took=$(echo "$l" | sed -n 's/.*"probe_s":\([0-9.]*\).*/\1/p')
# probe_s is the command's own time: at least 8 s, the whole second of
# each of the 8 families and rates (a load can only lengthen it). At most
# half a second more each for opening, asking and closing on a loaded
# machine: a wait of 1.5 s or more a rate fails.
echo "$l" | grep -q '"family":null,"baud":null,"url":null' && awk -v t="$took" 'BEGIN { exit !(t >= 8 && t < 12) }' &&
    pass "the silent pty: unknown after $took s (8 families and rates, 1 s each)" || fail "silent: $l"
l=$(line held)
echo "$l" | grep -q "\"held_by\":\"botwire pid $holder\"" && ! echo "$l" | grep -q '"family"' &&
    pass "the held pty: held by botwire pid $holder, not probed" || fail "held: $l (driver pid $holder)"
# Undisturbed: still driving, and its robot's emulator saw no other
# program open the pty (it says so when one does). Whether the driver's
# latest line is online is the scheduler's: an emulator held back past the
# Kobuki's 0.1 s link timeout is a silence.
kill -0 "$holder" && [ "$(grep -c "a client opened" "$tmp/held.log")" = 1 ] &&
    ! grep -q "programs have" "$tmp/held.log" &&
    pass "the driver holding it drove on undisturbed" ||
    fail "the holder: $(tail -n 2 "$tmp/drive.out"); its emulator: $(cat "$tmp/held.log")"

# the text form: the URL to use at the end of the line
"$bw" ports --probe "$tmp/p2os" >"$tmp/ports.txt" 2>&1
grep -q "^$tmp/p2os -> /dev/pts/[0-9]*  pty  p2os at 9600 baud: p2os:$tmp/p2os\$" "$tmp/ports.txt" &&
    pass "text: $(cat "$tmp/ports.txt")" || fail "text: $(cat "$tmp/ports.txt")"
# every port of this machine, listed (whatever it has): no error
"$bw" ports >"$tmp/all.txt" 2>&1 && pass "ports: this machine's, $(grep -c . "$tmp/all.txt") lines" ||
    fail "ports: $(cat "$tmp/all.txt")"
expect_error "no such device" 1 "no such device" "$bw" ports "$tmp/none"
expect_error "not a terminal" 1 "not a terminal device" "$bw" ports "$tmp/ports.txt"

finish "ports"
