#!/bin/sh
# The `botwire decode` / `botwire encode` contract for RBSM, as scripts use it.
# usage: cli.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

stats() {
    echo "{\"type\":\"stats\",\"frames\":$1,\"checksum_errors\":0,\"length_errors\":$2,\"skipped_bytes\":$3,\"unknown\":$4}"
}
# encodes_to NAME JSON HEX: one line of JSON gives exactly these bytes.
encodes_to() {
    got=$(echo "$2" | "$bw" encode --proto rbsm --hex)
    [ "$got" = "$3" ] && pass "encode $1" || fail "encode $1: $got"
}
# decodes_to NAME HEX JSON: these bytes give exactly this message, from
# either side (RBSM is the same both ways) and with no side given.
decodes_to() {
    for side in robot host; do
        got=$(echo "$2" | "$bw" decode --proto rbsm --from "$side" --hex | sed -n 1p)
        [ "$got" = "$3" ] || fail "decode $1 from the $side: $got"
    done
    got=$(echo "$2" | "$bw" decode --proto rbsm --hex | sed -n 1p)
    [ "$got" = "$3" ] && pass "decode $1" || fail "decode $1: $got"
}
# golden NAME HEX JSON: both ways.
golden() {
    decodes_to "$1" "$2" "$3"
    encodes_to "$1" "$3" "$2"
}

# 1. Every id of the seed (001) and of the deployed code, worked by hand from
# the seed's byte table: id, d3 (most significant) .. d0, footer 0a.
golden "enc_ticks_last 1234" "00 00 00 04 d2 0a" '{"type":"message","id":0,"name":"enc_ticks_last","data":1234,"value":1234}'
golden "enc_ticks_reset 100000" "01 00 01 86 a0 0a" '{"type":"message","id":1,"name":"enc_ticks_reset","data":100000,"value":100000}'
golden "enc_timestamp 3600000" "02 00 36 ee 80 0a" '{"type":"message","id":2,"name":"enc_timestamp","data":3600000,"value":3600000}'
golden "enc_reset_request" "05 00 00 00 01 0a" '{"type":"message","id":5,"name":"enc_reset_request","data":1,"value":1}'
golden "enc_reset_confirm" "06 00 00 00 01 0a" '{"type":"message","id":6,"name":"enc_reset_confirm","data":1,"value":1}'
golden "mega_teleop_brake_command" "11 00 00 00 01 0a" '{"type":"message","id":17,"name":"mega_teleop_brake_command","data":1,"value":1}'
golden "brake_command 0" "12 00 00 00 00 0a" '{"type":"message","id":18,"name":"brake_command","data":0,"value":0}'
golden "mega_command -15000, brake 1" "13 c5 68 01 00 0a" '{"type":"message","id":19,"name":"mega_command","data":3311927552,"value":3311927552,"angle":-15000,"brake":1}'
golden "mega_steer_angle -20000" "14 ff ff b1 e0 0a" '{"type":"message","id":20,"name":"mega_steer_angle","data":4294947296,"value":-20000}'
golden "mega_brake_state 0" "15 00 00 00 00 0a" '{"type":"message","id":21,"name":"mega_brake_state","data":0,"value":0}'
golden "mega_auton_state 1" "16 00 00 00 01 0a" '{"type":"message","id":22,"name":"mega_auton_state","data":1,"value":1}'
golden "mega_battery_level 12600" "17 00 00 31 38 0a" '{"type":"message","id":23,"name":"mega_battery_level","data":12600,"value":12600}'
golden "mega_steer_feedback 1500" "18 00 00 05 dc 0a" '{"type":"message","id":24,"name":"mega_steer_feedback","data":1500,"value":1500}'
golden "mega_firmware_hash" "1e de ad be ef 0a" '{"type":"message","id":30,"name":"mega_firmware_hash","data":3735928559,"value":3735928559}'
golden "lighting (50)" "32 00 ff 80 00 0a" '{"type":"message","id":50,"name":"lighting","data":16744448,"value":16744448}'
golden "mega_timestamp" "fd 07 5b cd 15 0a" '{"type":"message","id":253,"name":"mega_timestamp","data":123456789,"value":123456789}'
golden "error: watchdog, RC lost" "fe 00 00 00 09 0a" '{"type":"message","id":254,"name":"error","data":9,"value":9}'
golden "device_id: drive encoder" "ff 00 00 00 01 0a" '{"type":"message","id":255,"name":"device_id","data":1,"value":1}'
golden "data bytes equal to the footer" "01 0a 0a 0a 0a 0a" '{"type":"message","id":1,"name":"enc_ticks_reset","data":168430090,"value":168430090}'
golden "mega_command with a spare byte" "13 09 c4 01 c0 0a" '{"type":"message","id":19,"name":"mega_command","data":163840448,"value":163840448,"angle":2500,"brake":1,"spare":192}'
golden "the smallest steering value" "18 80 00 00 00 0a" '{"type":"message","id":24,"name":"mega_steer_feedback","data":2147483648,"value":-2147483648}'
golden "the largest word" "17 ff ff ff ff 0a" '{"type":"message","id":23,"name":"mega_battery_level","data":4294967295,"value":4294967295}'
golden "an id nobody defined" "07 00 00 00 2a 0a" '{"type":"message","id":7,"name":"unknown","data":42,"value":42}'
golden "the reserved id 252" "fc 00 00 00 00 0a" '{"type":"message","id":252,"name":"reserved","data":0,"value":0}'

