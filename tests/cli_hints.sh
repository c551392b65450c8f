#!/bin/sh
# What a newcomer sees when something is wrong: the hint that fits each way
# a device fails to open, names listed on a bad name, the demo's picture
# (rendered to PNG and looked at for content) and its path checked first;
# and the names a newcomer reaches for first, taken (create2).
# usage: cli_hints.sh BOTWIRE
set -u
bw=$1
. "$(dirname "$0")/testlib.sh"
chmod 755 "$tmp"
holder=
cleanup() {
    for p in $sim $holder; do kill "$p" 2>/dev/null; done
}

# 1. A missing path: no such file, and where an emulator's link comes from.
expect_error "missing file" 1 "cannot open $tmp/nothing: no such file" \
    "$bw" drive "kobuki:$tmp/nothing" --for 0.1
expect_error "missing device" 1 "cannot open /dev/ttyUSB97: no such device" \
    "$bw" drive kobuki:/dev/ttyUSB97 --for 0.1
# Not a terminal.
: >"$tmp/plain"
expect_error "not a tty" 1 "$tmp/plain is not a serial device" \
    "$bw" drive "kobuki:$tmp/plain" --for 0.1

# 2. Permission denied: the owner, the group and what to do. Root opens
# anything, so as root the checks run as nobody (setpriv, util-linux).
cp "$bw" "$tmp/botwire" && chmod 755 "$tmp/botwire"
if [ "$(id -u)" = 0 ]; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    : >"$tmp/root600" && chmod 600 "$tmp/root600"
    expect_error "root's 0600 device" 1 \
        "permission denied (owner root, group root, mode 600: only root can open it" \
        as_user "$tmp/botwire" drive "kobuki:$tmp/root600" --for 0.1
    : >"$tmp/group660" && chgrp dialout "$tmp/group660" 2>/dev/null || chgrp 20 "$tmp/group660"
    chmod 660 "$tmp/group660"
    grp=$(stat -c %G "$tmp/group660")
    expect_error "a group's 0660 device" 1 \
        "permission denied (owner root, group $grp, mode 660: join the group: sudo usermod -aG $grp" \
        as_user "$tmp/botwire" drive "kobuki:$tmp/group660" --for 0.1
else
    : >"$tmp/mine000" && chmod 000 "$tmp/mine000"
    expect_error "a 0000 device" 1 "permission denied (owner $(id -un), .*mode 000: only root" \
        "$tmp/botwire" drive "kobuki:$tmp/mine000" --for 0.1
fi

# 3. Busy: who holds it, by name and pid.
start_emulator "botwire sim: kobuki on" kobuki --pty "$tmp/link"
mkfifo "$tmp/first"
# It holds the line until it is interrupted after the check (a hold of a
# fixed time could end before a loaded machine ran the second drive).
"$bw" drive "kobuki:$tmp/link" >"$tmp/first" 2>"$tmp/first.err" &
holder=$!
exec 4<"$tmp/first" # held open: the holder must not die of a closed pipe
read -r _ <&4       # its first state line: it has the line
expect_error "busy line" 1 "another program is driving this robot through it (botwire, pid $holder)" \
    "$bw" drive "kobuki:$tmp/link" --for 0.1
kill -INT "$holder"
cat <&4 >/dev/null
exec 4<&-
wait "$holder"
holder=
stop_emulator

# A --detach'ed emulator lets go of its caller's output and pipes at once
# (it held them until it ended: a script piping sim waited for it), and
# its later lines go to --log, saying whose they are: family and pid.
mkfifo "$tmp/detached.pipe"
"$bw" sim kobuki --pty "$tmp/dlink" --detach --for 60 --log "$tmp/detached.log" \
    >"$tmp/detached.pipe" 2>&1 &
cat "$tmp/detached.pipe" >"$tmp/detached.out" # to the end of the pipe: the caller's exit, not the emulator's
wait
pid=$(sed -n 's/.*(pid \([0-9]*\))$/\1/p' "$tmp/detached.out")
kill -0 "$pid" 2>/dev/null && pass "the pipe ended while the detached emulator serves (pid $pid)" ||
    fail "detached: $(cat "$tmp/detached.out")"
