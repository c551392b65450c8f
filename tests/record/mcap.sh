#!/bin/sh
# MCAP records read by Foxglove's own readers (npm's @mcap/core with
# @mcap/support's decompressors and @mcap/nodejs, @foxglove/rosmsg and
# @foxglove/rosmsg2-serialization for the ROS 2 messages, pinned by
# tests/npm/package-lock.json, under node): a 3 s record of a Kobuki
# emulator on a pty driving, through its summary and indexes (header,
# statistics, channels, metadata, every message by the chunk indexes) and
# once more streamed with CRC checks; /odom's last pose is where the
# emulator says the robot truly went, /tf and /diagnostics as the ROS 2
# node's; the wire bytes Foxglove's reader hands out are the bytes botwire
# recorded (counts from the recorder's closing line), and `botwire decode`
# turns them into the same lines as the MCAP file itself.
# Then one record of every family, each compression; a recorder killed
# with SIGKILL (its complete chunks read by both readers; record --recover
# indexes it again, nothing read lost); a damaged chunk
# and a cut-off file (a one-line error naming the offset, the good chunks
# still decoded); convert both ways, byte for byte; the command line's
# refusals.
# usage: mcap.sh BOTWIRE NODE_MODULES
set -u
bw=$1
export NODE_PATH=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testlib.sh"
rec=
cleanup() { [ -n "$rec" ] && kill -9 "$rec" 2>/dev/null; }
[ -d "$NODE_PATH/@mcap/core" ] || {
    fail "no @mcap/core in $NODE_PATH (make deps installs it)"
    finish "MCAP records"
}
read_mcap() { node "$here/mcap_read.js" "$@"; }
# diagnostics_said READ ERR: true if the record's last /diagnostics (READ:
# mcap_read's lines) says of the robot what the recorder's own lines (ERR)
# say it was then: online or offline, as of their latest such line before
# (offline before any; to the hundredth of a second: either side of one
# that close). Whether the robot is online at a given second is the
# machine's pace: a loaded machine that holds the emulator back past the
# driver's link timeout takes it offline a while, and held a Pioneer's
# handshake past the second of a 1.5 s record, once past its end.
diagnostics_said() {
    ds_t=$(sed -n 's/^diagnostics_t //p' "$1")
    ds_said=$(sed -nE 's/^diagnostics [0-9]+ (true|false)$/\1/p' "$1")
    [ -n "$ds_t" ] && [ -n "$ds_said" ] &&
        awk -v t="$ds_t" -v said="$ds_said" '
            /^botwire record: [0-9.]+ s: (online|offline)$/ {
                if ($3 + 0 <= t - 0.01) before = $5
                if ($3 + 0 < t + 0.01) after = $5
            }
            END { exit !(said == (before == "online" ? "true" : "false") ||
                         said == (after == "online" ? "true" : "false")) }' "$2"
}

# 1. A Kobuki emulator on a pty in another process, recorded driving for 3 s.
start=$(start_of kobuki)
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 300
"$bw" record "kobuki:$tmp/kobuki" -o "$tmp/run.mcap" --for 3 --v 0.2 2>"$tmp/rec.err"
status=$?
stop_emulator
said=$(grep ' bytes from the robot' "$tmp/rec.err")
robot=$(echo "$said" | sed -n 's/.*, \([0-9]*\) bytes from the robot.*/\1/p')
host=$(echo "$said" | sed -n 's/.*, \([0-9]*\) from the host.*/\1/p')
[ "$status" = 0 ] && [ -n "$robot" ] && pass "record -o run.mcap: $said" ||
    fail "record: exit $status, $(cat "$tmp/rec.err")"
read_mcap "$tmp/run.mcap" "$tmp/run.jsonl" >"$tmp/read" 2>&1 &&
    pass "Foxglove's indexed reader reads it through its summary" ||
    fail "Foxglove's reader: $(tail -n 3 "$tmp/read")"
grep -q '^header ros2 "botwire ' "$tmp/read" && pass "$(grep '^header' "$tmp/read")" ||
    fail "header: $(grep '^header' "$tmp/read")"
set -- $(grep '^statistics ' "$tmp/read")
[ "${5:-0}" -ge 2 ] && [ "${5:-0}" = "${9:-x}" ] &&
    pass "statistics: ${3:-?} messages in ${5:-?} chunks, a chunk index each" ||
    fail "statistics: $(grep '^statistics' "$tmp/read")"
