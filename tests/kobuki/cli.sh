#!/bin/sh
# The `botwire decode` / `botwire encode` contract for Kobuki, as scripts use it.
# usage: cli_kobuki.sh BOTWIRE TESTS_DIR
set -u
bw=$1
data=$2/data
. "$(dirname "$0")/../testlib.sh"

# 1. Golden vectors from PROTOCOL-NOTES.md.
got=$(echo '{"type":"base_control","speed":100,"radius":0}' | "$bw" encode --proto kobuki --hex)
[ "$got" = "aa 55 06 01 04 64 00 00 00 67" ] && pass "encode base_control golden" ||
    fail "encode base_control: $got"
got=$(echo '{"type":"request_extra","flags":11}' | "$bw" encode --proto kobuki --hex)
[ "$got" = "aa 55 04 09 02 0b 00 04" ] && pass "encode request_extra golden" ||
    fail "encode request_extra: $got"
got=$(echo 'aa 55 06 01 04 64 00 00 00 67' | "$bw" decode --proto kobuki --from host --hex | head -n 1)
[ "$got" = '{"type":"base_control","speed":100,"radius":0}' ] && pass "decode base_control golden" ||
    fail "decode base_control: $got"

# 2. encode | decode gives back every message, both directions.
for side in host robot; do
    n=$(wc -l <"$data/kobuki_$side.jsonl")
    "$bw" encode --proto kobuki "$data/kobuki_$side.jsonl" >"$tmp/$side.bin" || fail "encode $side"
    "$bw" decode --proto kobuki --from "$side" "$tmp/$side.bin" >"$tmp/$side.out" || fail "decode $side"
    head -n "$n" "$tmp/$side.out" >"$tmp/$side.msgs"
    if cmp -s "$tmp/$side.msgs" "$data/kobuki_$side.jsonl"; then
        pass "round trip of every $side message ($n types)"
    else
        fail "round trip $side:"
        diff "$data/kobuki_$side.jsonl" "$tmp/$side.msgs"
    fi
    want="{\"type\":\"stats\",\"frames\":$n,\"checksum_errors\":0,\"length_errors\":0,\"skipped_bytes\":0,\"unknown\":1}"
    [ "$(tail -n 1 "$tmp/$side.out")" = "$want" ] && pass "stats line ($side)" ||
        fail "stats $side: $(tail -n 1 "$tmp/$side.out")"
done

# 3. decode --frames | encode reproduces a multi-message frame byte for byte.
grep -v '^#' "$data/kobuki_feedback.hex" >"$tmp/fb.hex"
"$bw" decode --proto kobuki --hex --frames "$data/kobuki_feedback.hex" >"$tmp/fb.json"
[ "$(head -c 1 "$tmp/fb.json")" = "[" ] && pass "--frames writes one array per frame" || fail "--frames"
"$bw" encode --proto kobuki --hex "$tmp/fb.json" >"$tmp/fb2.hex"
cmp -s "$tmp/fb.hex" "$tmp/fb2.hex" && pass "decode --frames | encode is byte-exact" ||
    fail "frames round trip: $(cat "$tmp/fb2.hex")"
# ...and so do frames that pass the checksum but are malformed inside.
for side in host robot; do
    grep -v '^#' "$data/kobuki_malformed.hex" >"$tmp/bad.hex"
    "$bw" decode --proto kobuki --from "$side" --hex --frames "$data/kobuki_malformed.hex" |
        "$bw" encode --proto kobuki --hex >"$tmp/bad2.hex"
    cmp -s "$tmp/bad.hex" "$tmp/bad2.hex" &&
        pass "malformed frames ($side ids): decode --frames | encode is byte-exact" ||
        fail "malformed frames ($side): $(diff "$tmp/bad.hex" "$tmp/bad2.hex")"
done
n=$("$bw" decode --proto kobuki --hex "$data/kobuki_feedback.hex" | grep -c '"type"')
[ "$n" = 8 ] && pass "feedback frame: 7 sub-payloads + stats" || fail "feedback frame gave $n lines"

