#!/bin/sh
# The `botwire decode` / `botwire encode` contract for lobot, as scripts use it.
# usage: cli.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

# encodes_to NAME JSON HEX: one line of JSON gives exactly these bytes.
encodes_to() {
    got=$(echo "$2" | "$bw" encode --proto lobot --hex)
    [ "$got" = "$3" ] && pass "encode $1" || fail "encode $1: $got"
}
# decodes_to NAME SIDE HEX JSON: these bytes give exactly this message.
decodes_to() {
    got=$(echo "$3" | "$bw" decode --proto lobot --from "$2" --hex | sed -n 1p)
    [ "$got" = "$4" ] && pass "decode $1" || fail "decode $1: $got"
}

# 1. Every command's parity byte (id ^ param_hi ^ param_lo, seed 000).
encodes_to "NOP" '{"type":"command","name":"nop"}' "40 00 00 40"
encodes_to "FORWARD 200" '{"type":"command","name":"forward","param":200}' "46 00 c8 8e"
encodes_to "REVERSE 100" '{"type":"command","name":"reverse","param":100}' "52 00 64 36"
encodes_to "STOP" '{"type":"command","name":"stop"}' "53 00 00 53"
encodes_to "LEFT 300" '{"type":"command","name":"left","param":300}' "3c 01 2c 11"
encodes_to "RIGHT 50" '{"type":"command","name":"right","param":50}' "3e 00 32 0c"
encodes_to "STRAIGHT" '{"type":"command","name":"straight"}' "21 00 00 21"
encodes_to "SPIN -90" '{"type":"command","name":"spin","param":-90}' "2a ff a6 73"
encodes_to "SPIN 360" '{"type":"command","cmd":"*","param":360}' "2a 01 68 43"
encodes_to "ENABLE_REAR_BUMPS" '{"type":"command","name":"enable_rear_bumps"}' "65 00 00 65"
encodes_to "DISABLE_REAR_BUMPS" '{"type":"command","name":"disable_rear_bumps"}' "64 00 00 64"
encodes_to "FORWARD -32768" '{"type":"command","cmd":"F","param":-32768}' "46 80 00 c6"
encodes_to "unknown id by number" '{"type":"command","id":200,"param":1}' "c8 00 01 c9"
decodes_to "FORWARD 200" host "46 00 c8 8e" '{"type":"command","cmd":"F","name":"forward","param":200}'
decodes_to "SPIN -90" host "2a ff a6 73" '{"type":"command","cmd":"*","name":"spin","param":-90}'
# An unknown id with a good parity is no command the low level takes: not
# shown, counted, its first byte skipped and the rest rescanned.
decodes_to "an unknown printable id" host "78 00 07 7f" '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":1,"skipped_bytes":4,"unknown":1}'
decodes_to "an unknown id past ASCII" host "c8 00 01 c9 40 00 00 40" '{"type":"command","cmd":"@","name":"nop","param":0}'

# 2. Every ACK layout (seed 000): BUMPS front left and rear right, backed up
# 150 mm, turned +15; WHEEL_DROPS right and caster; CLIFFS front left and
# left, -300 mm, -30 degrees; REMOTE pause.
decodes_to "READY" robot "3a" '{"type":"ready"}'
decodes_to "BUMPS" robot "42 06 ff 6a 00 0f" '{"type":"bumps","flags":6,"distance":-150,"angle":15}'
decodes_to "WHEEL_DROPS" robot "57 14" '{"type":"wheel_drops","flags":20}'
decodes_to "CLIFFS" robot "43 0c fe d4 ff e2" '{"type":"cliffs","flags":12,"distance":-300,"angle":-30}'
decodes_to "REMOTE" robot "2e 89" '{"type":"remote","ir":137}'
encodes_to "BUMPS" '{"type":"bumps","flags":6,"distance":-150,"angle":15}' "42 06 ff 6a 00 0f"
encodes_to "CLIFFS" '{"type":"cliffs","flags":12,"distance":-300,"angle":-30}' "43 0c fe d4 ff e2"
# SENSORS with data byte i = 0x80 + i: every field at its index, 16-bit
# values high byte first, the unused bytes 8 and 9 (88 89) kept in "raw".
sensors_hex="24 $(awk 'BEGIN { for (i = 0; i < 53; i++) printf "%02x%s", 128 + i, i < 52 ? " " : "" }')"
want=$(sed -n 9p "$data/lobot_robot.jsonl")
decodes_to "SENSORS, every index" robot "$sensors_hex" "$want"
encodes_to "SENSORS with raw" "$want" "$sensors_hex"
got=$(echo "$want" | sed 's/,"raw":"[0-9a-f]*"//' | "$bw" encode --proto lobot --hex)
[ "$got" = "$(echo "$sensors_hex" | sed 's/88 89/00 00/')" ] &&
    pass "SENSORS without raw: unused bytes go out as 0" || fail "SENSORS without raw: $got"