# The robot as ROS 2 sees it, read by Foxglove's ROS 2 readers from each
# channel's own schema.
# /odom goes out on each turn of the recorder's loop that completed a
# feedback frame, however many frames a turn read (a loaded machine reads
# several at once): as many as the distinct times of the record's frames
# (a frame's t is the read that completed it), and at most one more, for
# the state the robot was opened with.
"$bw" decode --proto kobuki --from robot "$tmp/run.jsonl" >"$tmp/robot.dec" 2>&1
turns=$(grep '"type":"basic_sensor_data"' "$tmp/robot.dec" | sed -n 's/.*"t":\([0-9.]*\),"from".*/\1/p' | sort -u | wc -l)
set -- $(grep '^odom ' "$tmp/read")
count=${2:-0} x=${3:-} frames="${5:-} ${6:-}"
[ "$turns" -gt 0 ] && [ "$count" -ge "$turns" ] && [ "$count" -le $((turns + 1)) ] &&
    [ "$frames" = "odom base_footprint" ] &&
    pass "/odom: $count nav_msgs/msg/Odometry messages, one a turn that read a frame ($turns), frames $frames" ||
    fail "/odom: $(grep '^odom ' "$tmp/read"), $turns turns of the recorder read a frame"
# The record goes on after the stop until the robot's odometry is at rest,
# for half a second at most: a machine that holds the emulator back that
# long ends it with the robot still braking, which its last /odom says
# (odom_v). 2 cm for the odometry, and what the robot brakes from that
# speed at the emulator's 1 m/s^2.
v=$(sed -n 's/^odom_v //p' "$tmp/read")
tol=$(awk -v v="${v:-0}" 'BEGIN { printf "%.4f", 0.02 + v * v / 2 }')
odometry_vs_truth "$x" "$start" "$truth" "$tol" &&
    pass "the last /odom pose x = $x m (at ${v:-?} m/s), the emulator truly from ($start) to ($truth)" ||
    fail "the last /odom pose x = $x m (at ${v:-?} m/s), truly from ($start) to ($truth), not within $tol m"
grep -q '^tf odom base_footprint$' "$tmp/read" && [ "$(grep -c '^tf ' "$tmp/read")" = 1 ] &&
    pass "/tf: odom -> base_footprint" || fail "/tf: $(grep '^tf ' "$tmp/read")"
diagnostics_said "$tmp/read" "$tmp/rec.err" && grep -q '^battery [0-9]* 1[0-9]\.' "$tmp/read" &&
    pass "$(grep '^diagnostics ' "$tmp/read") (online); $(grep '^battery' "$tmp/read") V" ||
    fail "diagnostics, battery: $(grep -E '^(diagnostics|battery)' "$tmp/read")"
# The wire as a ROS 2 message of botwire's own, its schema in the file:
# Foxglove's CDR reader decodes it from that schema alone (the bytes it
# gives are checked against the recorder's counts below).
grep -q '^channel /wire/robot cdr schema [1-9]' "$tmp/read" &&
    grep -q '^channel /wire/host cdr schema [1-9]' "$tmp/read" &&
    grep -q '^schema /wire/robot botwire_msgs/msg/Wire$' "$tmp/read" &&
    pass "channels /wire/robot and /wire/host: botwire_msgs/msg/Wire in cdr, decoded by its schema" ||
    fail "channels: $(grep -E '^(channel|schema)' "$tmp/read")"
# rosbag2's rules, read from the file's bytes apart from botwire's reader.
/usr/bin/python3 "$(dirname "$0")/rosbag2_check.py" "$tmp/run.mcap" >"$tmp/rosbag2" &&
    pass "rosbag2 takes it: $(grep -c '^ok' "$tmp/rosbag2") checks of rosbag2_storage_mcap's rules" ||
    fail "rosbag2's rules: $(grep FAIL "$tmp/rosbag2" | head -n 3)"
grep -q '^metadata botwire .*"url":"kobuki:[^"]*","family":"kobuki"' "$tmp/read" &&
    pass "the header's fields as metadata: $(grep '^metadata' "$tmp/read" | cut -c1-120)" ||
    fail "metadata: $(grep '^metadata' "$tmp/read")"
