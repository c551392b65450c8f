#!/bin/sh
# The `botwire decode` / `botwire encode` contract for the Create Open
# Interface, as scripts use it.
# usage: cli.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

# hex FILE: the bytes of a commented hex file, one frame a line.
hex() { sed 's/#.*//; s/ *$//' "$1" | grep -v '^$'; }

# 1. Golden vectors: every opcode, both ways; the manual's Stream frame.
hex "$data/create_golden.hex" >"$tmp/golden.hex"
head -n 29 "$data/create_host.jsonl" >"$tmp/golden.json"
"$bw" encode --proto create --hex "$tmp/golden.json" >"$tmp/golden2.hex"
cmp -s "$tmp/golden.hex" "$tmp/golden2.hex" && pass "encode every opcode (29 golden commands)" ||
    fail "encode golden: $(diff "$tmp/golden.hex" "$tmp/golden2.hex")"
"$bw" decode --proto create --from host --hex "$data/create_golden.hex" >"$tmp/golden.out"
head -n 29 "$tmp/golden.out" | cmp -s - "$tmp/golden.json" && pass "decode every opcode" ||
    fail "decode golden: $(head -n 29 "$tmp/golden.out" | diff "$tmp/golden.json" -)"
types=$(grep -o '^{"type":"[a-z_]*"' "$tmp/golden.json" | cut -d'"' -f4 | tr '\n' ' ')
[ "$types" = "start baud control safe full spot cover demo drive low_side_drivers leds song play sensors cover_and_dock pwm_low_side_drivers drive_direct digital_outputs stream query_list pause_resume_stream send_ir script play_script show_script wait_time wait_distance wait_angle wait_event " ] &&
    pass "types named after the OI's opcodes" || fail "types: $types"
got=$(echo '{"type":"drive_direct","right_velocity":100,"left_velocity":-100}' | "$bw" encode --proto create --hex)
[ "$got" = "91 00 64 ff 9c" ] && pass "drive_direct: right_velocity first, as the OI sends it" ||
    fail "drive_direct: $got"

hex "$data/create_golden_robot.hex" >"$tmp/robot_golden.hex"
"$bw" decode --proto create --from robot --hex "$data/create_golden_robot.hex" >"$tmp/robot_golden.out"
want='{"type":"stream","packets":[{"type":"cliff_front_left_signal","value":537},{"type":"virtual_wall","value":0}]}
{"type":"stream","packets":[{"type":"bumps_wheel_drops","value":3},{"type":"distance","value":-10},{"type":"angle","value":5},{"type":"battery_temp","value":-5}]}
{"type":"stats","frames":2,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0}'
[ "$(cat "$tmp/robot_golden.out")" = "$want" ] && pass "decode the manual's Stream frame and a four-packet one" ||
    fail "decode stream golden: $(cat "$tmp/robot_golden.out")"
"$bw" encode --proto create --hex "$tmp/robot_golden.out" | cmp -s - "$tmp/robot_golden.hex" &&
    pass "encode them: the checksum summed from the header" || fail "encode stream golden"
# From a record: "t" and "from" on the frame's object, not on its packets.
got=$(printf '%s\n' '{"botwire_record":1}' '{"t":1.25,"from":"robot","data":"13051d02190d00a3"}' |
    "$bw" decode --proto create | head -n 1)
[ "$got" = '{"type":"stream","packets":[{"type":"cliff_front_left_signal","value":537},{"type":"virtual_wall","value":0}],"t":1.25,"from":"robot"}' ] &&
    pass "a record's Stream frame: t and from once" || fail "record stream: $got"
# Group 6 with data byte i = 0x80 + i: checksum 84 (tests/create/test_proto.c);
# the unused bytes 15 and 16 (88 89) are kept in "raw".
g6="13 35 06 $(awk 'BEGIN { for (i = 0; i < 52; i++) printf "%02x ", 128 + i }')84"
want=$(sed -n 4p "$data/create_robot.jsonl")
got=$(echo "$g6" | "$bw" decode --proto create --hex | head -n 1)
[ "$got" = "$want" ] && pass "decode group 6, every field at its index" || fail "group 6: $got"
got=$(echo "$want" | "$bw" encode --proto create --hex)
[ "$got" = "$g6" ] && pass "encode group 6 with raw" || fail "encode group 6: $got"
fields=$(echo "$want" | sed 's/.*"packets":\[//' | grep -o '"[a-z_0-9]*":' | tr -d '":' | tr '\n' ' ')
[ "$fields" = "type bumps_wheel_drops wall cliff_left cliff_front_left cliff_front_right cliff_right virtual_wall lsd_wheel_oc infrared_byte buttons distance angle charging_state voltage current battery_temp battery_charge battery_capacity wall_signal cliff_left_signal cliff_front_left_signal cliff_front_right_signal cliff_right_signal cargo_bay_digital_inputs cargo_bay_analog_signal charging_sources oi_mode song_number song_playing num_stream_packets requested_speed requested_radius requested_right_speed requested_left_speed raw " ] &&
    pass "sensors_group6: the lobot SENSORS names without spin_flag" || fail "group 6 fields: $fields"

