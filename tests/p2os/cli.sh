#!/bin/sh
# The `botwire decode` / `botwire encode` contract for P2OS, as scripts use it.
# usage: cli_p2os.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

# encodes_to NAME JSON HEX: one line of JSON gives exactly these bytes.
encodes_to() {
    got=$(echo "$2" | "$bw" encode --proto p2os --hex)
    [ "$got" = "$3" ] && pass "encode $1" || fail "encode $1: $got"
}

# 1. Golden packets from PROTOCOL-NOTES.md, both ways.
encodes_to "PULSE (SYNC0)" '{"type":"command","name":"pulse"}' "fa fb 03 00 00 00"
encodes_to "SYNC1" '{"type":"command","cmd":1}' "fa fb 03 01 00 01"
encodes_to "SYNC2" '{"type":"command","cmd":2,"name":"close"}' "fa fb 03 02 00 02"
encodes_to "OPEN 1" '{"type":"command","name":"open","arg":1}' "fa fb 06 01 3b 01 00 02 3b"
encodes_to "ENABLE 1" '{"type":"command","cmd":4,"arg":1}' "fa fb 06 04 3b 01 00 05 3b"
encodes_to "VEL 200" '{"type":"command","name":"vel","arg":200}' "fa fb 06 0b 3b c8 00 d3 3b"
encodes_to "VEL -200" '{"type":"command","cmd":11,"name":"vel","arg":-200}' "fa fb 06 0b 1b c8 00 d3 1b"
encodes_to "RVEL 30" '{"type":"command","name":"rvel","arg":30}' "fa fb 06 15 3b 1e 00 33 3b"
encodes_to "odd body (string)" '{"type":"command","cmd":15,"arg":"ab"}' "fa fb 07 0f 2b 02 61 62 11 ee"
encodes_to "odd body (arg_hex)" '{"type":"command","cmd":15,"arg_hex":"6162"}' "fa fb 07 0f 2b 02 61 62 11 ee"
encodes_to "SYNC0 reply" '{"type":"sync","n":0}' "fa fb 03 00 00 00"
got=$(echo 'fa fb 06 0b 1b c8 00 d3 1b' | "$bw" decode --proto p2os --from host --hex | sed -n 1p)
[ "$got" = '{"type":"command","cmd":11,"name":"vel","arg":-200}' ] && pass "decode VEL -200 golden" ||
    fail "decode VEL -200: $got"
got=$(echo 'fa fb 07 0f 2b 02 61 62 11 ee' | "$bw" decode --proto p2os --from host --hex | sed -n 1p)
[ "$got" = '{"type":"command","cmd":15,"name":"say","arg":"ab"}' ] && pass "decode odd body golden" ||
    fail "decode odd body: $got"
got=$(echo 'fa fb 03 02 00 02' | "$bw" decode --proto p2os --from robot --hex | sed -n 1p)
[ "$got" = '{"type":"sync","n":2}' ] && pass "decode SYNC2 from the robot" || fail "decode SYNC2: $got"
grep -v '^#' "$data/p2os_golden.hex" >"$tmp/golden.hex"
"$bw" decode --proto p2os --from host --hex "$data/p2os_golden.hex" >"$tmp/golden.json"
"$bw" encode --proto p2os --hex "$tmp/golden.json" >"$tmp/golden2.hex"
cmp -s "$tmp/golden.hex" "$tmp/golden2.hex" && pass "every golden packet: decode | encode is byte-exact" ||
    fail "golden round trip: $(cat "$tmp/golden2.hex")"

# 2. encode | decode gives back every command and every packet type.
for side in host robot; do
    n=$(wc -l <"$data/p2os_$side.jsonl")
    "$bw" encode --proto p2os "$data/p2os_$side.jsonl" >"$tmp/$side.bin" || fail "encode $side"
    "$bw" decode --proto p2os --from "$side" "$tmp/$side.bin" >"$tmp/$side.out" || fail "decode $side"
    head -n "$n" "$tmp/$side.out" >"$tmp/$side.msgs"
    if cmp -s "$tmp/$side.msgs" "$data/p2os_$side.jsonl"; then
        pass "round trip of every $side message ($n lines)"
    else
        fail "round trip $side:"
        diff "$data/p2os_$side.jsonl" "$tmp/$side.msgs"
    fi
    unknown=0
    [ "$side" = robot ] && unknown=1
    want="{\"type\":\"stats\",\"frames\":$n,\"checksum_errors\":0,\"length_errors\":0,\"skipped_bytes\":0,\"unknown\":$unknown}"
    [ "$(tail -n 1 "$tmp/$side.out")" = "$want" ] && pass "stats line ($side)" ||
        fail "stats $side: $(tail -n 1 "$tmp/$side.out")"
    # --frames: one message per frame, so the same lines.
    "$bw" decode --proto p2os --from "$side" --frames "$tmp/$side.bin" >"$tmp/$side.frames"
    cmp -s "$tmp/$side.frames" "$tmp/$side.out" && pass "--frames ($side)" || fail "--frames $side"
    # The decoded lines (with their stats line) encode to the same bytes.
    "$bw" encode --proto p2os "$tmp/$side.out" >"$tmp/$side.bin2"
    cmp -s "$tmp/$side.bin" "$tmp/$side.bin2" && pass "decode | encode is byte-exact ($side)" ||
        fail "decode | encode $side"