# 4. Garbage, a bad checksum and a truncated tail are counted, exactly.
printf '00 ff aa 55 06 01 04 64 00 00 00 66 aa 55 04 09 02 0b 00 04 12 aa 55 06 01\n' >"$tmp/noisy.hex"
got=$("$bw" decode --proto kobuki --from host --hex "$tmp/noisy.hex" | tail -n 1)
want='{"type":"stats","frames":1,"checksum_errors":1,"length_errors":1,"skipped_bytes":17,"unknown":0}'
[ "$got" = "$want" ] && pass "noisy stream counted" || fail "noisy stream: $got"
"$bw" decode --proto kobuki --from host --hex --strict "$tmp/noisy.hex" >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on rejected bytes" || fail "--strict"
"$bw" decode --proto kobuki --strict "$tmp/robot.bin" >/dev/null 2>&1
[ $? = 1 ] && pass "--strict fails on unknown messages" || fail "--strict unknown"

# 5. Raw bytes through a pipe, and an empty input.
got=$(printf '\252\125\004\011\002\013\000\004' | "$bw" decode --proto kobuki --from host | head -n 1)
[ "$got" = '{"type":"request_extra","flags":11}' ] && pass "raw bytes on stdin" || fail "stdin: $got"
got=$("$bw" decode --proto kobuki </dev/null)
[ "$got" = '{"type":"stats","frames":0,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":0}' ] &&
    pass "empty input" || fail "empty input: $got"

# A record's "t" is a JSON real of 10 significant digits, written as jansson
# writes one, however the record spelled it; --frames annotates each message.
bc=aa550601046400000067
{
    echo '{"botwire_record":1}'
    for t in 0.5 12 -0 0.000012 1e3 123456789012.5 -0.0; do
        echo "{\"t\":$t,\"from\":\"host\",\"data\":\"$bc\"}"
    done
} >"$tmp/t.rec"
got=$("$bw" decode --proto kobuki "$tmp/t.rec" | sed -n 's/.*"t":\([^,]*\),"from":"host"}$/\1/p' | tr '\n' ' ')
[ "$got" = "0.5 12.0 0.0 1.2e-5 1000.0 1.23456789e11 -0.0 " ] && pass "record times as reals" ||
    fail "record times: $got"
got=$("$bw" decode --proto kobuki --frames "$tmp/t.rec" | head -n 1)
[ "$got" = '[{"type":"base_control","speed":100,"radius":0,"t":0.5,"from":"host"}]' ] &&
    pass "record with --frames" || fail "record --frames: $got"

# 6. Bad input: one clear line, non-zero exit, nothing half-written.
printf '{"type":"sound_sequence","sequence":1}\n{"type":"base_control",\n' >"$tmp/bad1"
expect_error "malformed JSON" 1 "line 2: malformed JSON" "$bw" encode --proto kobuki "$tmp/bad1"
echo '{"type":"warp_drive"}' >"$tmp/bad2"
expect_error "unknown type" 1 'unknown kobuki message type "warp_drive"' "$bw" encode --proto kobuki "$tmp/bad2"
echo '{"type":"base_control","speed":40000,"radius":0}' >"$tmp/bad3"
expect_error "out of range" 1 'field "speed": 40000 is out of range -32768..32767' "$bw" encode --proto kobuki "$tmp/bad3"
echo '{"type":"base_control","speed":1}' >"$tmp/bad4"
expect_error "missing field" 1 'missing field "radius"' "$bw" encode --proto kobuki "$tmp/bad4"
echo '{"type":"base_control","speed":1,"radius":0,"sped":3}' >"$tmp/bad5"
expect_error "unknown field" 1 'unknown field "sped"' "$bw" encode --proto kobuki "$tmp/bad5"
echo '{"type":"base_control","speed":1.5,"radius":0}' >"$tmp/bad6"
expect_error "non-integer" 1 'must be an integer' "$bw" encode --proto kobuki "$tmp/bad6"
echo '{"type":"raw_gyro","frame_id":1,"samples":[[1,2]]}' >"$tmp/bad7"
expect_error "bad gyro sample" 1 'samples\[0\]' "$bw" encode --proto kobuki "$tmp/bad7"
echo '{"type":"unknown","id":5,"length":3,"data":"0102"}' >"$tmp/bad8"
expect_error "unknown data length" 1 'holds 2 bytes' "$bw" encode --proto kobuki "$tmp/bad8"
# The seed's sound sequences are "0 for ON sound ... 6 for CLEANINGEND sound":
# encode refuses a 7; the seven's frame from the wire decodes as an unknown
# sub-payload (id 4, its byte kept) and encodes back as it came.
echo '{"type":"sound_sequence","sequence":7}' >"$tmp/bad_seq"
expect_error "sound sequence 7" 1 'field "sequence": 7 is out of range 0..6' "$bw" encode --proto kobuki "$tmp/bad_seq"
got=$(echo '{"type":"sound_sequence","sequence":6}' | "$bw" encode --proto kobuki --hex)
[ "$got" = "aa 55 03 04 01 06 00" ] && pass "sound sequence 6 (CLEANINGEND), the seed's last" ||
    fail "sound sequence 6: $got"
