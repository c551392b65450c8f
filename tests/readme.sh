#!/bin/sh
# Every example of the README runs as written, after the two commands: each
# ```sh block runs as a script from a scratch directory where `build` is the
# build (so `export PATH="$PWD/build:$PATH"` finds the tool), and each
# `$ command` line of a transcript prints exactly the lines under it. Lines
# that need something the test cannot give say so in their comment and are
# listed as not run: `make ...` (the test runs inside make check) and lines
# marked "after make install".
# usage: readme.sh README BUILD_DIR
set -u
readme=$1
build=$(cd "$2" && pwd)
. "$(dirname "$0")/testlib.sh"
ln -s "$build" "$tmp/build"

# Splits the README into blocks: $tmp/block.N (commands) and $tmp/trans.N
# (transcripts), in order.
awk -v dir="$tmp" '
    /^```sh$/ { n++; inb = 1; kind = ""; body = ""; next }
    inb && /^```$/ {
        inb = 0
        f = dir "/" (kind == "t" ? "trans." : "block.") n
        printf "%s", body > f
        close(f)
        next
    }
    inb { if ($0 ~ /^\$ /) kind = "t"; body = body $0 "\n" }
' "$readme"

pids=""
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null; }

for f in "$tmp"/block.*; do
    [ -e "$f" ] || continue
    : >"$tmp/script"
    while IFS= read -r line; do
        case $line in
        make\ * | *"after make install"*)
            echo "not run: $line" ;;
        *) printf '%s\n' "$line" >>"$tmp/script" ;;
        esac
    done <"$f"
    [ -s "$tmp/script" ] || continue
    n=$(grep -c . "$tmp/script")
    (cd "$tmp" && sh -e "$tmp/script") >"$tmp/out" 2>"$tmp/err"
    status=$?
    pids="$pids $(sed -n 's/.*(pid \([0-9]*\))$/\1/p' "$tmp/out" | tr '\n' ' ')"
    if [ "$status" = 0 ]; then
        pass "README block $(basename "$f" | cut -d. -f2): $n commands ran"
    else
        fail "README block $(basename "$f" | cut -d. -f2): exit $status; $(tail -n 3 "$tmp/err")"
        sed 's/^/    /' "$tmp/script"
    fi
done

for f in "$tmp"/trans.*; do
    [ -e "$f" ] || continue
    # "$ cmd" lines, each followed by what it prints.
    awk -v dir="$tmp" '
        /^\$ / { k++; c = dir "/cmd." k; e = dir "/want." k; sub(/^\$ /, ""); print > c; close(c);
                 printf "" > e; close(e); next }
        { e = dir "/want." k; print >> e; close(e) }
    ' "$f"
    k=1
    while [ -e "$tmp/cmd.$k" ]; do
        cmd=$(cat "$tmp/cmd.$k")
        got=$(cd "$tmp" && PATH="$tmp/build:$PATH" sh -c "$cmd" 2>&1)
        if [ "$got" = "$(cat "$tmp/want.$k")" ]; then
            pass "README: \$ $cmd"
        else
            fail "README: \$ $cmd printed: $got"
        fi
        rm -f "$tmp/cmd.$k" "$tmp/want.$k"
        k=$((k + 1))
    done
done
finish "README"
