#!/bin/sh
# `make mutants`: plausible mistakes, one at a time, each of which the tests
# of the code it lives in must catch. A scratch copy of the tree is built
# once; each mutant is a sed expression applied to one file of the copy,
# rebuilt incrementally, the tests that cover that code run, and the file
# restored. It prints each mutant as killed or SURVIVED, and the score.
# A mutant that does not apply (its text is gone) or does not build is an
# error of this list, not a kill.
#
# usage: tests/mutants.sh [NAME-REGEX]   (make mutants MUTANT=REGEX; MUTANT_JOBS, default 2)
#
# Survivors that change nothing a robot or a user could see are listed
# with `equivalent` and the reason; they are not counted.
set -u
cd "$(dirname "$0")/.."
top=$PWD
only=${1:-.}
jobs=${MUTANT_JOBS:-2}
scratch=$(mktemp -d /tmp/botwire-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

echo "== mutants: a scratch copy in $scratch, built once"
git ls-files -z | (cd "$top" && xargs -0 tar cf -) | tar xf - -C "$scratch"
cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DBW_FIRMWARE=OFF -DBW_ROS=OFF \
    >"$scratch/cmake.log" 2>&1 &&
    cmake --build "$scratch/build" -j "$jobs" >"$scratch/build.log" 2>&1 || {
    tail -n 30 "$scratch/build.log"
    echo "mutants: the unmutated tree does not build"
    exit 1
}

killed=0 survived=0 broken=0 equivalents=0
survivors=""

# mutant NAME FILE TESTS SED: applies SED to FILE, rebuilds, runs the ctest
# tests whose names match the regex TESTS; killed if any fails.
mutant() {
    name=$1 file=$2 tests=$3 expr=$4
    echo "$name" | grep -Eq -e "$only" || return
    f=$scratch/$file
    cp "$f" "$scratch/orig"
    sed -i "$expr" "$f"
    if cmp -s "$f" "$scratch/orig"; then
        printf '%-44s BROKEN (the expression changes nothing in %s)\n' "$name" "$file"
        broken=$((broken + 1))
        return
    fi
    if ! cmake --build "$scratch/build" -j "$jobs" >"$scratch/mbuild.log" 2>&1; then
        printf '%-44s BROKEN (does not build)\n' "$name"
        broken=$((broken + 1))
    elif ctest --test-dir "$scratch/build" -R "$tests" -j "$jobs" --timeout 180 \
        >"$scratch/mtest.log" 2>&1; then
        n=$(sed -n 's/.*tests failed out of \([0-9]*\)/\1/p' "$scratch/mtest.log")
        printf '%-44s SURVIVED (%s tests: %s)\n' "$name" "${n:-no}" "$tests"
        survived=$((survived + 1))
        survivors="$survivors $name"
    else
        who=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) .*/\1/p' "$scratch/mtest.log" | tr '\n' ' ')
        printf '%-44s killed by %s\n' "$name" "$who"
        killed=$((killed + 1))
    fi
    cp "$scratch/orig" "$f"
}

# equivalent NAME REASON: a mutant left out, and why it changes nothing.
equivalent() {
    echo "$1" | grep -Eq -e "$only" || return
    printf '%-44s equivalent: %s\n' "$1" "$2"
    equivalents=$((equivalents + 1))
}

. "$top/tests/mutants.list"

total=$((killed + survived))
echo "mutants: $killed killed, $survived survived, $broken broken, $equivalents equivalent (not run)"
if [ "$total" -gt 0 ]; then
    echo "mutants: score $(awk -v k="$killed" -v t="$total" 'BEGIN { printf "%.1f", 100 * k / t }') %${survivors:+; survivors:$survivors}"
fi
[ "$survived" = 0 ] && [ "$broken" = 0 ]