# 2. The short ways in: by name or id, with data, value, or angle and brake.
encodes_to "mega_command by angle and brake" '{"type":"message","name":"mega_command","angle":-15000,"brake":1}' "13 c5 68 01 00 0a"
encodes_to "mega_command with spare" '{"type":"message","id":19,"angle":2500,"brake":1,"spare":192}' "13 09 c4 01 c0 0a"
encodes_to "mega_command by data" '{"type":"message","name":"mega_command","data":3311927552}' "13 c5 68 01 00 0a"
encodes_to "mega_command by value" '{"type":"message","name":"mega_command","value":3311927552}' "13 c5 68 01 00 0a"
encodes_to "steering by value" '{"type":"message","name":"mega_steer_angle","value":-20000}' "14 ff ff b1 e0 0a"
encodes_to "steering by data" '{"type":"message","id":20,"data":4294947296}' "14 ff ff b1 e0 0a"
encodes_to "by id alone" '{"type":"message","id":23,"value":12600}' "17 00 00 31 38 0a"
encodes_to "name in upper case" '{"type":"message","name":"MEGA_BATTERY_LEVEL","data":12600}' "17 00 00 31 38 0a"
encodes_to "name as the seed's define" '{"type":"message","name":"RBSM_MID_MEGA_BATTERY_LEVEL","data":12600}' "17 00 00 31 38 0a"
encodes_to "lighting as LIGHTING_ID" '{"type":"message","name":"LIGHTING_ID","data":16744448}' "32 00 ff 80 00 0a"
encodes_to "the deployed name mega_steer_command" '{"type":"message","name":"mega_steer_command","angle":100,"brake":0}' "13 00 64 00 00 0a"
encodes_to "unknown by id and name" '{"type":"message","id":7,"name":"Unknown","data":42}' "07 00 00 00 2a 0a"
encodes_to "everything, agreeing" '{"type":"message","id":19,"name":"Mega_Command","data":3311927552,"value":3311927552,"angle":-15000,"brake":1,"spare":0}' "13 c5 68 01 00 0a"

