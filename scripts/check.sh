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

# Prints each test program's cmocka summary under its name, then ctest's.
summary() {
    awk '
        /^ *Start +[0-9]+: / { n = $2; sub(":", "", n); name[n] = $3 }
        /^[0-9]+: \[  (PASSED|FAILED)  \]/ { n = $1; sub(":", "", n); $1 = ""; printf "  %-26s%s\n", name[n], $0 }
        /tests passed|tests failed/ { print "  " $0 }
    ' "$1"
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
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="${BW_CC:-gcc}" >/dev/null
cmake --build build -j "$jobs" -- --no-print-directory >build/build.log 2>&1 || {
    cat build/build.log
    exit 1
}
run_tests build

echo "== build 2/2: clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer"
cmake -S . -B build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DBW_SANITIZE=ON -DBW_FUZZ=ON >/dev/null
cmake --build build-check -j "$jobs" -- --no-print-directory >build-check/build.log 2>&1 || {
    cat build-check/build.log
    exit 1
}
run_tests build-check

FUZZ_SECONDS=$fuzz_seconds sh scripts/fuzz.sh
echo "== make check: all passed"
