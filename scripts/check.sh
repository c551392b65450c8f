#!/bin/sh
# `make check`: every test under two builds, then a short fuzz of every parser.
#  0. what every part needs is there (scripts/parts.sh), or SKIP names it;
#  1. gcc, release, warnings as errors: unit, CLI, install and regression tests;
#  2. clang with AddressSanitizer + UndefinedBehaviorSanitizer: the same tests;
#  3. each libFuzzer harness for FUZZ_SECONDS (default 15) under ASan + UBSan.
# The last lines say how many passed and failed, each failed test with the
# line that failed it, and what SKIP left out.
#
# STRESS=N (`make check-stress`) is the flake hunt: it builds the same two
# builds, then runs their real-time tests (ctest label `realtime`: real
# processes, ptys, TCP, simavr, DDS) N times in a row in the release build
# and STRESS_CHECK times (default N) in the sanitizer build, as make check
# runs them (ctest -j nproc), while a busy loop at nice 10 keeps every core
# busy, as on a shared CI runner. STRESS_TESTS=REGEX runs only the tests it
# matches. It prints, per test, its runs and failures with each failure's
# line; no fuzz.
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

# results LOG: "NUMBER NAME RESULT" for each test of a ctest log, RESULT
# Passed, Failed, Timeout, Exception (a crash) or NotRun.
results() {
    # "  3/21 Test  #54: test_link ....***Failed   21.06 sec"
    awk '/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
        n = $3; sub("#", "", n); sub(":", "", n)
        r = "Failed"
        if ($0 ~ /\.\.\. *Passed/) r = "Passed"
        else if ($0 ~ /Timeout/) r = "Timeout"
        else if ($0 ~ /Not Run/) r = "NotRun"
        else if ($0 ~ /Exception/) r = "Exception"
        print n, $4, r
    }' "$1"
}
# failing_line LOG NUMBER RESULT: the one line that says why test NUMBER of
# a ctest -V log failed: a shell test's first "FAIL:", a sanitizer's report,
# cmocka's failed check (with its file and line), pytest's "E" line; else
# the last line it printed. A test that timed out says so first.
failing_line() {
    sed -n "s/^ *$2: //p" "$1" | awk -v result="$3" '
        function keep(l) { if (why == "") why = l }
        /^FAIL: /                                       { keep($0) }
        /runtime error:|ERROR: (Address|Leak)Sanitizer/ { keep($0) }
        /^\[   LINE   \] --- /                          { sub(/^\[   LINE   \] --- /, ""); keep($0 (err != "" ? ": " err : "")) }
        /^\[  ERROR   \] --- /                          { err = $0; sub(/^\[  ERROR   \] --- /, "", err) }
        /^E   /                                         { keep($0) }
        /^Traceback|^Assertion|Segmentation fault|Aborted/ { keep($0) }
        NF && !/^(Test command|Working Directory|Test timeout|Environment variables):/ { last = $0 }
        END {
            if (why == "") why = (last == "" ? "(no output)" : last)
            if (result == "Timeout") why = "timed out; " why
            gsub(/[[:space:]]+/, " ", why)
            print substr(why, 1, 300)
        }'
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
# Each failed test, its build and the line that failed it, for the end.
failed_lines=build/failed-lines.txt
: >"$failed_lines"
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
        echo "ctest ($2): did not finish; $(tail -n 1 "$log")" >>"$failed_lines"
        return
    fi
    passed=$((passed + total - bad))
    failed=$((failed + bad))
    [ "$bad" = 0 ] && return
    echo "---- failures (full log: $log) ----"
    results "$log" | awk '$3 != "Passed"' >"$dir/failed.txt"
    while read -r n name result; do
        echo "-- $name:"
        sed -n "s/^ *$n: //p" "$log" | tail -n 60
        echo "$name ($2): $(failing_line "$log" "$n" "$result")" >>"$failed_lines"
    done <"$dir/failed.txt"
    names=$(cut -d' ' -f2 "$dir/failed.txt" | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
    failures="$failures${failures:+, }$names ($2)"
}

build() {
    dir=$1
    shift
    set -- -DBW_PYTHON="$(on python)" "$@"
    sh scripts/own-build.sh "$dir"
    cmake -S . -B "$dir" --no-warn-unused-cli -DBW_FIRMWARE="$(on firmware)" -DBW_ROS="$(on ros)" -DBW_ROS2="$(on ros2)" \
        -DBW_VIEW="$(on view)" "$@" \
        >/dev/null
    cmake --build "$dir" -j "$jobs" -- --no-print-directory >"$dir/build.log" 2>&1 || {
        cat "$dir/build.log"
        echo "make check: $passed passed, $failed failed; the build in $dir failed (above)$(left_line)"
        exit 1
    }
}

# stress DIR LABEL RUNS: the real-time tests of a build, RUNS times under
# load. A failed run's log is kept in DIR/stress-RUN.log; each failure's
# line is shown as it happens and again in the table at the end.
stress() {
    dir=$1 label=$2 runs=$3
    hogs=""
    for _ in $(seq "$jobs"); do
        nice -n 10 sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
    # shellcheck disable=SC2086 # the pids, one word each
    trap 'kill $hogs 2>/dev/null' EXIT INT TERM
    : >"$dir/stress-results.txt"
    run=1
    while [ "$run" -le "$runs" ]; do
        log=$dir/stress-$run.log
        # shellcheck disable=SC2086 # the optional -R REGEX
        ctest --test-dir "$dir" -L realtime $only -j "$jobs" -V >"$log" 2>&1 || true
        results "$log" >"$dir/stress-run.txt"
        awk '$3 != "Passed"' "$dir/stress-run.txt" >"$dir/stress-bad.txt"
        bad=$(grep -c . "$dir/stress-bad.txt" || true)
        echo "  run $run of $runs: $(grep -c . "$dir/stress-run.txt") tests, $bad failed$(
            [ "$bad" = 0 ] || echo " (log: $log)")"
        while read -r n name result; do
            why=$(failing_line "$log" "$n" "$result")
            echo "    $name: $why"
            # name, run, result, line: for the table
            printf '%s\t%s\t%s\t%s\n' "$name" "$run" "$result" "$why" >>"$dir/stress-results.txt"
        done <"$dir/stress-bad.txt"
        awk -v r="$run" '$3 == "Passed" { printf "%s\t%s\tPassed\t\n", $2, r }' "$dir/stress-run.txt" \
            >>"$dir/stress-results.txt"
        [ "$bad" = 0 ] && rm -f "$log"
        run=$((run + 1))
    done
    # shellcheck disable=SC2086
    kill $hogs 2>/dev/null
    trap - EXIT INT TERM
    echo "  test                         runs  failed  (the line of each failure)"
    awk -F '\t' '
        NF >= 3 {
            if (!($1 in n)) order[++k] = $1
            n[$1]++
            if ($3 != "Passed") { bad[$1]++; why[$1] = why[$1] sprintf("\n      run %s: %s", $2, $4) }
        }
        END {
            for (i = 1; i <= k; i++) {
                t = order[i]
                printf "  %-28s %4d  %6d%s\n", t, n[t], bad[t] + 0, why[t]
            }
        }' "$dir/stress-results.txt"
    bad=$(awk -F '\t' 'NF >= 3 && $3 != "Passed"' "$dir/stress-results.txt" | wc -l)
    ran=$(awk -F '\t' 'NF >= 3' "$dir/stress-results.txt" | wc -l)
    passed=$((passed + ran - bad))
    failed=$((failed + bad))
    awk -F '\t' -v b="$label" 'NF >= 3 && $3 != "Passed" { printf "%s (%s, run %s): %s\n", $1, b, $2, $4 }' \
        "$dir/stress-results.txt" >>"$failed_lines"
    [ "$bad" = 0 ] || failures="$failures${failures:+, }$(awk -F '\t' 'NF >= 3 && $3 != "Passed" { print $1 }' \
        "$dir/stress-results.txt" | sort | uniq -c | awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }') ($label)"
}