# A drive that came online was served: the emulator had seen it open the
# link, and said so, before it sent a byte.
"$bw" drive "kobuki:$tmp/dlink" --for 0.2 >/dev/null 2>"$tmp/dlink.err" ||
    fail "drive through the detached emulator: $(cat "$tmp/dlink.err")"
kill "$pid"
# Its last line, once it has gone; 20 s are for a broken build only.
wait_line "$tmp/detached.log" "stopped;" 20
grep -q "^botwire sim \[kobuki, pid $pid\]: a client opened" "$tmp/detached.log" &&
    grep -q "^botwire sim \[kobuki, pid $pid\]: stopped;" "$tmp/detached.log" &&
    pass "a detached emulator's lines go to --log, naming it: $(cut -c1-60 "$tmp/detached.log" | head -n 1)" ||
    fail "detached emulator's log: $(cat "$tmp/detached.log")"
grep -q "a client opened" "$tmp/detached.out" && fail "the detached emulator wrote to its caller" ||
    pass "nothing of the detached emulator's in its caller's output"
expect_error "sim --log without --detach" 2 "--log goes with --detach" "$bw" sim kobuki --log "$tmp/x.log"

# 4. A name from a list: a bad one lists the good ones.
expect_error "bench --proto typo" 2 \
    'no benchmark for protocol "kobukk" (known: kobuki, p2os, lobot, create, rbsm, rflex)' \
    "$bw" bench --proto kobukk
expect_error "bench --shape typo" 2 \
    'no shape "group7" for create (known: group6, libcreate, group100, singles)' \
    "$bw" bench --proto create --shape group7
expect_error "decode --proto typo" 2 'unknown protocol "kobukk" (one of: kobuki, p2os' \
    "$bw" decode --proto kobukk /dev/null
expect_error "sim family typo" 2 'no emulated robot for family "kobukk" (emulated: kobuki' \
    "$bw" sim kobukk
expect_error "drive family typo" 1 'unknown robot family "kobukk" .*(known: kobuki' \
    "$bw" drive kobukk:/dev/null