got_robot=$(sed -n 's|^topic /wire/robot [0-9]* ||p' "$tmp/read")
got_host=$(sed -n 's|^topic /wire/host [0-9]* ||p' "$tmp/read")
[ "$got_robot" = "$robot" ] && [ "$got_host" = "$host" ] &&
    pass "every byte: $got_robot from the robot, $got_host from the host, as the recorder counted" ||
    fail "bytes read $got_robot/$got_host, recorded $robot/$host"
grep -q '^stream complete ' "$tmp/read" && pass "its streaming reader with CRC checks: complete" ||
    fail "streaming: $(grep '^stream' "$tmp/read")"
"$bw" decode --proto kobuki "$tmp/run.mcap" >"$tmp/dec.mcap" 2>"$tmp/dec.err"
"$bw" decode --proto kobuki "$tmp/run.jsonl" >"$tmp/dec.jsonl" 2>&1
# However many frames the record holds, they are all its bytes: nothing
# damaged but a frame cut at either end (at most 92 of its 93 bytes each,
# in which a false header may read as a bad length).
stats=$(tail -n 1 "$tmp/dec.mcap")
frames=$(field frames "$stats")
if [ "${frames:-0}" -gt 0 ] && cut_ends_only "$stats" 184 && cmp -s "$tmp/dec.mcap" "$tmp/dec.jsonl" &&
    [ ! -s "$tmp/dec.err" ]; then
    pass "decode run.mcap = decode of the bytes Foxglove's reader gave: $frames frames, every line alike"
else
    fail "decode: $stats, $(diff "$tmp/dec.mcap" "$tmp/dec.jsonl" | head -n 4) $(cat "$tmp/dec.err")"
fi

# 2. Every family, each compression.
n=0
for family in kobuki p2os lobot create rbsm rflex; do
    c=$(echo "zstd lz4 none" | cut -d' ' -f$((n % 3 + 1)))
    n=$((n + 1))
    "$bw" record "sim:$family" -o "$tmp/$family.rec" --format mcap --compression "$c" --for 1.5 \
        2>"$tmp/rec.err" || { fail "record $family: $(cat "$tmp/rec.err")"; continue; }
    if ! read_mcap "$tmp/$family.rec" "$tmp/$family.jsonl" >"$tmp/read" 2>&1; then
        fail "$family ($c): $(tail -n 3 "$tmp/read")"
        continue
    fi
    # (the family from the record: no --proto)
    "$bw" decode "$tmp/$family.rec" >"$tmp/dec.mcap" 2>&1
    "$bw" decode --proto "$family" "$tmp/$family.jsonl" >"$tmp/dec.jsonl" 2>&1
    frames=$(field frames "$(tail -n 1 "$tmp/dec.mcap")")
    topics=$(grep -c '^channel .* cdr ' "$tmp/read")
    ranges=$(grep -c '^range ' "$tmp/read")
    /usr/bin/python3 "$(dirname "$0")/rosbag2_check.py" "$tmp/$family.rec" >"$tmp/rosbag2" ||
        fail "$family: rosbag2's rules: $(grep FAIL "$tmp/rosbag2" | head -n 3)"
    grep -q "^chunk [0-9]* [0-9]* $c\$" "$tmp/read" && [ "${frames:-0}" -gt 0 ] &&
        cmp -s "$tmp/dec.mcap" "$tmp/dec.jsonl" && grep -q '^odom [0-9]* .* odom base_footprint$' "$tmp/read" &&
        diagnostics_said "$tmp/read" "$tmp/rec.err" &&
        pass "$family, $c: read by Foxglove's readers, $frames frames decoded alike, $topics cdr channels decoded ($ranges range), rosbag2's rules hold" ||
        fail "$family, $c: frames $frames, $(grep -E '^(chunk|odom|diagnostics)(_v|_t)? ' "$tmp/read" | tr '\n' ' ') $(cat "$tmp/rec.err")"
done

# 3. A recorder killed with SIGKILL mid-run: its complete chunks read.
"$bw" record sim:kobuki -o "$tmp/killed.mcap" --for 60 --v 0.1 2>"$tmp/rec.err" &
rec=$!
wait_line "$tmp/rec.err" "online" 20 || fail "the recorder never came online: $(cat "$tmp/rec.err")"
# a flush every 0.25 s closes a chunk (about 1.3 kB of a Kobuki's, after
# 5 kB of schemas and channels): wait until several are on the disk,
# following the file as it grows (tail -F wakes on each write). The 60 s
# only end a recorder that writes no more, a hang.
timeout 60 tail -c +1 -F "$tmp/killed.mcap" 2>/dev/null | head -c 12000 >/dev/null
[ "$(stat -c %s "$tmp/killed.mcap")" -ge 12000 ] ||
    fail "the recorder wrote $(stat -c %s "$tmp/killed.mcap") bytes in 60 s"