got=$(echo 'aa 55 03 04 01 07 01' | "$bw" decode --proto kobuki --from host --hex)
[ "$got" = '{"type":"unknown","id":4,"length":1,"data":"07"}
{"type":"stats","frames":1,"checksum_errors":0,"length_errors":0,"skipped_bytes":0,"unknown":1}' ] &&
    pass "a sound sequence 7 from the wire decodes as unknown, counted" || fail "decode of a 7: $got"
got=$(echo 'aa 55 03 04 01 07 01' | "$bw" decode --proto kobuki --from host --hex | "$bw" encode --proto kobuki --hex)
[ "$got" = "aa 55 03 04 01 07 01" ] && pass "...and encodes back as it came" || fail "7 round trip: $got"
echo '[]' >"$tmp/bad9"
expect_error "empty frame" 1 'empty array' "$bw" encode --proto kobuki "$tmp/bad9"
expect_error "unreadable file" 1 "cannot open" "$bw" decode --proto kobuki "$tmp/no-such-file"
expect_error "unreadable file (encode)" 1 "cannot open" "$bw" encode --proto kobuki "$tmp/no-such-file"
echo 'aa 5' >"$tmp/odd.hex"
expect_error "odd hex" 1 "odd number of hex digits" "$bw" decode --proto kobuki --hex "$tmp/odd.hex"
echo 'aa zz' >"$tmp/bad.hex"
expect_error "bad hex" 1 "not a hex digit" "$bw" decode --proto kobuki --hex "$tmp/bad.hex"
expect_error "unknown protocol" 2 'unknown protocol "roomba"' "$bw" decode --proto roomba
expect_error "missing --proto" 2 "proto is required" "$bw" encode
expect_error "bad --from" 2 "must be robot or host" "$bw" decode --proto kobuki --from side
expect_error "unknown command" 2 'unknown command "fly"' sh -c "\"$bw\" fly 2>&1 >/dev/null | head -n 1 >&2; exit 2"

# A bad line after good ones leaves no output file behind at all.
cat "$data/kobuki_host.jsonl" "$tmp/bad3" >"$tmp/mixed"
"$bw" encode --proto kobuki -o "$tmp/never" "$tmp/mixed" 2>/dev/null
[ $? = 1 ] && [ ! -e "$tmp/never" ] && pass "nothing half-written with -o" || fail "-o after error"

# 8. `botwire drive --led/--sound` against the emulated Kobuki on a pty. The
# seed: General Purpose Output "0x0100 for red colour of LED1 0x0200 for green
# colour of LED1 0x0400 for red colour of LED2 0x0800 for green colour of
# LED2"; Sound Sequence "3 for BUTTON sound". The emulator's closing line
# says what it received and the LEDs' colours at the end.
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 60
"$bw" drive "kobuki:$tmp/kobuki" --led 1=green --sound 3 --for 0.5 >"$tmp/leds.out" 2>"$tmp/leds.err"
drove=$?
stop_emulator
said=$(tail -n 1 "$tmp/sim.err")
[ "$drove" = 0 ] && [ "$status" = 0 ] && pass "drive --led 1=green --sound 3 over a pty" ||
    fail "drive --led --sound: exit $drove, emulator $status: $(cat "$tmp/leds.err")"
echo "$said" | grep -Eq '; LEDs and outputs: [1-9][0-9]* commands?, LED1 green, LED2 off; sounds: 1($|;)' &&
    pass "the emulator saw LED1 green and one sound: $said" || fail "emulator's closing line: $said"
# The seed's sequences are 0..6 and its LEDs 1 and 2: anything else is one line
# that says what there is, exit 2, nothing on stdout; a base without LEDs or
# sound says so.
expect_error "drive --sound 7" 2 "no sound 7; its sounds are 0..6 (0 on, 1 off, 2 recharge, 3 button" \
    "$bw" drive sim:kobuki --fast --for 0.1 --sound 7
expect_error "drive --led 3=green" 2 "no LED 3; its LEDs are 1 and 2" \
    "$bw" drive sim:kobuki --fast --for 0.1 --led 3=green
expect_error "drive --led 1=blue" 2 "the colours are green, red, orange and off" \
    "$bw" drive sim:kobuki --fast --for 0.1 --led 1=blue
expect_error "drive --tone too long" 2 "255 ms" "$bw" drive sim:kobuki --fast --for 0.1 --tone 440:1
expect_error "drive --led on a P2OS" 2 "a p2os base has no LEDs" "$bw" drive sim:p2os --fast --for 0.1 --led 1=green
expect_error "drive --sound on a P2OS" 2 "a p2os base has no built-in sounds (it plays tones" \
    "$bw" drive sim:p2os --fast --for 0.1 --sound 1
"$bw" drive sim:p2os --fast --for 0.1 --tone 440:0.5 >/dev/null 2>"$tmp/tone.err" &&
    pass "drive --tone 440:0.5 on a P2OS (its piezo's SAY)" || fail "p2os --tone: $(cat "$tmp/tone.err")"
expect_error "drive --tone below a P2OS's notes" 2 "a p2os cannot play that; it plays tones of 8.7 Hz" \
    "$bw" drive sim:p2os --fast --for 0.1 --tone 5:1
expect_error "drive --sound on an RBSM" 2 "a rbsm base has no sound the host can play" \
    "$bw" drive sim:rbsm --fast --for 0.1 --sound 1
# Repeated: each LED ends as the last --led for it said (orange: red and
# green both); a tone is a sound.
rm -f "$tmp/announce"
start_emulator "botwire sim: kobuki on /dev/" kobuki --pty "$tmp/kobuki" --for 60
"$bw" drive "kobuki:$tmp/kobuki" --led 1=red --led 2=orange --led 1=off --led 2=red --led 1=orange \
    --tone 440:0.1 --for 0.3 >/dev/null 2>"$tmp/leds2.err"
drove=$?
stop_emulator
said=$(tail -n 1 "$tmp/sim.err")
[ "$drove" = 0 ] && echo "$said" | grep -q '; LEDs and outputs: 5 commands, LED1 orange, LED2 red; sounds: 1' &&
    pass "five --led and a --tone: $said" || fail "repeated --led: exit $drove, $said $(cat "$tmp/leds2.err")"
"$bw" drive --help | grep -q -- "--led N=COLOUR" && pass "drive --help: --led" || fail "drive --help has no --led"

# 7. Docking, in virtual time: from 2 m out and 60 degrees off the built-in
# room's dock (4.9, 3.0, facing -x), facing away, the Kobuki docks by its
# IR, the emulator's contacts say so; undocked, they say it is off; from
# behind a dock no IR reaches it: it says so, stopped, exit 1; a P2OS has no
# dock to find: not moved.
"$bw" dock "sim:kobuki?start=3.9,1.268,180" --fast >"$tmp/dock.out" 2>"$tmp/dock.err"
got=$?
[ "$got" = 0 ] && tail -n 1 "$tmp/dock.out" | grep -q '^{"docked":true,"why":"docked and charging after [0-9.]* s",.*"contacts":true}$' &&
    grep -q '"state":"across"' "$tmp/dock.out" && pass "dock: $(cat "$tmp/dock.err")" ||
    fail "dock: exit $got, $(tail -n 1 "$tmp/dock.out") $(cat "$tmp/dock.err")"
"$bw" dock "sim:kobuki?start=4.723,3,0" --fast --undock >"$tmp/undock.out" 2>"$tmp/undock.err"
got=$?
[ "$got" = 0 ] && grep -q '"undocked":true,.*"contacts":false}$' "$tmp/undock.out" &&
    pass "undock: $(cat "$tmp/undock.err")" || fail "undock: exit $got, $(cat "$tmp/undock.out" "$tmp/undock.err")"
printf 'size 6 5\ndock 3 2.5 0 kobuki\n' >"$tmp/behind.world"
expect_failure "dock from behind" 1 "not done: cannot see the dock" \
    "$bw" dock "sim:kobuki?world=$tmp/behind.world&start=2,2.5,0" --fast --for 30
grep -q '"docked":false,.*"contacts":false}$' "$tmp/out" && pass "from behind: the end line says not docked" ||
    fail "from behind: $(tail -n 1 "$tmp/out")"
expect_error "dock a P2OS" 1 "sim:p2os: a p2os base reports no dock botwire can find it by.*not moved" \
    "$bw" dock sim:p2os --fast
expect_error "dock --for -3" 2 "--for must be a number" "$bw" dock sim:kobuki --fast --for -3
expect_failure "undock off the dock" 1 "not done: not on a dock (its charger says it is not)" \
    "$bw" dock sim:kobuki --fast --undock

# A fleet that docks below a mark, in virtual time: every robot starts
# below it, so each goes to one of the two docks in turn; the line's
# figures add up (attempts: docked, failed or under way), each docking the
# driver reported was the emulator's truth, nobody ran flat.
"$bw" sim kobuki --robots 6 --fast --for 900 --wander --dock-below 95 --docks 2 --battery 90-92 \
    >"$tmp/fleet.out" 2>"$tmp/fleet.err"
got=$?
line=$(tail -n 1 "$tmp/fleet.out")
att=$(field dock_attempts "$line") dk=$(field docked "$line") fl=$(field dock_failed "$line")
open=$(field attempts_open "$line")
if [ "$got" = 0 ] && [ "$(field docks "$line")" = 2 ] && [ "$dk" -ge 2 ] &&
    [ "$att" = $((dk + fl + open)) ] && [ "$(field docked_untrue "$line")" = 0 ] &&
    [ "$(field flat "$line")" = 0 ] && grep -q "^botwire sim: 0.[0-9] h: .* charging, .* docked" "$tmp/fleet.err"; then
    pass "sim --dock-below: $att attempts, $dk docked, $fl failed, $open open"
else
    fail "sim --dock-below: exit $got, $line $(cat "$tmp/fleet.err")"
fi
expect_error "sim --dock-below a P2OS fleet" 1 "cannot dock: its protocol reports no dock" \
    "$bw" sim p2os --robots 6 --fast --for 10 --wander --dock-below 20
expect_error "sim --dock-below standing" 2 "goes with --wander" \
    "$bw" sim kobuki --robots 6 --fast --for 10 --dock-below 20
expect_error "sim --docks alone" 2 "--docks goes with --dock-below" \
    "$bw" sim kobuki --robots 6 --fast --for 10 --wander --docks 2
expect_error "sim --battery upside down" 2 "LO above HI" \
    "$bw" sim kobuki --robots 6 --fast --for 10 --wander --battery 90-20

# 8. Every command has --help.
for c in decode encode bench demo dock; do
    "$bw" "$c" --help >"$tmp/help" 2>&1 && grep -q "usage: botwire $c" "$tmp/help" &&
        pass "$c --help" || fail "$c --help"
done
"$bw" --help | grep -q "usage: botwire" && pass "botwire --help" || fail "botwire --help"

finish "Kobuki CLI"
