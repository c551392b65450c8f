#!/bin/sh
# The base firmwares' sizes, stack and longest period, measured in the
# simulated chip (scripts/firmware-sizes.sh --base), are within their
# budgets and are the figures docs/firmware.md gives.
# usage: base_sizes.sh SOURCE_DIR BOTWIRE_AVR FIRMWARE.elf...
set -u
src=$1 avr=$2
shift 2
. "$(dirname "$0")/../testlib.sh"

sh "$src/scripts/firmware-sizes.sh" --base "$avr" "$@" >"$tmp/table" 2>"$tmp/err"
status=$?
sed 's/^/  /' "$tmp/table"
[ "$status" = 0 ] && [ ! -s "$tmp/err" ] && pass "every base firmware within its budgets" ||
    fail "firmware-sizes.sh --base: status $status, $(cat "$tmp/err")"
rows=0
while IFS= read -r row; do
    case $row in "| base-"*) ;; *) continue ;; esac
    rows=$((rows + 1))
    grep -qxF -- "$row" "$src/docs/firmware.md" && pass "docs/firmware.md: $row" ||
        fail "docs/firmware.md has no row \"$row\" (measured)"
done <"$tmp/table"
[ "$rows" = $# ] || fail "$rows rows for $# firmwares"
finish "base firmware sizes"