done
n=$(grep -o '"name":"[a-z_0-9]*"' "$data/p2os_host.jsonl" | sort -u | wc -l)
[ "$n" = 57 ] && pass "host file names all 57 commands" || fail "host file has $n named commands"
for t in sync sip config encoder simstat unknown; do
    grep -q "\"type\":\"$t\"" "$data/p2os_robot.jsonl" || fail "robot file lacks $t"
done

# 3. By name, by number, or both when they agree.
a=$(echo '{"type":"command","name":"setrv","arg":-7}' | "$bw" encode --proto p2os --hex)
b=$(echo '{"type":"command","cmd":10,"arg":-7}' | "$bw" encode --proto p2os --hex)
c=$(echo '{"type":"command","cmd":10,"name":"setrv","arg":-7}' | "$bw" encode --proto p2os --hex)
[ "$a" = "$b" ] && [ "$b" = "$c" ] && [ "$a" = "fa fb 06 0a 1b 07 00 11 1b" ] &&
    pass "encode by name, by cmd, by both" || fail "by name/cmd: $a / $b / $c"

# 4. A noisy stream is counted, exactly.
got=$("$bw" decode --proto p2os --from host --hex "$data/p2os_noisy.hex")
want='{"type":"command","cmd":11,"name":"vel","arg":200}
{"type":"command","cmd":0,"name":"pulse"}
{"type":"unknown","id":11,"length":2,"data":"0b3b"}
{"type":"stats","frames":3,"checksum_errors":1,"length_errors":3,"skipped_bytes":21,"unknown":0}'
[ "$got" = "$want" ] && pass "noisy stream counted" || fail "noisy stream: $got"
"$bw" decode --proto p2os --from host --hex --strict "$data/p2os_noisy.hex" >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on rejected bytes" || fail "--strict"
got=$("$bw" decode --proto p2os </dev/null)
[ "$got" = '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0}' ] &&
    pass "empty input" || fail "empty input: $got"