kill -9 "$rec"
wait "$rec" 2>/dev/null
rec=
read_mcap --stream "$tmp/killed.mcap" "$tmp/killed.jsonl" >"$tmp/read" 2>&1
msgs=$(sed -n 's/.*"Message":\([0-9]*\).*/\1/p' "$tmp/read")
[ "${msgs:-0}" -gt 20 ] && pass "SIGKILLed: Foxglove's streaming reader reads $msgs messages ($(cut -c1-20 "$tmp/read"))" ||
    fail "SIGKILLed: $(cat "$tmp/read")"
"$bw" decode --proto kobuki "$tmp/killed.mcap" 2>"$tmp/dec.err" | grep -v '"stats"' >"$tmp/dec.mcap"
"$bw" decode --proto kobuki "$tmp/killed.jsonl" 2>&1 | grep -v '"stats"' >"$tmp/dec.jsonl"
[ -s "$tmp/dec.mcap" ] && cmp -s "$tmp/dec.mcap" "$tmp/dec.jsonl" &&
    pass "... and botwire decode the same $(wc -l <"$tmp/dec.mcap") lines$( [ -s "$tmp/dec.err" ] && echo ", and says: $(cat "$tmp/dec.err")")" ||
    fail "SIGKILLed: decode differs: $(diff "$tmp/dec.mcap" "$tmp/dec.jsonl" | head -n 3) $(cat "$tmp/dec.err")"
# record --recover: rewritten with its summary, Foxglove's indexed reader
# reads it, and nothing the streaming reader read of the killed file is
# lost (its wire, byte for byte and time for time).
"$bw" record --recover "$tmp/killed.mcap" 2>"$tmp/recover.err"
status=$?
read_mcap "$tmp/killed.mcap" "$tmp/recovered.jsonl" >"$tmp/read" 2>&1
rstatus=$?
set -- $(grep '^statistics ' "$tmp/read")
[ "$status" = 0 ] && [ "$rstatus" = 0 ] && [ "${3:-0}" = "$msgs" ] && [ "${5:-0}" -ge 1 ] &&
    [ "${5:-0}" = "${9:-x}" ] && grep -q '^stream complete ' "$tmp/read" &&
    cmp -s "$tmp/killed.jsonl" "$tmp/recovered.jsonl" &&
    pass "record --recover: Foxglove's indexed reader reads all $msgs messages through the summary (${5:-?} chunks indexed), the wire as before; $(cat "$tmp/recover.err")" ||
    fail "record --recover: exit $status, $(cat "$tmp/recover.err"); read: exit $rstatus, $(grep -E '^(statistics|stream)|rror' "$tmp/read" | head -n 3) $(cmp "$tmp/killed.jsonl" "$tmp/recovered.jsonl" 2>&1)"