# 2. encode | decode gives back every message; decode | encode every byte.
for side in host robot; do
    n=$(wc -l <"$data/create_$side.jsonl")
    "$bw" encode --proto create "$data/create_$side.jsonl" >"$tmp/$side.bin" || fail "encode $side"
    "$bw" decode --proto create --from "$side" "$tmp/$side.bin" >"$tmp/$side.out" || fail "decode $side"
    head -n "$n" "$tmp/$side.out" >"$tmp/$side.msgs"
    if cmp -s "$tmp/$side.msgs" "$data/create_$side.jsonl"; then
        pass "round trip of every $side message ($n lines)"
    else
        fail "round trip $side:"
        diff "$data/create_$side.jsonl" "$tmp/$side.msgs"
    fi
    want="{\"type\":\"stats\",\"frames\":$n,\"checksum_errors\":0,\"length_errors\":0,\"skipped_bytes\":0,\"unknown\":0}"
    [ "$(tail -n 1 "$tmp/$side.out")" = "$want" ] && pass "stats line ($side)" ||
        fail "stats $side: $(tail -n 1 "$tmp/$side.out")"
    "$bw" decode --proto create --from "$side" --frames "$tmp/$side.bin" >"$tmp/$side.frames"
    cmp -s "$tmp/$side.frames" "$tmp/$side.out" && pass "--frames ($side: one message per frame)" ||
        fail "--frames $side"
    "$bw" encode --proto create "$tmp/$side.out" >"$tmp/$side.bin2"
    cmp -s "$tmp/$side.bin" "$tmp/$side.bin2" && pass "decode | encode is byte-exact ($side)" ||
        fail "decode | encode $side"
done
for id in 0 1 2 3 4 5 6; do
    grep -q "\"type\":\"sensors_group$id\"" "$data/create_robot.jsonl" || fail "robot file lacks group $id"
done
n=$(grep -o '"type":"[a-z_]*","value"' "$data/create_robot.jsonl" | sort -u | wc -l)
[ "$n" = 34 ] && grep -q '"type":"unused","id":16' "$data/create_robot.jsonl" &&
    pass "robot file has all 34 single packets and an unused one" || fail "robot file: $n single packet types"

# 3. Noisy streams are counted, exactly.
got=$("$bw" decode --proto create --from host --hex "$data/create_noisy_host.hex")
want='{"type":"start"}
{"type":"safe"}
{"type":"drive","velocity":200,"radius":-32768}
{"type":"stats","frames":3,"checksum_errors":0,"length_errors":2,"skipped_bytes":9,"unknown":7}'
[ "$got" = "$want" ] && pass "noisy host stream counted" || fail "noisy host stream: $got"
got=$("$bw" decode --proto create --from robot --hex "$data/create_noisy_robot.hex")
want='{"type":"stream","packets":[{"type":"cliff_front_left_signal","value":537},{"type":"virtual_wall","value":0}]}
{"type":"stream","packets":[{"type":"bumps_wheel_drops","value":3},{"type":"distance","value":-10},{"type":"angle","value":5},{"type":"battery_temp","value":-5}]}
{"type":"stats","frames":2,"checksum_errors":1,"length_errors":2,"skipped_bytes":18,"unknown":0}'
[ "$got" = "$want" ] && pass "noisy robot stream counted (the manual's header-less sum rejected)" ||
    fail "noisy robot stream: $got"
"$bw" decode --proto create --from robot --hex --strict "$data/create_noisy_robot.hex" >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on rejected bytes" || fail "--strict"
got=$("$bw" decode --proto create </dev/null)
[ "$got" = '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0}' ] &&
    pass "empty input" || fail "empty input: $got"

