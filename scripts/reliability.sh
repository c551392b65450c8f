#!/bin/sh
# The bad-cable table of docs/reliability.md, in real time over real ptys:
# for each family and bit error rate, `botwire sim F --pty L --ber X --seed S`
# in one process and `botwire drive F:L --square 1` (rbsm: --v 2 --w 0.2
# --for 6 after a push to 2 m/s) in another; the driver's final odometry
# against the emulator's true pose when it stops, the events the drive
# reported, and what the link rejected and set aside.
# usage: scripts/reliability.sh [BOTWIRE] [FAMILY...]   (about 1 minute per run)
set -u
bw=${1:-build/botwire}
[ $# -gt 0 ] && shift
families=${*:-kobuki p2os lobot create rflex rbsm}
bers=${BERS:-1e-4 1e-3}
seed=${SEED:-7}
tmp=$(mktemp -d)
trap 'kill $sim 2>/dev/null; rm -rf "$tmp"' EXIT
sim=

printf '%-7s %-6s %-9s %-22s %-9s %-9s %s\n' family ber completed "odometry vs truth" rejected implaus. "events (beyond online)"
for fam in $families; do
    extra=
    [ "$fam" = rbsm ] && extra="--push 2"
    # Where the robot starts: an emulator stopped at once says.
    start=$("$bw" sim "$fam" $extra --for 0.01 2>&1 | sed -n 's/.*robot at (\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\) deg).*/\1 \2 \3/p')
    for ber in $bers; do
        mkfifo "$tmp/said"
        # shellcheck disable=SC2086
        "$bw" sim "$fam" $extra --pty "$tmp/link" --ber "$ber" --seed "$seed" --for 300 \
            >"$tmp/said" 2>"$tmp/sim.err" &
        sim=$!
        read -r _ <"$tmp/said"
        rm -f "$tmp/said"
        if [ "$fam" = rbsm ]; then
            "$bw" drive "rbsm:$tmp/link" --v 2 --w 0.2 --for 6 >"$tmp/drive.out" 2>"$tmp/drive.err"
        else
            "$bw" drive "$fam:$tmp/link" --square 1 >"$tmp/drive.out" 2>"$tmp/drive.err"
        fi
        status=$?
        kill -INT "$sim"
        wait "$sim"
        sim=
        truth=$(sed -n 's/.*robot at (\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\) deg).*/\1 \2 \3/p' "$tmp/sim.err" | tail -n 1)
        last=$(grep '"online"' "$tmp/drive.out" | tail -n 1)
        num() { echo "$last" | sed -n "s/.*\"$1\":\(-\{0,1\}[0-9.e+-]*\).*/\1/p"; }
        done_=$([ "$status" = 0 ] && echo yes || echo "no ($status)")
        [ "$fam" = rbsm ] && done_="-"
        events=$(grep '"event"' "$tmp/drive.out" | grep -v '"event":"online"\|"event":"corner"' |
            sed -n 's/.*"event":"\([a-z_]*\)","on":\([a-z]*\).*/\1:\2/p' | sort | uniq -c |
            awk '{ printf "%s%s x%s", n++ ? ", " : "", $2, $1 }')
        err=$(awk -v s="$start" -v t="$truth" -v x="$(num x)" -v y="$(num y)" -v th="$(num theta)" 'BEGIN {
            split(s, a, " "); split(t, b, " "); r = a[3] * 3.14159265358979 / 180
            # odometry starts at 0 facing along the robot: into the world
            wx = a[1] + x * cos(r) - y * sin(r); wy = a[2] + x * sin(r) + y * cos(r)
            dh = th * 180 / 3.14159265358979 + a[3] - b[3]
            while (dh > 180) dh -= 360; while (dh < -180) dh += 360
            printf "%.1f cm, %.1f deg", sqrt((wx - b[1])^2 + (wy - b[2])^2) * 100, dh < 0 ? -dh : dh }')
        printf '%-7s %-6s %-9s %-22s %-9s %-9s %s\n' "$fam" "$ber" "$done_" "$err" "$(num rejected)" \
            "$(num implausible)" "${events:-none}"
    done
done
