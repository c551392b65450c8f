#!/bin/sh
# The `botwire decode` / `botwire encode` contract for rflex, as scripts use
# it, and `botwire drive` of an emulated B21r on a bad cable in virtual time.
# usage: cli.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

# encodes_to NAME JSON HEX: one line of JSON gives exactly these bytes.
encodes_to() {
    got=$(echo "$2" | "$bw" encode --proto rflex --hex)
    [ "$got" = "$3" ] && pass "encode $1" || fail "encode $1: $got"
}
# decodes_to NAME HEX JSON: these bytes give exactly this message.
decodes_to() {
    got=$(echo "$2" | "$bw" decode --proto rflex --hex | sed -n 1p)
    [ "$got" = "$3" ] && pass "decode $1" || fail "decode $1: $got"
}
stats() {
    echo "{\"type\":\"stats\",\"frames\":$1,\"checksum_errors\":$2,\"length_errors\":$3,\"skipped_bytes\":$4,\"unknown\":$5}"
}

# 1. Golden frames (tests/data/rflex_golden.hex, each xor worked out there),
# both ways: the host's messages and the base's, every type.
grep -v '^#' "$data/rflex_golden.hex" >"$tmp/golden.hex"
cat "$data/rflex_host.jsonl" "$data/rflex_robot.jsonl" >"$tmp/golden.jsonl"
stats 23 0 0 0 2 >"$tmp/golden.stats"
"$bw" encode --proto rflex --hex "$tmp/golden.jsonl" >"$tmp/enc.hex"
cmp -s "$tmp/enc.hex" "$tmp/golden.hex" && pass "encode: every golden frame" ||
    fail "encode golden: $(diff "$tmp/golden.hex" "$tmp/enc.hex")"
"$bw" decode --proto rflex --hex "$data/rflex_golden.hex" >"$tmp/dec.jsonl"
cat "$tmp/golden.jsonl" "$tmp/golden.stats" >"$tmp/want"
cmp -s "$tmp/dec.jsonl" "$tmp/want" && pass "decode: every golden frame, and the stats line" ||
    fail "decode golden: $(diff "$tmp/want" "$tmp/dec.jsonl")"
for t in sys_status_req mot_set_dir mot_set_defaults mot_brake_set mot_brake_release \
    mot_system_report_req sonar_run dio_reports_req ir_run jstk_state_req unknown; do
    grep -q "\"type\":\"$t\"" "$data/rflex_host.jsonl" || fail "host file lacks $t"
done
for t in sys_status mot_system_report sonar_report dio_report ir_report jstk_state unknown; do
    grep -q "\"type\":\"$t\"" "$data/rflex_robot.jsonl" || fail "robot file lacks $t"
done
# The ones to read at a glance; mot_set_dir carries 1b 03 in its velocity.
encodes_to "mot_set_dir with 1b 03 in its data" \
    '{"type":"mot_set_dir","id":0,"axis":0,"velocity":6915,"acceleration":50000,"torque":30000,"direction":1}' \
    "1b 02 02 00 07 0e 00 00 00 1b 03 00 00 c3 50 00 00 75 30 01 c4 1b 03"
decodes_to "mot_set_dir with 1b 03 in its data" \
    "1b 02 02 00 07 0e 00 00 00 1b 03 00 00 c3 50 00 00 75 30 01 c4 1b 03" \
    '{"type":"mot_set_dir","id":0,"axis":0,"velocity":6915,"acceleration":50000,"torque":30000,"direction":1}'
decodes_to "unknown with 1b 03 1b 02 in its data" "1b 02 09 07 c8 04 1b 03 1b 02 c3 1b 03" \
    '{"type":"unknown","port":9,"id":7,"opcode":200,"length":4,"data":"1b031b02"}'
decodes_to "sys_status_req (SYS 1, no data)" "1b 02 01 00 01 00 00 1b 03" '{"type":"sys_status_req","id":0}'
decodes_to "sys_status (SYS 1, 9 bytes)" "1b 02 01 00 01 09 00 01 23 45 00 00 09 60 01 06 1b 03" \
    '{"type":"sys_status","id":0,"timestamp":74565,"voltage":2400,"brake":1}'