grep -q '^odom [0-9]* .* odom base_footprint$' "$tmp/read" && grep -q '^tf odom base_footprint$' "$tmp/read" &&
    grep -q '^metadata botwire .*"family":"kobuki"' "$tmp/read" &&
    [ "$(grep '^channel ' "$tmp/read" | head -n 2)" = "channel /wire/robot cdr schema 1
channel /wire/host cdr schema 1" ] &&
    pass "... with its ROS 2 topics, schemas, channels in their order and metadata: $(grep '^odom ' "$tmp/read")" ||
    fail "recovered: $(grep -E "^(odom|tf|metadata)" "$tmp/read" | head -n 3) $(grep "^channel " "$tmp/read" | head -n 2)"
cp "$tmp/killed.mcap" "$tmp/again.mcap"
"$bw" record --recover "$tmp/again.mcap" 2>"$tmp/recover.err"
[ $? = 0 ] && cmp -s "$tmp/killed.mcap" "$tmp/again.mcap" && grep -q 'complete' "$tmp/recover.err" &&
    pass "--recover of a complete file leaves it as it is: $(cat "$tmp/recover.err")" ||
    fail "--recover twice: $(cat "$tmp/recover.err")"
ln -s killed.mcap "$tmp/link.mcap"
"$bw" record --recover "$tmp/link.mcap" 2>"$tmp/recover.err"
[ $? = 2 ] && [ -L "$tmp/link.mcap" ] && [ "$(grep -c . "$tmp/recover.err")" = 1 ] &&
    pass "--recover refuses a symlink: $(cat "$tmp/recover.err")" ||
    fail "--recover of a symlink: $(cat "$tmp/recover.err")"
"$bw" record --recover "$tmp/killed.jsonl" 2>"$tmp/recover.err"
[ $? = 1 ] && grep -q 'JSON Lines' "$tmp/recover.err" && [ "$(grep -c . "$tmp/recover.err")" = 1 ] &&
    pass "--recover of JSON Lines: $(cat "$tmp/recover.err")" ||
    fail "--recover of JSON Lines: $(cat "$tmp/recover.err")"
[ "$(ls "$tmp" | grep -c recov-)" = 0 ] && pass "--recover leaves no file beside it" ||
    fail "left beside: $(ls "$tmp" | grep recov-)"

# 4. A flipped byte in the first chunk's compressed records (its CRC, or
# zstd itself, finds it), and a file cut in half.
read_mcap "$tmp/run.mcap" "$tmp/run.jsonl" >"$tmp/run.read" 2>&1
set -- $(grep '^chunk ' "$tmp/run.read" | sort -n -k 2 | head -n 1)
first=${2:-0} len=${3:-0}
# What the other chunks hold, from the whole file: `wire_of less OFFSET`
# is run.jsonl less the wire of the chunk at OFFSET, `wire_of until CUT`
# its header and the wire of the chunks that end by byte CUT (its lines
# are the wire chunk by chunk, as mcap_read's chunk_wire lines count them).
# Their frames are what decoding the damaged file must give: however many
# frames a record holds (the machine's pace), none more lost than the
# damaged chunk's, or the chunks after the cut.
wire_of() {
    awk -v mode="$1" -v at="$2" '
        FNR == NR {
            if ($1 == "chunk") len[$2] = $3
            if ($1 == "chunk_wire") { k++; o[k] = $2; hi[k] = hi[k - 1] + $3 }
            next
        }
        FNR == 1 { print; next }
        {
            while (c < k && FNR - 1 > hi[c]) c++
            if (mode == "less" ? o[c] != at : o[c] + len[o[c]] <= at) print
        }' "$tmp/run.read" "$tmp/run.jsonl"
}
frames_of() { field frames "$("$bw" decode --proto kobuki "$1" 2>/dev/null | tail -n 1)"; }
cp "$tmp/run.mcap" "$tmp/flipped.mcap"
at=$((first + len - 3)) # in the compressed records, the chunk's last field
byte=$(od -An -tu1 -j "$at" -N1 "$tmp/flipped.mcap" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 255)))" | dd of="$tmp/flipped.mcap" bs=1 seek="$at" conv=notrunc 2>/dev/null
"$bw" decode --proto kobuki "$tmp/flipped.mcap" >"$tmp/dec" 2>"$tmp/dec.err"
status=$?
frames=$(field frames "$(tail -n 1 "$tmp/dec")")
wire_of less "$first" >"$tmp/less.jsonl"
others=$(frames_of "$tmp/less.jsonl")
[ "$status" = 0 ] && [ "$(grep -c . "$tmp/dec.err")" = 1 ] && grep -q "offset $first: a chunk" "$tmp/dec.err" &&
    [ "${frames:-0}" -gt 0 ] && [ "$frames" = "$others" ] && grep -q '"damaged_lines":1' "$tmp/dec" &&
    pass "a flipped byte at $at: $(cat "$tmp/dec.err"); $frames frames of the other chunks decoded, all theirs" ||
    fail "flipped byte at $at (chunk at $first): exit $status, $(cat "$tmp/dec.err"), $(tail -n 1 "$tmp/dec"); the other chunks hold ${others:-?} frames"
"$bw" decode --proto kobuki --strict "$tmp/flipped.mcap" >/dev/null 2>"$tmp/dec.err"
status=$?
[ "$status" = 1 ] && grep -q "offset $first: a chunk" "$tmp/dec.err" &&
    pass "--strict: exit 1 at the damaged chunk" || fail "--strict: exit $status, $(cat "$tmp/dec.err")"