fields=$(echo "$want" | grep -o '"[a-z_]*":' | tr -d '":' | tr '\n' ' ')
[ "$fields" = "type bumps_wheel_drops wall cliff_left cliff_front_left cliff_front_right cliff_right virtual_wall lsd_wheel_oc infrared_byte buttons distance angle charging_state voltage current battery_temp battery_charge battery_capacity wall_signal cliff_left_signal cliff_front_left_signal cliff_front_right_signal cliff_right_signal cargo_bay_digital_inputs cargo_bay_analog_signal charging_sources oi_mode song_number song_playing num_stream_packets requested_speed requested_radius requested_right_speed requested_left_speed spin_flag raw " ] &&
    pass "SENSORS fields named and ordered as the seed's LOBOT_SENSORS_*" || fail "SENSORS fields: $fields"

# 3. encode | decode gives back every message; decode | encode every byte.
for side in host robot; do
    n=$(wc -l <"$data/lobot_$side.jsonl")
    "$bw" encode --proto lobot "$data/lobot_$side.jsonl" >"$tmp/$side.bin" || fail "encode $side"
    "$bw" decode --proto lobot --from "$side" "$tmp/$side.bin" >"$tmp/$side.out" || fail "decode $side"
    head -n "$n" "$tmp/$side.out" >"$tmp/$side.msgs"
    if cmp -s "$tmp/$side.msgs" "$data/lobot_$side.jsonl"; then
        pass "round trip of every $side message ($n lines)"
    else
        fail "round trip $side:"
        diff "$data/lobot_$side.jsonl" "$tmp/$side.msgs"
    fi
    want="{\"type\":\"stats\",\"frames\":$n,\"checksum_errors\":0,\"length_errors\":0,\"skipped_bytes\":0,\"unknown\":0}"
    [ "$(tail -n 1 "$tmp/$side.out")" = "$want" ] && pass "stats line ($side)" ||
        fail "stats $side: $(tail -n 1 "$tmp/$side.out")"
    # --frames: one message per frame, so the same lines.
    "$bw" decode --proto lobot --from "$side" --frames "$tmp/$side.bin" >"$tmp/$side.frames"
    cmp -s "$tmp/$side.frames" "$tmp/$side.out" && pass "--frames ($side)" || fail "--frames $side"
    "$bw" encode --proto lobot "$tmp/$side.out" >"$tmp/$side.bin2"
    cmp -s "$tmp/$side.bin" "$tmp/$side.bin2" && pass "decode | encode is byte-exact ($side)" ||
        fail "decode | encode $side"
done
n=$(grep -o '"name":"[a-z_]*"' "$data/lobot_host.jsonl" | sort -u | wc -l)
[ "$n" = 10 ] && pass "host file names all 10 commands" || fail "host file has $n named commands"
for t in ready bumps wheel_drops cliffs remote sensors; do
    grep -q "\"type\":\"$t\"" "$data/lobot_robot.jsonl" || fail "robot file lacks $t"
done