# 2. Defaults and names: the drivers' id (4 for sonar_run, else 0) when none
# is given; type names in any case; unknown data as zeros from a length.
encodes_to "mot_brake_set, no id" '{"type":"mot_brake_set"}' "1b 02 02 00 0b 00 09 1b 03"
encodes_to "MOT_BRAKE_SET" '{"type":"MOT_BRAKE_SET"}' "1b 02 02 00 0b 00 09 1b 03"
encodes_to "mot_brake_set with id 9 (02^09^0b^00 = 00)" '{"type":"Mot_Brake_Set","id":9}' \
    "1b 02 02 09 0b 00 00 1b 03"
encodes_to "SONAR_RUN, no id: 4" '{"type":"SONAR_RUN","echo_delay":30000,"ping_delay":0,"set_delay":0,"mode":2}' \
    "1b 02 04 04 00 0d 00 00 75 30 00 00 00 00 00 00 00 00 02 4a 1b 03"
encodes_to "unknown by length (03^00^00^02 = 01)" '{"type":"UNKNOWN","port":3,"opcode":0,"length":2}' \
    "1b 02 03 00 00 02 00 00 01 1b 03"
encodes_to "unknown by data" '{"type":"unknown","port":9,"id":7,"opcode":200,"data":"1b031b02"}' \
    "1b 02 09 07 c8 04 1b 03 1b 02 c3 1b 03"
encodes_to "a decoded record line (t, from)" '{"type":"mot_brake_release","id":0,"t":0.04,"from":"host"}' \
    "1b 02 02 00 0c 00 0e 1b 03"
encodes_to "sys_status with extra (01^00^01^0a = 0a; 01^02^ab = a8; a2)" \
    '{"type":"sys_status","id":0,"timestamp":1,"voltage":2,"brake":0,"extra":"ab"}' \
    "1b 02 01 00 01 0a 00 00 00 01 00 00 00 02 00 ab a2 1b 03"
got=$(echo '{"type":"stats","frames":1}' | "$bw" encode --proto rflex --hex)
[ -z "$got" ] && pass "stats lines are skipped" || fail "stats line gave: $got"

# 3. encode | decode gives back every message; decode | encode every byte;
# the direction changes nothing (one opcode space); --frames neither.
for side in host robot; do
    n=$(wc -l <"$data/rflex_$side.jsonl")
    "$bw" encode --proto rflex "$data/rflex_$side.jsonl" >"$tmp/$side.bin" || fail "encode $side"
    "$bw" decode --proto rflex --from "$side" "$tmp/$side.bin" >"$tmp/$side.out" || fail "decode $side"
    cat "$data/rflex_$side.jsonl" >"$tmp/want"
    stats "$n" 0 0 0 1 >>"$tmp/want"
    cmp -s "$tmp/$side.out" "$tmp/want" && pass "encode | decode: every $side message ($n), stats" ||
        fail "round trip $side: $(diff "$tmp/want" "$tmp/$side.out")"
    "$bw" encode --proto rflex "$tmp/$side.out" >"$tmp/$side.bin2"
    cmp -s "$tmp/$side.bin" "$tmp/$side.bin2" && pass "decode | encode is byte-exact ($side)" ||
        fail "decode | encode $side"
    other=robot
    [ "$side" = robot ] && other=host
    "$bw" decode --proto rflex --from "$other" "$tmp/$side.bin" >"$tmp/$side.other"
    cmp -s "$tmp/$side.other" "$tmp/$side.out" && pass "--from $other decodes $side bytes the same" ||
        fail "--from $other: $(diff "$tmp/$side.out" "$tmp/$side.other")"
    "$bw" decode --proto rflex --from "$side" --frames "$tmp/$side.bin" >"$tmp/$side.frames"
    cmp -s "$tmp/$side.frames" "$tmp/$side.out" && pass "--frames ($side): one message per frame" ||
        fail "--frames $side"
done
got=$(printf '\033\002\002\000\013\000\011\033\003' | "$bw" decode --proto rflex | head -n 1)
[ "$got" = '{"type":"mot_brake_set","id":0}' ] && pass "raw bytes on stdin" || fail "stdin: $got"

# Frames at the largest size: 255 data bytes.
big=$(awk 'BEGIN { for (i = 0; i < 255; i++) printf "%02x", (i % 2 ? 3 : 27) }')
readings=$(awk 'BEGIN { for (i = 0; i < 82; i++) printf "%s[%d,%d]", i ? "," : "", i, 1000 + i }')
printf '%s\n' "{\"type\":\"unknown\",\"port\":2,\"id\":255,\"opcode\":99,\"length\":255,\"data\":\"$big\"}" \
    "{\"type\":\"sonar_report\",\"id\":0,\"retval\":1,\"timestamp\":2,\"readings\":[$readings],\"extra\":\"1b\"}" \
    >"$tmp/big.jsonl"