# 3b. A record holds both directions, so each Sensors and Query
# List reply is paired with its question and decoded (it was skipped), a
# Create 2's packets too; decode | encode gives the robot's bytes back.
cat >"$tmp/rec.jsonl" <<'EOF'
{"botwire_record":1,"url":"create:/dev/ttyUSB0","family":"create","start":"2026-11-22T04:50:00Z"}
{"t":0.01,"from":"host","data":"808495022b2c8e13"}
{"t":0.02,"from":"robot","data":"7fff8000"}
{"t":0.021,"from":"robot","data":"0102"}
{"t":0.03,"from":"host","data":"8e07"}
{"t":0.04,"from":"robot","data":"03"}
EOF
got=$("$bw" decode --proto create "$tmp/rec.jsonl" | grep '"from":"robot"')
want='{"type":"reply","ids":[43,44],"packets":[{"type":"left_encoder_counts","value":32767},{"type":"right_encoder_counts","value":-32768}],"t":0.02,"from":"robot"}
{"type":"reply","ids":[19],"packets":[{"type":"distance","value":258}],"t":0.021,"from":"robot"}
{"type":"reply","ids":[7],"packets":[{"type":"bumps_wheel_drops","value":3}],"t":0.04,"from":"robot"}'
[ "$got" = "$want" ] && pass "a record's replies paired with their questions (a Create 2's encoder counts)" ||
    fail "replies: $got"
got=$("$bw" decode --proto create "$tmp/rec.jsonl" | grep '"from":"robot"' | "$bw" encode --proto create | od -An -v -tx1 | tr -d ' \n')
[ "$got" = "7fff8000010203" ] && pass "decode | encode of replies is byte-exact" || fail "reply encode: $got"
got=$("$bw" decode --proto create --from robot "$tmp/rec.jsonl" | tail -n 1)
case "$got" in *'"frames":0,'*'"skipped_bytes":7,'*) pass "without the questions, replies are skipped" ;;
    *) fail "--from robot: $got" ;; esac