# `decode | head`: the reader went away; decode ends quietly, 141, whether
# SIGPIPE kills it or is ignored (then the write says EPIPE).
frame=$(grep -v '^#' "$(dirname "$0")/data/kobuki_feedback.hex")
for trap_pipe in "" "trap '' PIPE;"; do
    (sh -c "$trap_pipe"'
        i=0; while [ $i -lt 20000 ]; do echo "$1"; i=$((i + 1)); done |
            "$2" decode --proto kobuki --hex - 2>"$3/pipe.err"; echo $? >"$3/pipe.rc"' _ "$frame" "$bw" "$tmp" 2>/dev/null) |
        head -c 100 >/dev/null
    [ "$(cat "$tmp/pipe.rc")" = 141 ] && [ ! -s "$tmp/pipe.err" ] &&
        pass "decode | head${trap_pipe:+ (SIGPIPE ignored)}: quiet, status 141" ||
        fail "decode | head${trap_pipe:+ (SIGPIPE ignored)}: status $(cat "$tmp/pipe.rc"), $(cat "$tmp/pipe.err")"
done

# 5. demo --svg to a folder that is not there fails before the run.
expect_error "demo: bad picture path" 2 "--svg cannot write $tmp/no/d.svg: no folder $tmp/no" \
    "$bw" demo --svg "$tmp/no/d.svg"
expect_error "wander: bad picture path" 2 "--svg cannot write $tmp/no/w.svg: no folder $tmp/no" \
    "$bw" wander sim:kobuki --fast --for 1 --svg "$tmp/no/w.svg"
expect_error "demo: picture path is a folder" 2 "--svg cannot write $tmp: it is a directory" \
    "$bw" demo --svg "$tmp"

# 6. The picture: what a person looks for is in it, and rendered it is not
# blank (a blank page of the same size compresses to a few kB).
"$bw" demo --svg "$tmp/d.svg" >"$tmp/demo.out" 2>&1 || fail "demo: $(cat "$tmp/demo.out")"
svg=$tmp/d.svg
grep -q "six robots, each through its own protocol" "$svg" && ! grep -q "five protocols" "$svg" &&
    pass "demo title" || fail "demo title: $(grep -o '<text[^>]*font-size="16"[^<]*' "$svg")"
for want in ">true path<" ">odometry<" ">start<" ">end; the figure beside it" ">1 m<" ">5 m<" ">4 m<"; do
    grep -q -- "$want" "$svg" && pass "demo legend/axes: $want" || fail "demo picture lacks $want"
done
n=$(grep -c '" font-weight="bold" fill="#333" stroke="white"[^>]*>[0-9]* mm<' "$svg")
[ "$n" = 6 ] && pass "demo: each robot's closing error beside its end ($n)" ||
    fail "demo: $n closing errors by the ends"
# The Create's and lobot's odometry errors (16 cm at seed 1) are explained,
# with the slip-free figure measured.
[ "$(grep -c 'comes from the wheels; [0-9.]* mm with --noise 0<' "$svg")" = 2 ] &&
    pass "demo: odometry errors explained" || fail "demo: no explanation of the odometry errors"
rsvg-convert -w 1400 "$svg" -o "$tmp/d.png" 2>"$tmp/rsvg.err" || fail "rsvg: $(cat "$tmp/rsvg.err")"
w=$(sed -n 's/^<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1/p' "$svg")
h=$(sed -n 's/^<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\2/p' "$svg")
printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s"><rect width="100%%" height="100%%" fill="white"/></svg>\n' \
    "$w" "$h" >"$tmp/blank.svg"
rsvg-convert -w 1400 "$tmp/blank.svg" -o "$tmp/blank.png"
drawn=$(wc -c <"$tmp/d.png")
blank=$(wc -c <"$tmp/blank.png")
[ "$drawn" -gt $((blank * 10)) ] && pass "demo picture renders: $drawn bytes of PNG (blank: $blank)" ||
    fail "demo picture looks blank: $drawn bytes of PNG (blank: $blank)"

# The Create 2 by the name the README's table gives it: "create2" wherever a
# family is named is the create family's model create2 (a Create 2 reports
# its encoders: raw_x in the state line; a Create 1 does not).
"$bw" drive sim:create2 --fast --for 0.2 >"$tmp/c2" 2>&1 && tail -n 1 "$tmp/c2" | grep -q '"raw_x"' &&
    pass "drive sim:create2: a Create 2" || fail "drive sim:create2: $(tail -n 1 "$tmp/c2")"
"$bw" drive "sim:create2?model=create2&seed=3" --fast --for 0.2 >"$tmp/c2" 2>&1 &&
    pass "sim:create2?model=create2 agrees" || fail "sim:create2?model=create2: $(cat "$tmp/c2")"
expect_error "sim:create2?model=create" 1 "create2 is the create family's model create2: model=create says otherwise" \
    "$bw" drive "sim:create2?model=create" --fast --for 0.2
printf 'size 4 3\nrobot create2 1 1 0\n' >"$tmp/c2.world"
"$bw" sim --world "$tmp/c2.world" --fast --for 1 >"$tmp/c2" 2>&1 &&
    grep -q '"online":1' "$tmp/c2" && pass "world file: robot create2" || fail "world file: robot create2: $(cat "$tmp/c2")"
printf 'size 4 3\nrobot create2/create 1 1 0\n' >"$tmp/c2.world"
expect_error "world file: robot create2/create" 1 "line 2: robot create2 is the create family's model create2: /create says otherwise" \
    "$bw" sim --world "$tmp/c2.world" --fast --for 1
"$bw" sim create2 --robots 2 --fast --for 1 >"$tmp/c2" 2>&1 && grep -q '"online":2' "$tmp/c2" &&
    pass "sim create2 --robots 2" || fail "sim create2 --robots 2: $(cat "$tmp/c2")"
expect_error "sim create2 --model create" 2 "create2 is the create family's model create2: --model create says otherwise" \
    "$bw" sim create2 --model create --for 1

# --view with --fast served nothing and exited 0: it is refused, saying why.
expect_error "sim --fast --view" 2 "--view does not go with --fast" \
    "$bw" sim p2os --robots 5 --fast --for 1 --wander --view 8766

finish hints
