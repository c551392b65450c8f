#!/bin/sh
# `make check`: every test under two builds, then a short fuzz of every parser.
#  0. what every part needs is there (scripts/parts.sh), or SKIP names it;
#  1. gcc, release, warnings as errors: unit, CLI, install and regression tests;
#  2. clang with AddressSanitizer + UndefinedBehaviorSanitizer: the same tests;
#  3. each libFuzzer harness for FUZZ_SECONDS (default 15) under ASan + UBSan.
# The last line says how many passed and failed, and what SKIP left out.
set -eu
cd "$(dirname "$0")/.."
. scripts/parts.sh
skip=${SKIP:-}
parts_check_skip "$skip"
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${FUZZ_SECONDS:-15}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

on() { if part_skipped "$1" "$skip"; then echo OFF; else echo ON; fi; }
left=""
for part in $parts_optional; do
    [ "$(on "$part")" = ON ] || left="$left${left:+, }$part"
done
left_line() { [ -z "$left" ] || echo "; left out by request (SKIP): $left"; }

# 0. A part that cannot run is a failure, with what is missing and the fix.
absent=0
mkdir -p build
for part in core $parts_optional; do
    [ "$part" = core ] || [ "$(on "$part")" = ON ] || continue
    part_missing "$part" >build/missing.txt
    while read -r line; do
        if [ "$part" = core ]; then
            echo "make check: cannot run: $line; make deps installs it"
        else
            echo "make check: the $part tests cannot run: $line; make deps installs it, or" \
                "make check SKIP=$part leaves them out"
        fi
        absent=1
    done <build/missing.txt
done
rm -f build/missing.txt
[ "$absent" = 0 ] || {
    echo "make check: 0 passed, not run: what the tests need is missing (above)"
    exit 1
}

# Prints every test ctest ran with its result and time (and, for the cmocka
# programs, how many test cases passed), then the tests this build does not
# run and why.
summary() {
    awk '
        /^ *[0-9]+: \[  PASSED  \] [0-9]+ test/ { n = $1; sub(":", "", n); cases[n] = $5 " cases" }
        /^ *[0-9]+: ok: / { n = $1; sub(":", "", n); checks[n]++; cases[n] = checks[n] " checks" }
        /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
            n = $3; sub("#", "", n); sub(":", "", n); name = $4
            result = $0; sub(/^.*\.+ */, "", result); sub(/ +[0-9.]+ sec.*$/, "", result)
            t = $0; if (match(t, /[0-9.]+ sec/)) t = substr(t, RSTART, RLENGTH - 4); else t = "?"
            line[n] = sprintf("  %-28s %-8s %7s s%s", name, result, t,
                              (n in cases) ? sprintf("  (%s)", cases[n]) : "")
            order[++k] = n
        }
        /tests passed|tests failed/ { total = $0 }
        END {
            for (i = 1; i <= k; i++) print line[order[i]]
            print "  " total
        }
    ' "$1"
    notes=$(dirname "$1")/left-out-tests.txt
    if [ -s "$notes" ]; then
        sed 's/^/  not run in this build: /' "$notes"
    fi
}

passed=0
failed=0
failures=""
# run_tests DIR LABEL: runs the build's tests; a failing test's own output
# is shown from the log of that one run (a test is never run again).
run_tests() {
    dir=$1
    log=$dir/check.log
    ctest --test-dir "$dir" -j "$jobs" --output-on-failure -V >"$log" 2>&1 || true
    summary "$log"
    total=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | tail -n 1)
    bad=$(sed -n 's/.*, \([0-9]*\) tests failed out of [0-9]*$/\1/p' "$log" | tail -n 1)
    if [ -z "$total" ]; then
        echo "---- ctest did not finish (full log: $log) ----"
        tail -n 40 "$log"
        failed=$((failed + 1))
        failures="$failures${failures:+, }ctest ($2)"
        return
    fi
    passed=$((passed + total - bad))
    failed=$((failed + bad))
    [ "$bad" = 0 ] && return
    echo "---- failures (full log: $log) ----"
    # ctest's closing list: "<TAB> 20 - lobot_realtime (Failed)"
    awk '/^The following tests FAILED:/ { f = 1; next }
         f && /^[[:space:]]+[0-9]+ - / { print $1, $3 }' "$log" >"$dir/failed.txt"
    while read -r n name; do
        echo "-- $name:"
        sed -n "s/^ *$n: //p" "$log" | tail -n 60
    done <"$dir/failed.txt"
    names=$(cut -d' ' -f2 "$dir/failed.txt" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
    failures="$failures${failures:+, }$names ($2)"
}

build() {
    dir=$1
    shift
    set -- -DBW_PYTHON="$(on python)" "$@"
    cmake -S . -B "$dir" --no-warn-unused-cli -DBW_FIRMWARE="$(on firmware)" -DBW_ROS="$(on ros)" \
        -DBW_VIEW="$(on view)" "$@" \
        >/dev/null
    cmake --build "$dir" -j "$jobs" -- --no-print-directory >"$dir/build.log" 2>&1 || {
        cat "$dir/build.log"
        echo "make check: $passed passed, $failed failed; the build in $dir failed (above)$(left_line)"
        exit 1
    }
}

echo "== build 1/2: gcc, release, -Werror"
build build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${BW_CC:-gcc}"
if [ "$(on firmware)" = ON ]; then
    echo "== firmware: each family's device-side codec, flash and RAM (scripts/firmware-sizes.sh)"
    sed 's/^/  /' build/firmware/size/table.txt
fi
run_tests build "build 1"

echo "== build 2/2: clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer"
build build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DBW_SANITIZE=ON -DBW_FUZZ=ON
run_tests build-check "build 2"

if [ "$(on fuzz)" = ON ]; then
    if FUZZ_SECONDS=$fuzz_seconds sh scripts/fuzz.sh; then
        passed=$((passed + $(grep -c . build-check/fuzzers.txt)))
    else
        failed=$((failed + 1))
        failures="$failures${failures:+, }fuzzing"
    fi
fi

if [ "$failed" = 0 ]; then
    echo "make check: $passed passed, 0 failed$(left_line)"
else
    echo "make check: $passed passed, $failed failed: $failures$(left_line)"
    exit 1
fi