# 5. Bad input: one clear line, exit 1, nothing written.
bad() {
    printf '%s\n' "$3" >"$tmp/bad"
    expect_error "$1" 1 "$2" "$bw" encode --proto p2os "$tmp/bad"
}
bad "unknown command name" 'unknown p2os command "warp"' '{"type":"command","name":"warp"}'
bad "name and cmd disagree" 'command "vel" is 11, not "cmd" 12' '{"type":"command","cmd":12,"name":"vel","arg":1}'
bad "neither cmd nor name" 'missing field "cmd" or "name"' '{"type":"command","arg":1}'
bad "arg out of range" 'field "arg": 65536 is out of range -65535..65535' '{"type":"command","name":"vel","arg":65536}'
bad "negative arg out of range" 'field "arg": -65536 is out of range' '{"type":"command","name":"vel","arg":-65536}'
bad "cmd out of range" 'field "cmd": 256 is out of range 0..255' '{"type":"command","cmd":256}'
bad "arg and arg_hex" 'one argument' '{"type":"command","cmd":15,"arg":"a","arg_hex":"61"}'
bad "arg not int or string" 'must be an integer or a string' '{"type":"command","cmd":15,"arg":1.5}'
bad "unknown field" 'unknown field "speed"' '{"type":"command","name":"vel","speed":3}'
bad "unknown type" 'unknown p2os message type "warp"' '{"type":"warp"}'
bad "bad sonar entry" 'sonar\[1\] must be \[number, range\]' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":0,"stall_bump":0,"control":0,"flags":0,"compass":0,"sonar":[[1,2],[3]]}'
bad "sonar range out of range" 'sonar\[0\]' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":0,"stall_bump":0,"control":0,"flags":0,"compass":0,"sonar":[[1,65536]]}'
bad "sip field out of range" 'field "battery": 256 is out of range 0..255' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":256,"stall_bump":0,"control":0,"flags":0,"compass":0,"sonar":[]}'
bad "trailing field out of order" 'field "analog" needs "timer" before it' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":0,"stall_bump":0,"control":0,"flags":0,"compass":0,"sonar":[],"analog":1}'
bad "extra that is a field" 'would read as field "analog"' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":0,"stall_bump":0,"control":0,"flags":0,"compass":0,"sonar":[],"timer":1,"extra":"00"}'
bad "missing field" 'missing field "compass"' '{"type":"sip","moving":false,"xpos":0,"ypos":0,"thpos":0,"lvel":0,"rvel":0,"battery":0,"stall_bump":0,"control":0,"flags":0,"sonar":[]}'
bad "sync info without n 2" 'only with "n":2' '{"type":"sync","n":1,"name":"a","class":"b","subclass":"c"}'
bad "sync string too long" 'field "name" must be at most 63 bytes' "{\"type\":\"sync\",\"n\":2,\"name\":\"$(printf '%064d' 0)\",\"class\":\"b\",\"subclass\":\"c\"}"
bad "config tail out of order" 'field "gripper" needs "aux_baud" before it' '{"type":"config","robot_type":"a","subtype":"b","serial":"c","four_mots":0,"rot_vel_top":0,"trans_vel_top":0,"rot_accel_top":0,"trans_accel_top":0,"pwm_max":0,"name":"n","sip_cycle":1,"host_baud":1,"gripper":1}'
bad "encoder out of range" 'field "left": 2147483648 is out of range' '{"type":"encoder","left":2147483648,"right":0}'
bad "unknown data/id mismatch" 'first byte must be "id" 240' '{"type":"unknown","id":240,"length":2,"data":"0102"}'
bad "unknown data length" 'holds 1 bytes but "length" is 2' '{"type":"unknown","id":1,"length":2,"data":"01"}'
bad "array line" 'one message object' '[{"type":"sync","n":0}]'
bad "string arg too long" 'longer than 195 bytes' "{\"type\":\"command\",\"cmd\":15,\"arg\":\"$(printf '%0196d' 0)\"}"
printf '{"type":"command","cmd":0}\n{"type":"command",\n' >"$tmp/badjson"
expect_error "malformed JSON" 1 "line 2: malformed JSON" "$bw" encode --proto p2os "$tmp/badjson"

# A body that does not fit a frame: four long strings.
long=$(printf '%063d' 0)
bad "config over 198 bytes" 'config does not fit a frame' "{\"type\":\"config\",\"robot_type\":\"$long\",\"subtype\":\"$long\",\"serial\":\"$long\",\"four_mots\":0,\"rot_vel_top\":0,\"trans_vel_top\":0,\"rot_accel_top\":0,\"trans_accel_top\":0,\"pwm_max\":0,\"name\":\"n\"}"

# A bad line after good ones leaves no output file behind at all.
cat "$data/p2os_host.jsonl" "$tmp/bad" >"$tmp/mixed"
"$bw" encode --proto p2os -o "$tmp/never" "$tmp/mixed" 2>/dev/null
[ $? = 1 ] && [ ! -e "$tmp/never" ] && pass "nothing half-written with -o" || fail "-o after error"

"$bw" decode --help | grep -q p2os && pass "decode --help lists p2os" || fail "decode --help"

# Strings from the wire in JSON: escaped as JSON escapes them (\", \\, \t,
# \u0001; UTF-8 as it is), and one that is not UTF-8 left out, key and all.
got=$(printf '%s\n' 'fa fb 12 02 61 22 62 5c 63 00 09 01 00 63 61 66 c3 a9 00 f5 53' \
    'fa fb 0d 02 78 ff 79 00 c3 00 2f 6f 6b 00 72 4e' | "$bw" decode --proto p2os --hex | head -n 2)
want='{"type":"sync","n":2,"name":"a\"b\\c","class":"\t\u0001","subclass":"café"}
{"type":"sync","n":2,"subclass":"/ok"}'
[ "$got" = "$want" ] && pass "decode: wire strings escaped, non-UTF-8 ones left out" ||
    fail "wire strings: $got"

# GRL's low-level signals (raw-base-x, bump-switch-state) in `botwire
# wander`'s progress lines (wander_signals is testlib.sh's).
wander_signals 'sim:p2os?model=p2pb' 128000 10
wander_signals 'sim:p2os' 128000 0

finish "P2OS CLI"
