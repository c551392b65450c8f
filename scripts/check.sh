#!/bin/sh
# `make check`: every test under two builds, then a short fuzz of every parser.
#  1. gcc, release, warnings as errors: unit, CLI, install and regression tests;
#  2. clang with AddressSanitizer + UndefinedBehaviorSanitizer: the same tests;
#  3. each libFuzzer harness for FUZZ_SECONDS (default 15) under ASan + UBSan.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${FUZZ_SECONDS:-15}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Prints every test ctest ran with its result and time (and, for the cmocka
# programs, how many test cases passed), then the tests this build left out
# and why.
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
    left=$(dirname "$1")/left-out-tests.txt
    if [ -s "$left" ]; then
        sed 's/^/  left out: /' "$left"
    fi
}

run_tests() {
    dir=$1
    log=$dir/check.log
    if ctest --test-dir "$dir" -j "$jobs" --output-on-failure -V >"$log" 2>&1; then
        summary "$log"
    else
        summary "$log"
        echo "---- failures (full log: $log) ----"
        ctest --test-dir "$dir" --rerun-failed --output-on-failure 2>&1 | tail -n 80
        exit 1
    fi
}

echo "== build 1/2: gcc, release, -Werror"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${BW_CC:-gcc}" \
    -DBW_FIRMWARE=ON -DBW_ROS=ON >/dev/null
cmake --build build -j "$jobs" -- --no-print-directory >build/build.log 2>&1 || {
    cat build/build.log
    exit 1
}
echo "== firmware: each family's device-side codec, flash and RAM (scripts/firmware-sizes.sh)"
sed 's/^/  /' build/firmware/size/table.txt
run_tests build

echo "== build 2/2: clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer"
cmake -S . -B build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DBW_SANITIZE=ON -DBW_FUZZ=ON -DBW_FIRMWARE=ON -DBW_ROS=ON >/dev/null
cmake --build build-check -j "$jobs" -- --no-print-directory >build-check/build.log 2>&1 || {
    cat build-check/build.log
    exit 1
}
run_tests build-check

FUZZ_SECONDS=$fuzz_seconds sh scripts/fuzz.sh
echo "== make check: all passed"