# 3. The receiver: it finds its way into a stream and past a lost byte.
got=$(echo "cd 15 0a 00 00 00 04 d2 0a 15 00 00 00 01 0a" | "$bw" decode --proto rbsm --hex)
want="{\"type\":\"message\",\"id\":0,\"name\":\"enc_ticks_last\",\"data\":1234,\"value\":1234}
{\"type\":\"message\",\"id\":21,\"name\":\"mega_brake_state\",\"data\":1,\"value\":1}
$(stats 2 0 3 0)"
[ "$got" = "$want" ] && pass "a stream that begins mid-message loses only that message's tail" ||
    fail "mid-message start: $got"
got=$(echo "00 00 00 04 d2 0a 12 00 00 00 01 14 ff ff b1 e0 0a 17 00 00 31 38 0a" |
    "$bw" decode --proto rbsm --hex)
want="{\"type\":\"message\",\"id\":0,\"name\":\"enc_ticks_last\",\"data\":1234,\"value\":1234}
{\"type\":\"message\",\"id\":20,\"name\":\"mega_steer_angle\",\"data\":4294947296,\"value\":-20000}
{\"type\":\"message\",\"id\":23,\"name\":\"mega_battery_level\",\"data\":12600,\"value\":12600}
$(stats 3 1 5 0)"
[ "$got" = "$want" ] && pass "a lost footer: the good messages behind it are all kept" ||
    fail "lost footer: $got"
got=$("$bw" decode --proto rbsm --hex "$data/rbsm_noisy.hex")
want="{\"type\":\"message\",\"id\":0,\"name\":\"enc_ticks_last\",\"data\":1234,\"value\":1234}
{\"type\":\"message\",\"id\":20,\"name\":\"mega_steer_angle\",\"data\":4294947296,\"value\":-20000}
{\"type\":\"message\",\"id\":23,\"name\":\"mega_battery_level\",\"data\":12600,\"value\":12600}
{\"type\":\"message\",\"id\":255,\"name\":\"device_id\",\"data\":1,\"value\":1}
$(stats 4 3 17 0)"
[ "$got" = "$want" ] && pass "noisy stream counted, exactly" || fail "noisy stream: $got"
"$bw" decode --proto rbsm --hex "$data/rbsm_noisy.hex" | "$bw" encode --proto rbsm --hex >"$tmp/clean.hex"
[ "$(cat "$tmp/clean.hex")" = "00 00 00 04 d2 0a
14 ff ff b1 e0 0a
17 00 00 31 38 0a
ff 00 00 00 01 0a" ] && pass "noisy stream: decode | encode gives the good messages" ||
    fail "noisy decode | encode: $(cat "$tmp/clean.hex")"
got=$(printf '\027\000\000\061\070\012\026\000' | "$bw" decode --proto rbsm | tail -n 1)
[ "$got" = "$(stats 1 1 2 0)" ] && pass "a message cut by the end of the input" || fail "cut message: $got"
for side in robot host; do
    "$bw" decode --proto rbsm --from "$side" --hex "$data/rbsm_noisy.hex" >"$tmp/noisy.$side"
done
"$bw" decode --proto rbsm --hex "$data/rbsm_noisy.hex" >"$tmp/noisy.default"
cmp -s "$tmp/noisy.robot" "$tmp/noisy.host" && cmp -s "$tmp/noisy.robot" "$tmp/noisy.default" &&
    pass "--from robot, --from host and no --from decode alike" || fail "--from changes the output"

# 4. encode | decode gives back every message; decode | encode every byte.
n=$(wc -l <"$data/rbsm_messages.jsonl")
grep -v '^#' "$data/rbsm_golden.hex" | sed 's/ *#.*//' >"$tmp/golden.hex"
"$bw" encode --proto rbsm --hex "$data/rbsm_messages.jsonl" >"$tmp/enc.hex" || fail "encode the messages"
cmp -s "$tmp/enc.hex" "$tmp/golden.hex" && pass "every message encodes to its golden bytes ($n)" ||
    fail "encode messages: $(diff "$tmp/golden.hex" "$tmp/enc.hex")"
"$bw" encode --proto rbsm "$data/rbsm_messages.jsonl" >"$tmp/msgs.bin"
"$bw" decode --proto rbsm "$tmp/msgs.bin" >"$tmp/msgs.out"
head -n "$n" "$tmp/msgs.out" >"$tmp/msgs.back"
if cmp -s "$tmp/msgs.back" "$data/rbsm_messages.jsonl"; then
    pass "encode | decode gives back every message ($n lines)"
else
    fail "encode | decode:"
    diff "$data/rbsm_messages.jsonl" "$tmp/msgs.back"
fi
[ "$(tail -n 1 "$tmp/msgs.out")" = "$(stats "$n" 0 0 2)" ] &&
    pass "stats line: reserved and unknown ids counted as unknown" || fail "stats: $(tail -n 1 "$tmp/msgs.out")"
"$bw" encode --proto rbsm "$tmp/msgs.out" >"$tmp/msgs.bin2"
cmp -s "$tmp/msgs.bin" "$tmp/msgs.bin2" && pass "decode | encode is byte-exact" || fail "decode | encode"
"$bw" decode --proto rbsm --hex "$data/rbsm_golden.hex" | "$bw" encode --proto rbsm --hex >"$tmp/again.hex"
cmp -s "$tmp/again.hex" "$tmp/golden.hex" && pass "golden hex: decode | encode is byte-exact" ||
    fail "golden decode | encode"
"$bw" decode --proto rbsm --frames "$tmp/msgs.bin" >"$tmp/msgs.frames"
cmp -s "$tmp/msgs.frames" "$tmp/msgs.out" && pass "--frames: one message per frame, the same lines" ||
    fail "--frames"
# Every word of every id: 4 random bytes behind each id 0..255.
awk 'BEGIN { srand(7); for (id = 0; id < 256; id++) { printf "%02x", id;
    for (i = 0; i < 4; i++) printf " %02x", int(rand() * 256); printf " 0a\n" } }' >"$tmp/all.hex"
"$bw" decode --proto rbsm --hex "$tmp/all.hex" >"$tmp/all.out"
"$bw" encode --proto rbsm --hex "$tmp/all.out" >"$tmp/all.again"
cmp -s "$tmp/all.hex" "$tmp/all.again" && pass "decode | encode is byte-exact for all 256 ids" ||
    fail "256 ids: $(diff "$tmp/all.hex" "$tmp/all.again" | head -n 4)"
[ "$(tail -n 1 "$tmp/all.out")" = "$(stats 256 0 0 238)" ] &&
    pass "256 ids: the 18 messages known, the other 238 unknown" || fail "256 ids: $(tail -n 1 "$tmp/all.out")"

# 5. Record files: both sides, each message with when and from whom.
got=$("$bw" decode --proto rbsm "$data/rbsm_record.jsonl")
want="{\"type\":\"message\",\"id\":19,\"name\":\"mega_command\",\"data\":3311927552,\"value\":3311927552,\"angle\":-15000,\"brake\":1,\"t\":0.02,\"from\":\"host\"}
{\"type\":\"message\",\"id\":24,\"name\":\"mega_steer_feedback\",\"data\":1500,\"value\":1500,\"t\":0.021,\"from\":\"robot\"}
{\"type\":\"message\",\"id\":23,\"name\":\"mega_battery_level\",\"data\":12600,\"value\":12600,\"t\":0.03,\"from\":\"robot\"}
{\"type\":\"message\",\"id\":18,\"name\":\"brake_command\",\"data\":1,\"value\":1,\"t\":0.04,\"from\":\"host\"}
$(stats 4 0 0 0 | sed 's/}$/,"damaged_lines":0}/')"
[ "$got" = "$want" ] && pass "a record: both sides, messages split across chunks" || fail "record: $got"
got=$("$bw" decode --proto rbsm --from robot "$data/rbsm_record.jsonl" | tr '\n' ' ')
want="{\"type\":\"message\",\"id\":24,\"name\":\"mega_steer_feedback\",\"data\":1500,\"value\":1500,\"t\":0.021,\"from\":\"robot\"} {\"type\":\"message\",\"id\":23,\"name\":\"mega_battery_level\",\"data\":12600,\"value\":12600,\"t\":0.03,\"from\":\"robot\"} $(stats 2 0 0 0 | sed 's/}$/,"damaged_lines":0}/') "
[ "$got" = "$want" ] && pass "a record, --from robot" || fail "record --from robot: $got"
got=$("$bw" decode --proto rbsm --from host "$data/rbsm_record.jsonl" | "$bw" encode --proto rbsm --hex)
[ "$got" = "13 c5 68 01 00 0a
12 00 00 00 01 0a" ] && pass "a record's host side: decode | encode (t and from taken)" ||
    fail "record --from host | encode: $got"

# 6. --strict and empty input.
"$bw" decode --proto rbsm --hex --strict "$data/rbsm_noisy.hex" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && [ "$(cat "$tmp/err")" = "botwire decode: input had rejected bytes or unknown messages (--strict)" ] &&
    pass "--strict fails on rejected bytes" || fail "--strict noisy: $(cat "$tmp/err")"
echo "07 00 00 00 2a 0a" | "$bw" decode --proto rbsm --hex --strict >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on an unknown id" || fail "--strict unknown"
grep -v -e '^fc' -e '^07' "$tmp/golden.hex" | "$bw" decode --proto rbsm --hex --strict >/dev/null 2>&1
[ $? = 0 ] && pass "--strict passes a clean stream" || fail "--strict on a clean stream"
got=$("$bw" decode --proto rbsm </dev/null)
[ "$got" = "$(stats 0 0 0 0)" ] && pass "empty input" || fail "empty input: $got"
"$bw" encode --proto rbsm </dev/null >"$tmp/out" 2>"$tmp/err"
st=$?
[ "$st" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && pass "empty input to encode: no bytes, exit 0" ||
    fail "empty encode: exit $st: $(cat "$tmp/err")"
stats 3 0 0 0 | "$bw" encode --proto rbsm >"$tmp/out" 2>"$tmp/err"
st=$?
[ "$st" = 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && pass "a stats line alone: no bytes, exit 0" ||
    fail "stats line alone: exit $st: $(cat "$tmp/err")"

# 7. Bad input: exactly one line naming the problem, exit 1, nothing written.
bad() {
    printf '%s\n' "$3" >"$tmp/bad"
    "$bw" encode --proto rbsm "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "botwire encode: line 1: $2" ]; then
        pass "$1 ($2)"
    else
        fail "$1: exit $st: $(cat "$tmp/err")"
    fi
}
names="enc_ticks_last, enc_ticks_reset, enc_timestamp, enc_reset_request, enc_reset_confirm, mega_teleop_brake_command, brake_command, mega_command, mega_steer_angle, mega_brake_state, mega_auton_state, mega_battery_level, mega_steer_feedback, mega_firmware_hash, lighting, reserved, mega_timestamp, error, device_id"
bad "unknown name" "unknown rbsm message name \"warp\" (names: $names; \"unknown\" with the \"id\" of an unnamed id)" '{"type":"message","name":"warp","data":1}'
bad "unknown without an id" 'name "unknown" needs the message'"'"'s "id"' '{"type":"message","name":"unknown","data":1}'
bad "unknown with a named id" 'fields "id" (20, which is mega_steer_angle) and "name" ("unknown") disagree' '{"type":"message","id":20,"name":"unknown","data":1}'
bad "name not a string" 'field "name" must be a string' '{"type":"message","name":18,"data":1}'
bad "id and name disagree" 'fields "id" (20) and "name" ("brake_command" is 18) disagree' '{"type":"message","id":20,"name":"brake_command","data":1}'
bad "missing id and name" 'missing field "id" or "name"' '{"type":"message","data":1}'
bad "missing data" 'missing field "data" or "value"' '{"type":"message","name":"brake_command"}'
bad "mega_command missing data" 'missing field "data", "value", or "angle" and "brake"' '{"type":"message","name":"mega_command"}'
bad "unknown field" 'unknown field "speed"' '{"type":"message","name":"brake_command","data":1,"speed":3}'
bad "angle on another message" 'field "angle" is mega_command'"'"'s (id 19) only, not mega_steer_angle'"'"'s' '{"type":"message","name":"mega_steer_angle","angle":100}'
bad "angle without brake" 'field "angle" needs "brake": mega_command'"'"'s angle and brake go together' '{"type":"message","name":"mega_command","angle":100}'
bad "brake without angle" 'field "brake" needs "angle": mega_command'"'"'s angle and brake go together' '{"type":"message","name":"mega_command","data":256,"brake":1}'
bad "spare alone" 'field "spare" goes with "angle" and "brake"' '{"type":"message","name":"mega_command","data":1,"spare":1}'
bad "id out of range" 'field "id": 256 is out of range 0..255' '{"type":"message","id":256,"data":0}'
bad "negative id" 'field "id": -1 is out of range 0..255' '{"type":"message","id":-1,"data":0}'
bad "data out of range" 'field "data": 4294967296 is out of range 0..4294967295' '{"type":"message","name":"enc_ticks_last","data":4294967296}'
bad "negative data" 'field "data": -1 is out of range 0..4294967295' '{"type":"message","name":"mega_steer_angle","data":-1}'
bad "unsigned value out of range" 'field "value": -1 is out of range 0..4294967295' '{"type":"message","name":"mega_battery_level","value":-1}'
bad "mega_command value is unsigned" 'field "value": -2500 is out of range 0..4294967295' '{"type":"message","name":"mega_command","value":-2500}'
bad "signed value out of range" 'field "value": 2147483648 is out of range -2147483648..2147483647' '{"type":"message","name":"mega_steer_feedback","value":2147483648}'
bad "signed value below range" 'field "value": -2147483649 is out of range -2147483648..2147483647' '{"type":"message","name":"mega_steer_angle","value":-2147483649}'
bad "angle out of range" 'field "angle": 32768 is out of range -32768..32767' '{"type":"message","name":"mega_command","angle":32768,"brake":0}'
bad "brake out of range" 'field "brake": 256 is out of range 0..255' '{"type":"message","name":"mega_command","angle":0,"brake":256}'
bad "spare out of range" 'field "spare": -1 is out of range 0..255' '{"type":"message","name":"mega_command","angle":0,"brake":1,"spare":-1}'
bad "data not an integer" 'field "data" must be an integer' '{"type":"message","name":"brake_command","data":"1"}'
bad "value not an integer" 'field "value" must be an integer' '{"type":"message","name":"brake_command","value":1.5}'
bad "data and value disagree" 'fields "data" (5) and "value" (6) disagree' '{"type":"message","name":"enc_ticks_last","data":5,"value":6}'
bad "data and a signed value disagree" 'fields "data" (20000) and "value" (-20000, data 4294947296) disagree' '{"type":"message","name":"mega_steer_angle","data":20000,"value":-20000}'
bad "data and angle disagree" 'fields "angle", "brake" (data 3311927552) and "data" (3311927553) disagree' '{"type":"message","name":"mega_command","data":3311927553,"angle":-15000,"brake":1}'
bad "value and spare disagree" 'fields "angle", "brake", "spare" (data 163840449) and "value" (163840448) disagree' '{"type":"message","id":19,"value":163840448,"angle":2500,"brake":1,"spare":193}'
bad "unknown type" 'unknown rbsm message type "command" (every rbsm message is "message")' '{"type":"command","name":"brake_command","data":1}'
bad "missing type" 'missing string field "type"' '{"name":"brake_command","data":1}'
bad "array line" 'a line must be one message object (rbsm has one message per frame)' '[{"type":"message","id":18,"data":1}]'
printf '{"type":"message","id":18,"data":1}\n{"type":"message",\n' >"$tmp/badjson"
expect_error "malformed JSON" 1 "^botwire encode: line 2: malformed JSON" "$bw" encode --proto rbsm "$tmp/badjson"

# A bad line after good ones leaves no output file behind at all.
cat "$data/rbsm_messages.jsonl" "$tmp/bad" >"$tmp/mixed"
"$bw" encode --proto rbsm -o "$tmp/never" "$tmp/mixed" 2>/dev/null
[ $? = 1 ] && [ ! -e "$tmp/never" ] && pass "nothing half-written with -o" || fail "-o after error"

# 8. The deployed dialect (--model deployed, or a record's url with
# model=deployed): the deployed Mega reads id 19 as one signed word, the
# steering in hundredths to the right (a regression test: the host's
# +15.00 degrees, 13 00 00 05 dc 0a, decoded as angle 0, brake 5).
dep() { echo "$2" | "$bw" decode --proto rbsm --model "$1" --hex | sed -n 1p; }
[ "$(dep deployed "13 00 00 05 dc 0a")" = '{"type":"message","id":19,"name":"mega_steer_command","data":1500,"value":1500}' ] &&
    pass "--model deployed: the host's +15.00 degrees is 1500" || fail "deployed +1500: $(dep deployed "13 00 00 05 dc 0a")"
[ "$(dep deployed "13 ff ff fa 24 0a")" = '{"type":"message","id":19,"name":"mega_steer_command","data":4294965796,"value":-1500}' ] &&
    pass "--model deployed: -15.00 degrees is -1500, signed" || fail "deployed -1500: $(dep deployed "13 ff ff fa 24 0a")"
[ "$(dep seed "13 00 00 05 dc 0a")" = '{"type":"message","id":19,"name":"mega_command","data":1500,"value":1500,"angle":0,"brake":5,"spare":220}' ] &&
    pass "--model seed: id 19 is the seed's mega_command" || fail "seed 19: $(dep seed "13 00 00 05 dc 0a")"
"$bw" decode --proto rbsm --hex "$tmp/golden.hex" >"$tmp/default.out"
"$bw" decode --proto rbsm --model seed --hex "$tmp/golden.hex" >"$tmp/seed.out"
cmp -s "$tmp/default.out" "$tmp/seed.out" && pass "--model seed is the default, byte for byte" ||
    fail "--model seed: $(diff "$tmp/default.out" "$tmp/seed.out" | head -n 4)"
"$bw" decode --proto rbsm --model deployed --hex "$tmp/golden.hex" >"$tmp/deployed.out"
n19=$(grep -c '"id":19,' "$tmp/default.out")
[ "$n19" -gt 2 ] && [ "$(diff "$tmp/default.out" "$tmp/deployed.out" | grep -c '^[<>]')" = $((2 * n19)) ] &&
    pass "--model deployed changes id 19 only ($n19 messages)" || fail "deployed golden: $(diff "$tmp/default.out" "$tmp/deployed.out")"
"$bw" encode --proto rbsm --hex "$tmp/deployed.out" >"$tmp/deployed.again"
cmp -s "$tmp/golden.hex" "$tmp/deployed.again" && pass "--model deployed: decode | encode is byte-exact" ||
    fail "deployed decode | encode: $(diff "$tmp/golden.hex" "$tmp/deployed.again" | head -n 4)"
encodes_to "the steering word by its deployed name, signed" '{"type":"message","name":"mega_steer_command","value":-1500}' "13 ff ff fa 24 0a"
encodes_to "the steering word as RBSM_MID_MEGA_STEER_COMMAND" '{"type":"message","name":"RBSM_MID_MEGA_STEER_COMMAND","data":1500,"value":1500}' "13 00 00 05 dc 0a"
expect_error "an unknown model" 2 '^botwire decode: rbsm has no model "nixie" (models: seed, deployed)$' \
    "$bw" decode --proto rbsm --model nixie /dev/null
expect_error "a model for a protocol without models" 2 '^botwire decode: --proto kobuki has no models$' \
    "$bw" decode --proto kobuki --model deployed /dev/null
# A record names its robot's model in its url: honoured unless --model.
printf '%s\n' '{"botwire_record":1,"url":"rbsm:/dev/ttyACM0?model=deployed","family":"rbsm","start":"2026-11-22T04:50:00Z"}' \
    '{"t":0.01,"from":"host","data":"13000005dc0a"}' >"$tmp/dep.jsonl"
got=$("$bw" decode --proto rbsm "$tmp/dep.jsonl" | sed -n 1p)
[ "$got" = '{"type":"message","id":19,"name":"mega_steer_command","data":1500,"value":1500,"t":0.01,"from":"host"}' ] &&
    pass "a record from a deployed buggy decodes in its dialect" || fail "deployed record: $got"
got=$("$bw" decode --proto rbsm --model seed "$tmp/dep.jsonl" | sed -n 1p)
[ "$got" = '{"type":"message","id":19,"name":"mega_command","data":1500,"value":1500,"angle":0,"brake":5,"spare":220,"t":0.01,"from":"host"}' ] &&
    pass "--model overrides the record's url" || fail "--model seed on a deployed record: $got"
sed 's/model=deployed/model=nixie/' "$tmp/dep.jsonl" >"$tmp/nixie.jsonl"
# (a header line like any other: said, passed over, counted; fatal with --strict)
expect_failure "a record whose url names no rbsm model" 0 'rbsm has no model "nixie" (models: seed, deployed) (line 1.s url) (line passed over)$' \
    "$bw" decode --proto rbsm "$tmp/nixie.jsonl"
expect_error "the same, --strict" 1 'rbsm has no model "nixie" (models: seed, deployed) (line 1.s url)$' \
    "$bw" decode --proto rbsm --strict "$tmp/nixie.jsonl"
# A record of the emulated deployed buggy: the host's 19 and 18, the Mega's
# twelve ids, none of 0, 2 or device id 1.
"$bw" record "sim:rbsm?model=deployed" -o "$tmp/sim.jsonl" --for 0.3 --v 2 --w 0.2 >/dev/null 2>&1
"$bw" decode --proto rbsm "$tmp/sim.jsonl" >"$tmp/sim.out"
host=$(grep '"from":"host"' "$tmp/sim.out" | sed 's/.*"name":"\([a-z_]*\)".*/\1/' | sort -u | tr '\n' ' ')
robot=$(grep '"from":"robot"' "$tmp/sim.out" | sed 's/.*"id":\([0-9]*\),.*/\1/' | sort -n -u | tr '\n' ' ')
[ "$host" = "brake_command mega_steer_command " ] && [ "$robot" = "1 17 18 20 21 22 23 24 30 253 254 255 " ] &&
    ! grep -q '"from":"robot".*"id":255,.*"data":1,' "$tmp/sim.out" &&
    pass "a record of sim:rbsm?model=deployed: host $host; robot $robot" || fail "deployed sim record: host $host; robot $robot"

"$bw" decode --help | grep -q rbsm && pass "decode --help lists rbsm" || fail "decode --help"
"$bw" encode --help | grep -q rbsm && pass "encode --help lists rbsm" || fail "encode --help"

# GRL's low-level signals (raw-base-x, bump-switch-state) in `botwire
# wander`'s progress lines (wander_signals is testlib.sh's).
wander_signals 'sim:rbsm' 11.4754 0

finish "RBSM CLI"