"$bw" record "sim:create?model=create2" -o "$tmp/c2.jsonl" --for 0.2 2>/dev/null
"$bw" decode --proto create "$tmp/c2.jsonl" >"$tmp/c2.out"
grep '"from":"robot"' "$tmp/c2.out" | "$bw" encode --proto create | od -An -v -tx1 | tr -d ' \n' >"$tmp/c2.enc"
sed 1d "$tmp/c2.jsonl" | grep '"from":"robot"' | sed 's/.*"data":"//; s/".*//' | tr -d '\n' >"$tmp/c2.raw"
# The record may stop while a frame is still crossing the line (84 bytes at
# 115200 baud): every whole frame encodes back, the cut one is counted.
enc=$(cat "$tmp/c2.enc")
raw=$(cat "$tmp/c2.raw")
rest=${raw#"$enc"}
if [ -n "$enc" ] && [ "$rest" != "$raw" ] && [ ${#rest} -lt 168 ] && grep -q '"sensors_group100"' "$tmp/c2.out" &&
    tail -n 1 "$tmp/c2.out" | grep -q '"checksum_errors":0,"length_errors":[01],"skipped_bytes":[0-9]*,"unknown":0'; then
    pass "a Create 2's record (group 100 streamed) decodes and encodes back byte-exact"
else
    fail "create2 record: $(tail -n 1 "$tmp/c2.out")"
fi

# decode --model create2 (and a record of a ?model=create2 robot): a Create
# 2's commands by their names, and back; a Create 1's decoder skips them
# whole (the digits of 164 are no opcodes).
printf '80 84 a4 35 30 37 31 ad 07 94 02 2b 65 92 00 64 ff 9c 98 02 89 00\n' >"$tmp/c2cmds.hex"
got=$("$bw" decode --proto create --model create2 --from host --hex "$tmp/c2cmds.hex" | tr '\n' ' ')
want='{"type":"start"} {"type":"full"} {"type":"digit_leds_ascii","digits":[53,48,55,49]} {"type":"stop"} {"type":"reset"} {"type":"stream","ids":[43,101]} {"type":"drive_pwm","right_pwm":100,"left_pwm":-100} {"type":"stats","frames":7,"checksum_errors":0,"length_errors":0,"skipped_bytes":4,"unknown":1} '
[ "$got" = "$want" ] && pass "decode --model create2: its commands by name, a Create 1's Script skipped whole" ||
    fail "create2 commands: $got"
got=$("$bw" decode --proto create --model create2 --from host --hex "$tmp/c2cmds.hex" | "$bw" encode --proto create | od -An -v -tx1 | tr -d ' \n')
[ "$got" = "8084a435303731ad0794022b65920064ff9c" ] && pass "Create 2 commands encode back" || fail "create2 encode: $got"
got=$("$bw" decode --proto create --from host --hex "$tmp/c2cmds.hex" | tail -n 1)
[ "$got" = '{"type":"stats","frames":4,"checksum_errors":0,"length_errors":0,"skipped_bytes":12,"unknown":4}' ] &&
    pass "a Create 1's decoder: four Create 2 commands, each skipped whole" || fail "create1 of create2 commands: $got"

# 4. Bad input: exactly one line naming the problem, exit 1, nothing written.
bad() {
    printf '%s\n' "$3" >"$tmp/bad"
    "$bw" encode --proto create "$tmp/bad" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ "$st" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "botwire encode: line 1: $2" ]; then
        pass "$1 ($2)"
    else
        fail "$1: exit $st: $(cat "$tmp/err")"
    fi
}
bad "unknown type" 'unknown create message type "warp"' '{"type":"warp"}'
bad "type in upper case" 'unknown create message type "DRIVE"' '{"type":"DRIVE","velocity":1,"radius":0}'
bad "missing type" 'missing string field "type"' '{"velocity":1}'
bad "unknown field" 'unknown field "speed"' '{"type":"drive","speed":100,"radius":0}'
bad "missing field" 'missing field "radius"' '{"type":"drive","velocity":100}'
bad "velocity out of range" 'field "velocity": 40000 is out of range -32768..32767' '{"type":"drive","velocity":40000,"radius":0}'
bad "the codec's drive_direct names" 'unknown field "right"' '{"type":"drive_direct","right":1,"left":1}'
bad "baud code out of range" 'field "code": 256 is out of range 0..255' '{"type":"baud","code":256}'
bad "demo out of range" 'field "demo": 128 is out of range -128..127' '{"type":"demo","demo":128}'
bad "field on a bare command" 'unknown field "mode"' '{"type":"safe","mode":2}'
bad "song without notes" 'field "notes" must be an array of 1..16 [note, duration] pairs' '{"type":"song","song":0,"notes":[]}'
bad "song of 17 notes" 'field "notes" must be an array of 1..16 [note, duration] pairs' "{\"type\":\"song\",\"song\":0,\"notes\":[$(printf '[60,8],%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)[60,8]]}"
bad "note out of range" 'notes[1] must be [note, duration]: integers 0..255' '{"type":"song","song":0,"notes":[[60,8],[60,256]]}'
bad "note not a pair" 'notes[0] must be [note, duration]: integers 0..255' '{"type":"song","song":0,"notes":[[60]]}'
bad "song number missing" 'missing field "song"' '{"type":"song","notes":[[60,8]]}'
bad "44 packet ids" 'field "ids" must be an array of 0..43 packet ids' "{\"type\":\"query_list\",\"ids\":[$(printf '7,%.0s' $(seq 43))7]}"
bad "packet id out of range" 'ids[1] must be an integer 0..255' '{"type":"stream","ids":[7,256]}'
bad "empty script" 'field "data" must hold 1..100 bytes' '{"type":"script","data":""}'
bad "script of 101 bytes" 'field "data" must hold an even number of hex digits, at most 100 bytes' "{\"type\":\"script\",\"data\":\"$(printf '00%.0s' $(seq 101))\"}"
bad "stream with ids and packets" 'a stream has "ids" (the Stream command) or "packets" (a Stream frame), not both' '{"type":"stream","ids":[7],"packets":[{"type":"wall","value":1}]}'
bad "stream frame of no packet" 'field "packets" must be an array of 1..127 sensor packets' '{"type":"stream","packets":[]}'
bad "stream frame field" 'unknown field "checksum"' '{"type":"stream","packets":[{"type":"wall","value":1}],"checksum":0}'
bad "unknown packet" 'packets[1]: unknown sensor packet "walls"' '{"type":"stream","packets":[{"type":"wall","value":1},{"type":"walls","value":1}]}'
bad "codec's group name" 'packets[0]: unknown sensor packet "group_6"' '{"type":"stream","packets":[{"type":"group_6"}]}'
bad "packet value out of range" 'packets[0]: field "value": 4096000 is out of range 0..65535' '{"type":"stream","packets":[{"type":"wall_signal","value":4096000}]}'
bad "signed packet out of range" 'packets[0]: field "value": 128 is out of range -128..127' '{"type":"stream","packets":[{"type":"battery_temp","value":128}]}'
bad "packet missing value" 'packets[0]: missing field "value"' '{"type":"stream","packets":[{"type":"distance"}]}'
bad "packet not an object" 'packets[0]: must be an object with a string "type"' '{"type":"stream","packets":[7]}'
bad "unused packet id" 'packets[0]: field "id": 17 is out of range 15..16' '{"type":"stream","packets":[{"type":"unused","id":17,"value":0}]}'
bad "group missing field" 'packets[0]: missing field "song_number"' '{"type":"stream","packets":[{"type":"sensors_group5","oi_mode":2}]}'
bad "group raw not its bytes" 'packets[0]: field "raw" must be this packet as received: id 2 and its 6 data bytes, which differ from the fields in unused bytes only' '{"type":"stream","packets":[{"type":"sensors_group2","infrared_byte":255,"buttons":0,"distance":0,"angle":0,"raw":"02ff00000001"}]}'
g6=$(sed -n 3p "$data/create_robot.jsonl" | sed 's/.*"packets":\[//; s/\]}$//')
bad "a frame over 255 bytes" 'packets[4]: the frame'"'"'s packets exceed the 255 bytes a Stream frame holds' "{\"type\":\"stream\",\"packets\":[$g6,$g6,$g6,$g6,$g6]}"
bad "array line" 'a line must be one message object (create has one message per frame)' '[{"type":"start"}]'
printf '{"type":"start"}\n{"type":"drive",\n' >"$tmp/badjson"
expect_error "malformed JSON" 1 "line 2: malformed JSON" "$bw" encode --proto create "$tmp/badjson"

cat "$data/create_host.jsonl" "$tmp/bad" >"$tmp/mixed"
"$bw" encode --proto create -o "$tmp/never" "$tmp/mixed" 2>/dev/null
[ $? = 1 ] && [ ! -e "$tmp/never" ] && pass "nothing half-written with -o" || fail "-o after error"

"$bw" decode --help | grep -q create && pass "decode --help lists create" || fail "decode --help"

# GRL's low-level signals (raw-base-x, bump-switch-state) in `botwire
# wander`'s progress lines (wander_signals is testlib.sh's).
wander_signals 'sim:create?model=create2' 2249.40 2
wander_signals 'sim:create' 0 2

# Docking, in virtual time: a Create 2 1.5 m out, 30 degrees off the
# built-in room's Home Base (4.9, 3.0, facing -x) and facing away, docks
# itself on Seek Dock; the emulator's contacts say so and it is left there
# standing, Passive; a Create 1 the same by Cover and Dock; behind a
# partition no buoy reaches it: it says so after 60 s, stopped, exit 1.
for m in "model=create2&" ""; do
    "$bw" dock "sim:create?${m}battery=0.5&start=3.601,2.250,90" --fast >"$tmp/dock.out" 2>"$tmp/dock.err"
    got=$?
    [ "$got" = 0 ] &&
        tail -n 1 "$tmp/dock.out" | grep -q '^{"docked":true,"why":"docked and charging after [0-9.]* s",.*"contacts":true}$' &&
        grep -q '"state":"seeking","buoys":\[[1-7],' "$tmp/dock.out" && pass "dock ${m:-create 1}: $(cat "$tmp/dock.err")" ||
        fail "dock ${m:-create 1}: exit $got, $(tail -n 1 "$tmp/dock.out") $(cat "$tmp/dock.err")"
done
printf 'size 6 5\nwall 2.5 0 2.5 5\ndock 3 2.5 0 create\n' >"$tmp/apart.world"
expect_failure "dock behind a partition" 1 "not done: cannot see the dock: no buoy of it heard in 60 s" \
    "$bw" dock "sim:create?model=create2&world=$tmp/apart.world&start=1.5,2.5,0" --fast
grep -q '"docked":false,.*"contacts":false}$' "$tmp/out" && pass "behind a partition: the end line says not docked" ||
    fail "behind a partition: $(tail -n 1 "$tmp/out")"

finish "Create OI CLI"