"$bw" encode --proto rflex "$tmp/big.jsonl" >"$tmp/big.bin"
[ "$(wc -c <"$tmp/big.bin")" = 528 ] && pass "two frames of 264 bytes" || fail "big: $(wc -c <"$tmp/big.bin") bytes"
"$bw" decode --proto rflex "$tmp/big.bin" | head -n 2 >"$tmp/big.out"
cmp -s "$tmp/big.out" "$tmp/big.jsonl" && pass "255 data bytes: encode | decode" || fail "big round trip"

# 4. Frames whose data does not fit their type: more bytes than the fields
# are kept as "extra", fewer make the frame unknown; both are length errors,
# and decode | encode gives every byte back.
got=$("$bw" decode --proto rflex --hex "$data/rflex_malformed.hex")
want='{"type":"sys_status","id":0,"timestamp":1,"voltage":2,"brake":0,"extra":"ab"}
{"type":"unknown","port":5,"id":0,"opcode":1,"length":6,"data":"000000074000"}
{"type":"sonar_report","id":0,"retval":0,"timestamp":5,"readings":[[3,1000]],"extra":"0401"}
{"type":"mot_brake_set","id":0,"extra":"55"}
{"type":"unknown","port":6,"id":0,"opcode":1,"length":0,"data":""}
{"type":"unknown","port":4,"id":0,"opcode":2,"length":4,"data":"00000001"}
{"type":"mot_brake_set","id":9}
{"type":"stats","frames":7,"checksum_errors":0,"length_errors":6,"skipped_bytes":0,"unknown":0}'
[ "$got" = "$want" ] && pass "mis-sized frames shown and counted" || fail "mis-sized: $got"
grep -v '^#' "$data/rflex_malformed.hex" >"$tmp/bad.hex"
echo "$got" | "$bw" encode --proto rflex --hex >"$tmp/bad2.hex"
cmp -s "$tmp/bad.hex" "$tmp/bad2.hex" && pass "mis-sized frames: decode | encode is byte-exact" ||
    fail "mis-sized round trip: $(diff "$tmp/bad.hex" "$tmp/bad2.hex")"