# 4. By letter, by name in any case, or both when they agree; param 0 by default.
a=$(echo '{"type":"command","name":"REVERSE","param":-7}' | "$bw" encode --proto lobot --hex)
b=$(echo '{"type":"command","cmd":"R","param":-7}' | "$bw" encode --proto lobot --hex)
c=$(echo '{"type":"command","cmd":"R","name":"Reverse","id":82,"param":-7}' | "$bw" encode --proto lobot --hex)
[ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$a" = "52 ff f9 54" ] &&
    pass "encode by name, by cmd, by both" || fail "by name/cmd: $a / $b / $c"

# 5. Noisy streams are counted, exactly.
got=$("$bw" decode --proto lobot --from host --hex "$data/lobot_noisy_host.hex")
want='{"type":"command","cmd":"F","name":"forward","param":200}
{"type":"command","cmd":"S","name":"stop","param":0}
{"type":"stats","frames":2,"checksum_errors":7,"length_errors":1,"skipped_bytes":11,"unknown":1}'
[ "$got" = "$want" ] && pass "noisy host stream counted (a bad parity, an unknown id are not shown)" ||
    fail "noisy host stream: $got"
got=$("$bw" decode --proto lobot --from robot --hex "$data/lobot_noisy_robot.hex")
want='{"type":"ready"}
{"type":"bumps","flags":6,"distance":-150,"angle":15}
{"type":"wheel_drops","flags":20}
{"type":"stats","frames":3,"checksum_errors":0,"length_errors":1,"skipped_bytes":7,"unknown":0}'
[ "$got" = "$want" ] && pass "noisy robot stream counted" || fail "noisy robot stream: $got"
"$bw" decode --proto lobot --from host --hex "$data/lobot_noisy_host.hex" | "$bw" encode --proto lobot --hex >"$tmp/clean.hex"
[ "$(cat "$tmp/clean.hex")" = "46 00 c8 8e
53 00 00 53" ] && pass "noisy stream: decode | encode gives the good commands" ||
    fail "noisy decode | encode: $(cat "$tmp/clean.hex")"
# A run of NOPs with a bit flipped in the first: every window one to three
# bytes on has a good parity (40 40 00 00 is a NOP of parameter 0x4000);
# the decoder finds the step again and every intact NOP comes out.
got=$(echo "41 00 00 40 40 00 00 40 40 00 00 40 40 00 00 40" | "$bw" decode --proto lobot --from host --hex | tr '\n' ' ')
[ "$got" = '{"type":"command","cmd":"@","name":"nop","param":0} {"type":"command","cmd":"@","name":"nop","param":0} {"type":"command","cmd":"@","name":"nop","param":0} {"type":"stats","frames":3,"checksum_errors":1,"length_errors":0,"skipped_bytes":4,"unknown":2} ' ] &&
    pass "a damaged NOP in a run of NOPs: back in step at the next" || fail "NOP run: $got"
"$bw" decode --proto lobot --from host --hex --strict "$data/lobot_noisy_host.hex" >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on rejected bytes" || fail "--strict"
got=$("$bw" decode --proto lobot </dev/null)
[ "$got" = '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0}' ] &&
    pass "empty input" || fail "empty input: $got"
got=$(printf 'B\377\152\000' | "$bw" decode --proto lobot | head -n 2 | tr '\n' ' ')
[ "$got" = '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":1,"skipped_bytes":4,"unknown":0} ' ] &&
    pass "BUMPS cut short by the end of input" || fail "cut BUMPS: $got"

# 6. Bad input: exactly one line naming the problem, exit 1, nothing written.
bad() {
    printf '%s\n' "$3" >"$tmp/bad"
    "$bw" encode --proto lobot "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "botwire encode: line 1: $2" ]; then
        pass "$1 ($2)"
    else
        fail "$1: exit $st: $(cat "$tmp/err")"
    fi
}
bad "unknown command name" 'unknown lobot command "warp" (commands: nop, forward, reverse, stop, left, right, straight, spin, enable_rear_bumps, disable_rear_bumps)' '{"type":"command","name":"warp"}'
bad "param out of range" 'field "param": 40000 is out of range -32768..32767' '{"type":"command","name":"forward","param":40000}'
bad "negative param out of range" 'field "param": -32769 is out of range -32768..32767' '{"type":"command","name":"spin","param":-32769}'
bad "param not an integer" 'field "param" must be an integer' '{"type":"command","name":"spin","param":1.5}'
bad "no cmd or name" 'missing field "cmd" or "name" (or "id")' '{"type":"command","param":1}'
bad "cmd of two letters" 'field "cmd" must be one printable ASCII character (another byte is "id")' '{"type":"command","cmd":"FF"}'
bad "cmd a number" 'field "cmd" must be one printable ASCII character (another byte is "id")' '{"type":"command","cmd":70}'
bad "cmd and name disagree" 'fields "cmd" ("R" is 82) and "name" ("forward" is 70) disagree' '{"type":"command","cmd":"R","name":"forward"}'
bad "id and name disagree" 'fields "id" (82) and "name" ("stop" is 83) disagree' '{"type":"command","id":82,"name":"stop"}'
bad "id out of range" 'field "id": 256 is out of range 0..255' '{"type":"command","id":256}'
bad "unknown field" 'unknown field "speed"' '{"type":"command","name":"forward","speed":100}'
bad "unknown type" 'unknown lobot message type "spin" (message types: command, ready, bumps, wheel_drops, cliffs, remote, sensors)' '{"type":"spin"}'
bad "missing type" 'missing string field "type"' '{"name":"stop"}'
bad "ACK missing field" 'missing field "angle"' '{"type":"bumps","flags":1,"distance":-150}'
bad "ACK value out of range" 'field "flags": 256 is out of range 0..255' '{"type":"wheel_drops","flags":256}'
bad "ACK distance out of range" 'field "distance": -32769 is out of range -32768..32767' '{"type":"cliffs","flags":1,"distance":-32769,"angle":0}'
bad "READY with a field" 'unknown field "flags"' '{"type":"ready","flags":0}'
sensors=$(sed -n 7p "$data/lobot_robot.jsonl")
bad "SENSORS missing spin_flag" 'missing field "spin_flag"' "$(echo "$sensors" | sed 's/,"spin_flag":0//')"
bad "SENSORS voltage out of range" 'field "voltage": 65536 is out of range 0..65535' "$(echo "$sensors" | sed 's/"voltage":15800/"voltage":65536/')"
bad "SENSORS unused byte as a field" 'unknown field "unused"' "$(echo "$sensors" | sed 's/}$/,"unused":0}/')"
bad "raw that is not the fields" "field \"raw\" must be this bumps ACK as received: 'B' and its 5 data bytes, which differ from the fields in unused bytes only" '{"type":"bumps","flags":1,"distance":2,"angle":3,"raw":"420100020004"}'
bad "raw of another id" "field \"raw\" must be this sensors ACK as received: '\$' and its 53 data bytes, which differ from the fields in unused bytes only" "$(sed -n 9p "$data/lobot_robot.jsonl" | sed 's/"raw":"24/"raw":"25/')"
bad "raw not hex" 'field "raw" is not hexadecimal' '{"type":"ready","raw":"zz"}'
bad "array line" 'a line must be one message object (lobot has one message per frame)' '[{"type":"ready"}]'
printf '{"type":"ready"}\n{"type":"command",\n' >"$tmp/badjson"
expect_error "malformed JSON" 1 "line 2: malformed JSON" "$bw" encode --proto lobot "$tmp/badjson"

# A bad line after good ones leaves no output file behind at all.
cat "$data/lobot_host.jsonl" "$tmp/bad" >"$tmp/mixed"
"$bw" encode --proto lobot -o "$tmp/never" "$tmp/mixed" 2>/dev/null
[ $? = 1 ] && [ ! -e "$tmp/never" ] && pass "nothing half-written with -o" || fail "-o after error"

"$bw" decode --help | grep -q lobot && pass "decode --help lists lobot" || fail "decode --help"

# GRL's low-level signals (raw-base-x, bump-switch-state) in `botwire
# wander`'s progress lines (wander_signals is testlib.sh's).
wander_signals 'sim:lobot' 0 4

finish "lobot CLI"