stress=${STRESS:-}
stress_check=${STRESS_CHECK:-$stress}
if [ -n "$stress" ]; then
    for n in "$stress" "$stress_check"; do
        case $n in
        '' | *[!0-9]*)
            echo "make check: STRESS and STRESS_CHECK want a number of runs, not \"$n\""
            exit 2
            ;;
        esac
    done
fi
[ "$stress" != 0 ] || stress=
only=
[ -z "${STRESS_TESTS:-}" ] || only="-R $STRESS_TESTS"
# run_or_stress DIR LABEL RUNS
run_or_stress() {
    if [ -n "$stress" ]; then
        if [ "$3" = 0 ]; then
            echo "== the real-time tests of $2: not run (0 runs asked)"
            return
        fi
        echo "== the real-time tests of $2${only:+ matching ${STRESS_TESTS}}, $3 run$([ "$3" = 1 ] || echo s), every core kept busy at nice 10"
        stress "$1" "$2" "$3"
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
run_or_stress build "build 1" "$stress"

echo "== build 2/2: clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer"
build build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DBW_SANITIZE=ON -DBW_FUZZ=ON
run_or_stress build-check "build 2" "$stress_check"

if [ "$(on fuzz)" = ON ] && [ -z "$stress" ]; then
    if FUZZ_SECONDS=$fuzz_seconds sh scripts/fuzz.sh; then
        passed=$((passed + $(grep -c . build-check/fuzzers.txt)))
    else
        failed=$((failed + 1))
        failures="$failures${failures:+, }fuzzing"
        echo "fuzzing: scripts/fuzz.sh failed (above)" >>"$failed_lines"
    fi
fi

what="make check"
[ -z "$stress" ] || what="make check (STRESS=$stress, STRESS_CHECK=$stress_check: test runs)"
if [ "$failed" = 0 ]; then
    echo "$what: $passed passed, 0 failed$(left_line)"
else
    echo "== what failed, and the line that failed it (each test's output is above)"
    sed 's/^/  /' "$failed_lines"
    echo "$what: $passed passed, $failed failed: $failures$(left_line)"
    exit 1
fi