# --recover leaves the damaged chunk out and keeps the rest, indexed.
"$bw" record --recover "$tmp/flipped.mcap" 2>"$tmp/recover.err"
status=$?
"$bw" decode --proto kobuki "$tmp/flipped.mcap" >"$tmp/dec.rec" 2>"$tmp/dec.err"
[ "$status" = 0 ] && grep -q "offset $first: a chunk.* (left out)" "$tmp/recover.err" && [ ! -s "$tmp/dec.err" ] &&
    [ "$(grep -v '"stats"' "$tmp/dec.rec")" = "$(grep -v '"stats"' "$tmp/dec")" ] &&
    read_mcap "$tmp/flipped.mcap" "$tmp/flipped.jsonl" >"$tmp/read" 2>&1 &&
    pass "--recover of the flipped byte: the damaged chunk left out, the $frames frames of the others kept, indexed" ||
    fail "--recover of the flipped byte: exit $status, $(cat "$tmp/recover.err") $(cat "$tmp/dec.err") $(tail -n 2 "$tmp/read")"
size=$(stat -c %s "$tmp/run.mcap")
head -c $((size / 2)) "$tmp/run.mcap" >"$tmp/half.mcap"
"$bw" decode --proto kobuki "$tmp/half.mcap" >"$tmp/dec" 2>"$tmp/dec.err"
status=$?
frames=$(field frames "$(tail -n 1 "$tmp/dec")")
cutat=$(sed -n 's/.*offset \([0-9]*\): the file ends inside a record of.*/\1/p' "$tmp/dec.err")
there=$(sed -n 's/.*(\([0-9]*\) there: cut off).*/\1/p' "$tmp/dec.err")
opening=$(sed -n 's/.*offset \([0-9]*\): the file ends inside a record.s opening.*/\1/p' "$tmp/dec.err")
# the record named starts at the offset, and its bytes there end at the cut
# (or the cut is in its 9-byte opening; or, rarely, between two records)
if [ -n "$cutat" ]; then
    [ $((cutat + 9 + ${there:-0})) = $((size / 2)) ]
elif [ -n "$opening" ]; then
    [ "$opening" -le $((size / 2)) ] && [ $((size / 2)) -lt $((opening + 9)) ]
else
    [ ! -s "$tmp/dec.err" ]
fi
cut_named=$?
wire_of until $((size / 2)) >"$tmp/before.jsonl"
before=$(frames_of "$tmp/before.jsonl")
[ "$status" = 0 ] && [ "$cut_named" = 0 ] && [ "${frames:-0}" -gt 0 ] && [ "$frames" = "$before" ] &&
    pass "cut in half: $(cat "$tmp/dec.err"); $frames frames before it decoded, all the whole chunks'" ||
    fail "cut in half: exit $status, $(cat "$tmp/dec.err"), $(tail -n 1 "$tmp/dec"); the whole chunks before it hold ${before:-?} frames"
# --recover of the half: everything before the cut kept, indexed.
"$bw" record --recover "$tmp/half.mcap" 2>"$tmp/recover.err"
status=$?
"$bw" decode --proto kobuki "$tmp/half.mcap" >"$tmp/dec.rec" 2>"$tmp/dec.err"
[ "$status" = 0 ] && [ ! -s "$tmp/dec.err" ] && grep -q "read to offset ${cutat:-${opening:-[0-9]*}} of $((size / 2)) bytes" "$tmp/recover.err" &&
    [ "$(grep -v '"stats"' "$tmp/dec.rec")" = "$(grep -v '"stats"' "$tmp/dec")" ] &&
    read_mcap "$tmp/half.mcap" "$tmp/half.jsonl" >"$tmp/read" 2>&1 &&
    pass "--recover of the half: the $frames frames before the cut kept, indexed; $(cat "$tmp/recover.err")" ||
    fail "--recover of the half: exit $status, $(cat "$tmp/recover.err") $(cat "$tmp/dec.err") $(tail -n 2 "$tmp/read")"

