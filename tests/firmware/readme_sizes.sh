#!/bin/sh
# docs/firmware.md's size table is the one this build measured
# (scripts/firmware-sizes.sh, run by the build).
# usage: readme_sizes.sh README SIZES_TXT
set -u
readme=$1 sizes=$2
. "$(dirname "$0")/../testlib.sh"

[ -s "$sizes" ] || { fail "no size table at $sizes (the build did not pass the budget?)"; finish "README sizes"; }
for fam in $(cut -d' ' -f1 "$sizes" | uniq); do
    want=$(awk -v f="$fam" '$1 == f { printf " %s / %s |", $3, $4 }' "$sizes")
    row="| $fam |$want"
    if grep -qF -- "$row" "$readme"; then
        pass "README: $row"
    else
        fail "README has no row \"$row\" (measured); it says: $(grep -F "| $fam |" "$readme" | head -n 1)"
    fi
done
finish "README sizes"
