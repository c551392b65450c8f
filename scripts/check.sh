#!/bin/sh
# `make check`: every test under two builds, then a short fuzz of every parser.
#  0. what every part needs is there (scripts/parts.sh), or SKIP names it;
#  1. gcc, release, warnings as errors: unit, CLI, install and regression tests;
#  2. clang with AddressSanitizer + UndefinedBehaviorSanitizer: the same tests;
#  3. each libFuzzer harness for FUZZ_SECONDS (default 15) under ASan + UBSan.
# The last line says how many passed and failed, and what SKIP left out.
#
# STRESS=N (`make check-stress`: N=5) builds the same two builds, then runs
# their real-time tests (ctest label `realtime`: real processes, ptys, TCP,
# simavr) N times in a row, as make check runs them (ctest -j nproc), while a
# busy loop at nice 10 keeps every core busy, as on a shared CI runner. It
# prints each test's pass count and the output of every failed run; no fuzz.
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
    cmake -S . -B "$dir" --no-warn-unused-cli -DBW_FIRMWARE="$(on firmware)" -DBW_ROS="$(on ros)" -DBW_ROS2="$(on ros2)" \
        -DBW_VIEW="$(on view)" "$@" \
        >/dev/null
    cmake --build "$dir" -j "$jobs" -- --no-print-directory >"$dir/build.log" 2>&1 || {
        cat "$dir/build.log"
        echo "make check: $passed passed, $failed failed; the build in $dir failed (above)$(left_line)"
        exit 1
    }
}

# stress DIR LABEL: the real-time tests of a build, $stress times under load.
# A failed run's output is kept in DIR/stress-RUN.log and shown.
stress() {
    dir=$1
    hogs=""
    for _ in $(seq "$jobs"); do
        nice -n 10 sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
    # shellcheck disable=SC2086 # the pids, one word each
    trap 'kill $hogs 2>/dev/null' EXIT INT TERM
    : >"$dir/stress-results.txt"
    run=1
    while [ "$run" -le "$stress" ]; do
        log=$dir/stress-$run.log
        ctest --test-dir "$dir" -L realtime -j "$jobs" --output-on-failure >"$log" 2>&1 || true
        # "  3/21 Test  #54: test_link ....***Failed   21.06 sec"
        sed -n 's/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*\.\.\. *\(Passed\).*/\1 \2/p
                s/^ *[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*\(\*\*\*.*\|Not Run\|Exception\).*/\1 failed/p' \
            "$log" >"$dir/stress-run.txt"
        bad=$(grep -c ' failed$' "$dir/stress-run.txt" || true)
        echo "  run $run of $stress: $(grep -c . "$dir/stress-run.txt") tests, $bad failed$(
            [ "$bad" = 0 ] || echo ": $(grep ' failed$' "$dir/stress-run.txt" | cut -d' ' -f1 | tr '\n' ' ')(log: $log)")"
        if [ "$bad" = 0 ]; then
            rm -f "$log"
        else
            # each failed test's own output (ctest prints it after its line)
            awk '/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { show = ($0 !~ /Passed/) }
                 /^ *Start +[0-9]+: / { show = 0 }
                 show { print "    " $0 }' "$log" | tail -n 80
        fi
        cat "$dir/stress-run.txt" >>"$dir/stress-results.txt"
        run=$((run + 1))
    done
    # shellcheck disable=SC2086
    kill $hogs 2>/dev/null
    trap - EXIT INT TERM
    awk -v runs="$stress" '
        { n[$1]++; if ($2 == "Passed") ok[$1]++; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
        END {
            for (i = 1; i <= k; i++) {
                t = order[i]
                printf "  %-28s %d of %d passed%s\n", t, ok[t] + 0, runs, (ok[t] + 0 < runs) ? "  <--" : ""
            }
        }' "$dir/stress-results.txt"
    bad=$(awk '$2 != "Passed"' "$dir/stress-results.txt" | wc -l)
    ran=$(grep -c . "$dir/stress-results.txt" || true)
    passed=$((passed + ran - bad))
    failed=$((failed + bad))
    [ "$bad" = 0 ] || failures="$failures${failures:+, }$(awk '$2 != "Passed" { print $1 }' \
        "$dir/stress-results.txt" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }') ($2)"
}

stress=${STRESS:-}
case $stress in
'' | 0) stress= ;;
*[!0-9]*)
    echo "make check: STRESS wants a number of runs, not \"$stress\""
    exit 2
    ;;
esac
# run_or_stress DIR LABEL
run_or_stress() {
    if [ -n "$stress" ]; then
        echo "== the real-time tests of $2, $stress runs, every core kept busy at nice 10"
        stress "$1" "$2"
    else
        run_tests "$1" "$2"
    fi
}

echo "== build 1/2: gcc, release, -Werror"
build build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${BW_CC:-gcc}"
if [ "$(on firmware)" = ON ]; then
    echo "== firmware: each family's device-side codec, flash and RAM (scripts/firmware-sizes.sh)"
    sed 's/^/  /' build/firmware/size/table.txt
fi
run_or_stress build "build 1"

echo "== build 2/2: clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer"
build build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DBW_SANITIZE=ON -DBW_FUZZ=ON
run_or_stress build-check "build 2"

if [ "$(on fuzz)" = ON ] && [ -z "$stress" ]; then
    if FUZZ_SECONDS=$fuzz_seconds sh scripts/fuzz.sh; then
        passed=$((passed + $(grep -c . build-check/fuzzers.txt)))
    else
        failed=$((failed + 1))
        failures="$failures${failures:+, }fuzzing"
    fi
fi

what="make check"
[ -z "$stress" ] || what="make check (STRESS=$stress: test runs)"
if [ "$failed" = 0 ]; then
    echo "$what: $passed passed, 0 failed$(left_line)"
else
    echo "$what: $passed passed, $failed failed: $failures$(left_line)"
    exit 1
fi