# 5. convert: JSON Lines -> MCAP -> JSON Lines gives the same file; the MCAP
# between is Foxglove's to read; an MCAP record with ROS 2 topics gives the
# JSON Lines record of its wire, which decodes as the MCAP file does.
"$bw" record sim:create -o "$tmp/c.jsonl" --for 1 --v 0.1 2>/dev/null
"$bw" convert "$tmp/c.jsonl" "$tmp/c.mcap" --compression lz4 2>"$tmp/conv.err" &&
    "$bw" convert "$tmp/c.mcap" "$tmp/c2.jsonl" 2>>"$tmp/conv.err" && cmp -s "$tmp/c.jsonl" "$tmp/c2.jsonl" &&
    read_mcap "$tmp/c.mcap" "$tmp/c3.jsonl" >"$tmp/read" 2>&1 && cmp -s "$tmp/c.jsonl" "$tmp/c3.jsonl" &&
    pass "convert: jsonl -> mcap -> jsonl byte for byte ($(wc -l <"$tmp/c.jsonl") lines), and Foxglove's reader gives the same lines" ||
    fail "convert round trip: $(cat "$tmp/conv.err") $(cmp "$tmp/c.jsonl" "$tmp/c2.jsonl" 2>&1) $(tail -n 2 "$tmp/read")"
"$bw" convert "$tmp/run.mcap" "$tmp/run2.jsonl" 2>"$tmp/conv.err"
"$bw" decode --proto kobuki "$tmp/run2.jsonl" >"$tmp/dec.jsonl" 2>&1
"$bw" decode --proto kobuki "$tmp/run.mcap" >"$tmp/dec.mcap" 2>&1
grep -q 'ROS 2 messages left out' "$tmp/conv.err" && cmp -s "$tmp/dec.mcap" "$tmp/dec.jsonl" &&
    pass "convert run.mcap run.jsonl: $(cut -c1-160 "$tmp/conv.err")" ||
    fail "convert mcap -> jsonl: $(cat "$tmp/conv.err") $(diff "$tmp/dec.mcap" "$tmp/dec.jsonl" | head -n 2)"
# ...and back to MCAP: the ROS 2 topics made again from the robot's bytes
# by the family's driver on the record's clock, as the recorder made them
# live: /odom's last pose the live record's within a millimetre (the same
# bytes at the same times), /tf, rosbag2's rules.
"$bw" convert "$tmp/run2.jsonl" "$tmp/run3.mcap" 2>"$tmp/conv.err"
read_mcap "$tmp/run3.mcap" "$tmp/run3.jsonl" >"$tmp/read3" 2>&1
set -- $(grep '^odom ' "$tmp/run.read") x x x x
live_x=$3 live_y=$4
set -- $(grep '^odom ' "$tmp/read3") x x x x
awk -v a="$live_x" -v b="$live_y" -v c="$3" -v d="$4" 'BEGIN {
        exit !(a != "x" && c != "x" && (a - c) ^ 2 + (b - d) ^ 2 <= 1e-6) }' &&
    grep -q '^tf odom base_footprint$' "$tmp/read3" && cmp -s "$tmp/run2.jsonl" "$tmp/run3.jsonl" &&
    /usr/bin/python3 "$(dirname "$0")/rosbag2_check.py" "$tmp/run3.mcap" >"$tmp/rosbag2" &&
    pass "convert run.jsonl run.mcap makes the ROS 2 topics again: /odom at ($3, $4), the live record's ($live_x, $live_y); /tf; rosbag2's rules; $(grep -o '[0-9]* ROS 2 messages made' "$tmp/conv.err")" ||
    fail "convert jsonl -> mcap: /odom ($3, $4), live ($live_x, $live_y); $(grep -c '^tf ' "$tmp/read3") tf; $(cat "$tmp/conv.err") $(grep FAIL "$tmp/rosbag2" | head -n 2)"
expect_error "convert to the same format" 2 "is JSON Lines already" \
    "$bw" convert "$tmp/c.jsonl" "$tmp/x.jsonl"
expect_error "convert onto itself" 2 "are the same file" \
    "$bw" convert "$tmp/c.mcap" "$tmp/c.mcap" --format jsonl
echo "not a record" >"$tmp/junk"
expect_error "convert of a file that is no record" 1 "not a botwire record" \
    "$bw" convert "$tmp/junk" "$tmp/x.mcap"

# 6. The command line's refusals: one line, exit 2.
expect_error "--compression without MCAP" 2 "compression is MCAP's" \
    "$bw" record sim:kobuki -o "$tmp/x.jsonl" --compression zstd --for 0.1
expect_error "--compression bogus" 2 "zstd, lz4 or none" \
    "$bw" record sim:kobuki -o "$tmp/x.mcap" --compression bogus --for 0.1
expect_error "--format bogus" 2 "jsonl or mcap" \
    "$bw" record sim:kobuki -o "$tmp/x.mcap" --format csv --for 0.1

finish "MCAP records"