# 5. A noisy stream: garbage, a bad checksum, a bad trailer, a false header
# holding two good frames, a truncated frame; counted exactly (see the file).
got=$("$bw" decode --proto rflex --hex "$data/rflex_noisy.hex")
want='{"type":"mot_brake_set","id":0}
{"type":"sys_status_req","id":0}
{"type":"sys_status_req","id":0}
{"type":"dio_report","id":0,"timestamp":7,"address":64,"value":5}
{"type":"unknown","port":9,"id":7,"opcode":200,"length":4,"data":"1b031b02"}
{"type":"stats","frames":5,"checksum_errors":2,"length_errors":2,"skipped_bytes":37,"unknown":1}'
[ "$got" = "$want" ] && pass "noisy stream counted" || fail "noisy stream: $got"
echo "$got" | "$bw" encode --proto rflex --hex >"$tmp/clean.hex"
[ "$(cat "$tmp/clean.hex")" = "1b 02 02 00 0b 00 09 1b 03
1b 02 01 00 01 00 00 1b 03
1b 02 01 00 01 00 00 1b 03
1b 02 05 00 01 07 00 00 00 07 40 00 05 41 1b 03
1b 02 09 07 c8 04 1b 03 1b 02 c3 1b 03" ] && pass "noisy stream: decode | encode gives the good frames" ||
    fail "noisy decode | encode: $(cat "$tmp/clean.hex")"

# 6. --strict, and an empty input.
expect_failure "--strict fails on rejected bytes" 1 '^botwire decode: input had rejected bytes or unknown messages (--strict)$' \
    "$bw" decode --proto rflex --hex --strict "$data/rflex_noisy.hex"
expect_failure "--strict fails on mis-sized frames" 1 'strict' \
    "$bw" decode --proto rflex --hex --strict "$data/rflex_malformed.hex"
expect_failure "--strict fails on unknown messages" 1 'strict' \
    "$bw" decode --proto rflex --strict "$tmp/robot.bin"
head -n 12 "$data/rflex_host.jsonl" | "$bw" encode --proto rflex >"$tmp/known.bin"
"$bw" decode --proto rflex --strict "$tmp/known.bin" >/dev/null 2>"$tmp/err"
[ $? = 0 ] && [ ! -s "$tmp/err" ] && pass "--strict passes a clean stream" || fail "--strict clean: $(cat "$tmp/err")"
got=$("$bw" decode --proto rflex </dev/null)
[ "$got" = "$(stats 0 0 0 0 0)" ] && pass "empty input" || fail "empty input: $got"
got=$("$bw" decode --proto rflex --frames --strict </dev/null)
[ "$got" = "$(stats 0 0 0 0 0)" ] && pass "empty input (--frames --strict)" || fail "empty input: $got"

# 7. Record files (docs/record-format.md): both sides, each with its own
# parser, a frame split over two chunks, two frames in one, a cut tail.
cat >"$tmp/rec.jsonl" <<'EOF'
{"botwire_record":1,"url":"rflex:/dev/ttyS0","family":"rflex","start":"2026-11-22T04:50:00Z"}
{"t":0.01,"from":"host","data":"1b0202000b00091b03"}
{"t":0.02,"from":"robot","data":"1b020100010900012345"}
{"t":0.03,"from":"robot","data":"0000096001061b031b020500010700000007400005411b03"}
{"t":0.04,"from":"host","data":"1b0202000c000e1b031b02"}
EOF
got=$("$bw" decode --proto rflex "$tmp/rec.jsonl")
want='{"type":"mot_brake_set","id":0,"t":0.01,"from":"host"}
{"type":"sys_status","id":0,"timestamp":74565,"voltage":2400,"brake":1,"t":0.03,"from":"robot"}
{"type":"dio_report","id":0,"timestamp":7,"address":64,"value":5,"t":0.03,"from":"robot"}
{"type":"mot_brake_release","id":0,"t":0.04,"from":"host"}
{"type":"stats","frames":4,"checksum_errors":0,"length_errors":1,"skipped_bytes":2,"unknown":0,"damaged_lines":0}'
[ "$got" = "$want" ] && pass "record: both sides, stamped and counted" || fail "record: $got"
got=$("$bw" decode --proto rflex --from robot "$tmp/rec.jsonl")
want='{"type":"sys_status","id":0,"timestamp":74565,"voltage":2400,"brake":1,"t":0.03,"from":"robot"}
{"type":"dio_report","id":0,"timestamp":7,"address":64,"value":5,"t":0.03,"from":"robot"}
{"type":"stats","frames":2,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0,"damaged_lines":0}'
[ "$got" = "$want" ] && pass "record --from robot" || fail "record --from robot: $got"
got=$("$bw" decode --proto rflex --from host "$tmp/rec.jsonl" | "$bw" encode --proto rflex --hex)
[ "$got" = "1b 02 02 00 0b 00 09 1b 03
1b 02 02 00 0c 00 0e 1b 03" ] && pass "record --from host | encode: the host's frames" ||
    fail "record --from host | encode: $got"

# 8. Bad input: exactly one line naming the problem, exit 1, nothing written.
bad() {
    printf '%s\n' "$3" >"$tmp/bad"
    "$bw" encode --proto rflex "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "botwire encode: line 1: $2" ]; then
        pass "$1 ($2)"
    else
        fail "$1: exit $st: $(cat "$tmp/err")"
    fi
}
set_dir='"axis":0,"velocity":1,"acceleration":0,"torque":0,"direction":1'
report='"retval":0,"timestamp":0,"axis":0,"position":0,"velocity":0,"acceleration":0'
bad "unknown type" 'unknown rflex message type "warp" (message types: sys_status_req, sys_status, mot_set_dir, mot_set_defaults, mot_brake_set, mot_brake_release, mot_system_report, mot_system_report_req, sonar_run, sonar_report, dio_reports_req, dio_report, ir_run, ir_report, jstk_state_req, jstk_state, unknown)' '{"type":"warp"}'
bad "missing type" 'missing string field "type"' '{"id":0}'
bad "type not a string" 'missing string field "type"' '{"type":7}'
bad "unknown field" 'unknown field "speed"' "{\"type\":\"mot_set_dir\",$set_dir,\"speed\":3}"
bad "missing field" 'missing field "torque"' '{"type":"mot_set_dir","axis":0,"velocity":1,"acceleration":0,"direction":1}'
bad "u32 out of range" 'field "velocity": 4294967296 is out of range 0..4294967295' '{"type":"mot_set_dir","axis":0,"velocity":4294967296,"acceleration":0,"torque":0,"direction":1}'
bad "negative u32" 'field "velocity": -1 is out of range 0..4294967295' '{"type":"mot_set_dir","axis":0,"velocity":-1,"acceleration":0,"torque":0,"direction":1}'
bad "u8 out of range" 'field "direction": 256 is out of range 0..255' '{"type":"mot_set_dir","axis":0,"velocity":1,"acceleration":0,"torque":0,"direction":256}'
bad "i32 out of range" 'field "torque": 2147483648 is out of range -2147483648..2147483647' "{\"type\":\"mot_system_report\",$report,\"torque\":2147483648}"
bad "u16 out of range" 'field "value": 65536 is out of range 0..65535' '{"type":"dio_report","timestamp":0,"address":64,"value":65536}'
bad "id out of range" 'field "id": 256 is out of range 0..255' '{"type":"mot_brake_set","id":256}'
bad "not an integer" 'field "velocity" must be an integer' '{"type":"mot_set_dir","axis":0,"velocity":1.5,"acceleration":0,"torque":0,"direction":1}'
bad "params not five" 'field "params" must be an array of 5 integers' '{"type":"ir_run","params":[0,70,10,20],"mode":2}'
bad "params element out of range" 'field "params": -1 is out of range 0..4294967295' '{"type":"ir_run","params":[0,70,-1,20,150],"mode":2}'
bad "bad sonar reading" 'readings[1] must be [id, range]: integers 0..255 and 0..65535' '{"type":"sonar_report","retval":0,"timestamp":0,"readings":[[1,2],[3]]}'
bad "sonar range out of range" 'readings[0] must be [id, range]: integers 0..255 and 0..65535' '{"type":"sonar_report","retval":0,"timestamp":0,"readings":[[1,65536]]}'
bad "too many readings" 'field "readings" must be an array of at most 82 [id, range] readings' "{\"type\":\"sonar_report\",\"retval\":0,\"timestamp\":0,\"readings\":[$readings,[82,1]]}"
bad "sonar extra that is a reading" 'field "extra" holds 3 bytes, which would read as a reading (at most 2 bytes after the readings)' '{"type":"sonar_report","retval":0,"timestamp":0,"readings":[],"extra":"010203"}'
bad "extra on sys_status_req" 'unknown field "extra"' '{"type":"sys_status_req","extra":"00"}'
bad "extra not hex" 'field "extra" is not hexadecimal' '{"type":"mot_brake_set","extra":"zz"}'
bad "extra beyond a frame" 'field "extra" must hold an even number of hex digits, at most 246 bytes' "{\"type\":\"sys_status\",\"timestamp\":0,\"voltage\":0,\"brake\":0,\"extra\":\"$(printf '%0494d' 0)\"}"
bad "ir_report without bytes" 'field "bytes" must be a hex string' '{"type":"ir_report","count":1}'
bad "ir_report bytes beyond a frame" 'field "bytes" must hold an even number of hex digits, at most 254 bytes' "{\"type\":\"ir_report\",\"count\":1,\"bytes\":\"${big}00\"}"
bad "unknown without port" 'missing field "port"' '{"type":"unknown","opcode":1,"data":""}'
bad "unknown port out of range" 'field "port": 256 is out of range 0..255' '{"type":"unknown","port":256,"opcode":1,"data":""}'
bad "unknown opcode out of range" 'field "opcode": -1 is out of range 0..255' '{"type":"unknown","port":1,"opcode":-1,"data":""}'
bad "unknown without data or length" 'missing field "data"' '{"type":"unknown","port":1,"opcode":9}'
bad "unknown data and length disagree" 'field "data" holds 1 bytes but "length" is 2' '{"type":"unknown","port":1,"opcode":9,"length":2,"data":"01"}'
bad "unknown data beyond a frame" 'field "data" must hold an even number of hex digits, at most 255 bytes' "{\"type\":\"unknown\",\"port\":1,\"opcode\":9,\"data\":\"${big}00\"}"
bad "unknown length out of range" 'field "length": 256 is out of range 0..255' '{"type":"unknown","port":1,"opcode":9,"length":256}'
bad "unknown with a field of a type" 'unknown field "period"' '{"type":"unknown","port":5,"opcode":0,"length":4,"period":1}'
bad "array line" 'a line must be one message object (rflex has one message per frame)' '[{"type":"mot_brake_set"}]'
printf '{"type":"mot_brake_set"}\n{"type":"sys_status",\n' >"$tmp/badjson"
"$bw" encode --proto rflex "$tmp/badjson" >"$tmp/out" 2>"$tmp/err"
st=$?
[ "$st" = 1 ] && [ ! -s "$tmp/out" ] &&
    [ "$(cat "$tmp/err")" = "botwire encode: line 2: malformed JSON: string or '}' expected near end of file" ] &&
    pass "malformed JSON ($(cat "$tmp/err"))" || fail "malformed JSON: exit $st: $(cat "$tmp/err")"
echo '1b 02 0' >"$tmp/odd.hex"
expect_error "odd hex" 1 '^botwire decode: .*odd.hex: hex input line [0-9]*: odd number of hex digits$' \
    "$bw" decode --proto rflex --hex "$tmp/odd.hex"

# A bad line after good ones leaves no output file behind at all.
cat "$data/rflex_host.jsonl" "$tmp/bad" >"$tmp/mixed"
"$bw" encode --proto rflex -o "$tmp/never" "$tmp/mixed" 2>"$tmp/err"
[ $? = 1 ] && [ ! -e "$tmp/never" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && pass "nothing half-written with -o" ||
    fail "-o after error"
"$bw" encode --proto rflex -o "$tmp/all.bin" "$data/rflex_host.jsonl" && cmp -s "$tmp/all.bin" "$tmp/host.bin" &&
    pass "-o writes the frames" || fail "-o"

"$bw" decode --help | grep -q rflex && pass "decode --help lists rflex" || fail "decode --help"

# A square on a bad cable in virtual time finishes (a regression test: it
# hung, the base going offline while the square drove and the driver's
# resend deadline left in the past, so virtual time stood still).
for seed in 6 7; do
    url="sim:rflex?ber=3e-3&seed=$seed"
    timeout 60 "$bw" drive "$url" --fast --square 1 >"$tmp/sq.out" 2>"$tmp/sq.err"
    st=$?
    last=$(tail -n 1 "$tmp/sq.out")
    [ "$st" = 0 ] && echo "$last" | grep -q '"summary":"square".*"complete":true' &&
        pass "drive $url --fast --square 1: $(echo "$last" | cut -c1-80)" ||
        fail "drive $url --fast --square 1: exit $st$([ "$st" = 124 ] && echo ' (hung)'), $(cat "$tmp/sq.err") $last"
done

# GRL's raw-base-x and bump-switch-state reach `botwire wander`'s progress
# lines (seed 003: "raw-base-x raw-base-y - The estimated global position of
# the robot expressed in units of translational shaft encoder counts";
# "bump-switch-state - A vector of booleans, indexed by bump switch number,
# giving the state of each bump switch"): raw_x is x in the B21r's 103000
# counts a metre, and bump_switches has the B21r's 14 panels
# (docs/rflex.md).
"$bw" wander sim:rflex --fast --for 3 >"$tmp/wander.out" 2>"$tmp/wander.err"
st=$?
grep '"t":' "$tmp/wander.out" >"$tmp/progress"
lines=$(wc -l <"$tmp/progress")
bad=0
while read -r line; do
    x=$(echo "$line" | sed -E 's/^\{"t":[^,]*,"x":(-?[0-9.e+-]+),.*/\1/') # the pose's, not the joystick's
    raw=$(echo "$line" | sed -nE 's/.*"raw_x":(-?[0-9.e+-]+).*/\1/p')
    n=$(echo "$line" | sed -nE 's/.*"bump_switches":\[([^]]*)\].*/\1/p' | tr ',' '\n' | grep -c -E '^(true|false)$')
    [ -n "$raw" ] && within "$raw" "$(awk -v x="$x" 'BEGIN { print x * 103000 }')" 1 && [ "$n" = 14 ] ||
        { bad=$((bad + 1)); echo "  $line"; }
done <"$tmp/progress"
[ "$st" = 0 ] && [ "$lines" -ge 3 ] && [ "$bad" = 0 ] &&
    pass "wander sim:rflex: $lines progress lines with raw_x (x in counts) and 14 bump_switches: $(tail -n 1 "$tmp/progress" | cut -c1-120)" ||
    fail "wander sim:rflex: exit $st, $lines progress lines, $bad without raw_x = x * 103000 or 14 bump_switches: $(cat "$tmp/wander.err")"

finish "rflex CLI"
