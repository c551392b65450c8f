#!/bin/sh
# Runs every libFuzzer harness for FUZZ_SECONDS (default 15) under ASan+UBSan,
# starting from the checked-in corpus. Builds build-check if needed. A crash
# leaves its input in build-check/fuzz-work/NAME/ and fails.
set -eu
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${FUZZ_SECONDS:-15}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ ! -f build-check/CMakeCache.txt ]; then
    cmake -S . -B build-check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
        -DBW_SANITIZE=ON -DBW_FUZZ=ON >/dev/null
fi
cmake --build build-check -j "$jobs" -- --no-print-directory >build-check/build.log 2>&1 || {
    cat build-check/build.log
    exit 1
}

echo "== fuzzing every parser for ${fuzz_seconds}s each (ASan + UBSan)"
found=0
for name in $(cat build-check/fuzzers.txt); do
    fuzzer=build-check/fuzz_$name
    [ -x "$fuzzer" ] || { echo "fuzz $name: not built" >&2; exit 1; }
    found=1
    work=build-check/fuzz-work/$name
    rm -rf "$work"
    mkdir -p "$work"
    cp fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
    printf 'fuzz %s: %s s from %s seed inputs ... ' "$name" "$fuzz_seconds" \
        "$(ls fuzz/corpus/"$name" 2>/dev/null | wc -l)"
    if "$fuzzer" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/" "$work" >"$work.log" 2>&1; then
        runs=$(grep -E '^#[0-9]+' "$work.log" | tail -n 1 | sed -E 's/^#([0-9]+).*cov: ([0-9]+).*/\1 runs, coverage \2/')
        echo "ok, $runs"
    else
        echo "FAILED (log: $work.log; crashing input in $work/)"
        tail -n 40 "$work.log"
        exit 1
    fi
done
[ "$found" = 1 ] || { echo "fuzz: no harness was built" >&2; exit 1; }
