#!/bin/sh
# The commands of a page of the docs (README.md or docs/*.md) run as
# written, after the two commands: each ```sh block runs as a script from a
# scratch folder that mirrors the sources, where `build` is this build (so
# `export PATH="$PWD/build:$PATH"` finds the tool and `examples/` are
# there), and each `$ command` line of a transcript prints exactly the lines
# under it. A block marked ```sh hardware needs what the test cannot give
# (a robot on a port, root, a roscore) and is listed as not run, as are
# `make ...` lines (the test runs inside make check) and lines marked
# "after make install", and a block that names a file of build/ this build
# does not have (a part left out). A ```c block after a line naming `examples/X.c` is
# that file, as it is. With --links, every relative link of every page
# resolves instead, and no page speaks of the project's seeds or issues.
# usage: docs.sh PAGE SOURCE_DIR BUILD_DIR | docs.sh --links SOURCE_DIR
set -u
. "$(dirname "$0")/testlib.sh"
# A fresh Debian's python3 and tools, whatever the caller's PATH puts first
# (another python3 without the Python part's packages, say).
PATH="/usr/bin:/bin:$PATH"
export PATH

if [ "$1" = --links ]; then
    src=$(cd "$2" && pwd)
    n=0
    for page in "$src/README.md" "$src"/docs/*.md; do
        dir=$(dirname "$page")
        # [text](target) and ![alt](target), outside code spans and blocks
        links=$(awk '/^```/ { code = !code; next } !code { gsub(/`[^`]*`/, ""); print }' "$page" |
            grep -o '\]([^)]*)' | sed 's/^](//; s/)$//')
        for l in $links; do
            case $l in
            http://* | https://* | mailto:* | \#*) continue ;;
            esac
            n=$((n + 1))
            target=${l%%#*}
            [ -e "$dir/$target" ] || fail "${page#$src/}: link to $l: no such file"
        done
    done
    [ "$failures" = 0 ] && pass "$n relative links in README.md and docs/*.md resolve"
    # Words from inside the project a reader cannot look up: the seeds the
    # spec came as, the issues work came as.
    if grep -n -i -E "seed 00[0-9]|the issue('s)? |issue #?[0-9]+ " "$src/README.md" "$src"/docs/*.md >"$tmp/words"; then
        fail "the project's own words in user pages: $(sed "s|$src/||" "$tmp/words" | tr '\n' ';')"
    else
        pass "no seed numbers or issues named in README.md and docs/*.md"
    fi
    finish "links"
    exit 0
fi

page=$1
src=$(cd "$2" && pwd)
build=$(cd "$3" && pwd)
name=${page#$src/}
# The scratch folder: the sources, with `build` this build.
work=$tmp/work
mkdir "$work"
for e in "$src"/* "$src"/.[!.]*; do
    [ -e "$e" ] || continue
    case $(basename "$e") in build | build-* | .git) continue ;; esac
    ln -s "$e" "$work/$(basename "$e")"
done
ln -s "$build" "$work/build"

# Splits the page into blocks: block.N (commands), trans.N (transcripts),
# c.N (C, with want.N the file it says it is).
awk -v dir="$tmp" '
    /^```/ && !inb {
        inb = 1; n++; lang = substr($0, 4); body = ""; kind = ""
        named = prev; next
    }
    inb && /^```$/ {
        inb = 0
        if (lang == "sh") f = dir "/" (kind == "t" ? "trans." : "block.") n
        else if (lang == "c" && match(named, /examples\/[a-z_0-9]+\.c/)) {
            f = dir "/c." n; print substr(named, RSTART, RLENGTH) > (dir "/cname." n)
            close(dir "/cname." n)
        }
        else f = ""
        if (f != "") { printf "%s", body > f; close(f) }
        next
    }
    inb { if ($0 ~ /^\$ /) kind = "t"; body = body $0 "\n"; next }
    /./ { prev = $0 }
' "$page"

pids=""
# The emulators the blocks sent to the background, stopped, and gone
# before the test ends: the next test that takes their places (/tmp/kobuki,
# TCP 8101) starts as soon as this one ends, while a loaded machine may
# not yet have run their exit. tail --pid ends when the process does; the
# 30 s of timeout only end the wait for one that never goes.
cleanup() {
    [ -n "$pids" ] || return 0
    kill $pids 2>/dev/null
    for p in $pids; do
        timeout 30 tail --pid="$p" -s 0.05 -f /dev/null 2>/dev/null
    done
}

for f in "$tmp"/c.*; do
    [ -e "$f" ] || continue
    file=$(cat "$tmp/cname.${f##*.}")
    if cmp -s "$f" "$src/$file"; then
        pass "$name: the C block is $file, as it is"
    else
        fail "$name: the C block said to be $file differs from it"
    fi
done

for f in "$tmp"/block.*; do
    [ -e "$f" ] || continue
    : >"$tmp/script"
    while IFS= read -r line; do
        case $line in
        make\ * | *"after make install"*) echo "not run: $line" ;;
        *) printf '%s\n' "$line" >>"$tmp/script" ;;
        esac
    done <"$f"
    [ -s "$tmp/script" ] || continue
    # A block that runs what this build left out (the firmware, SKIP=...).
    missing=""
    for p in $(grep -o 'build/[A-Za-z0-9_./-]*' "$tmp/script" | sort -u); do
        [ -e "$work/$p" ] || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "not run: $name block $(basename "$f" | cut -d. -f2): this build has no$missing"
        continue
    fi
    n=$(grep -c . "$tmp/script")
    (cd "$work" && sh -e "$tmp/script") >"$tmp/out" 2>"$tmp/err" </dev/null
    status=$?
    # Emulators a block sent to the background (--detach prints the pid).
    pids="$pids $(sed -n 's/.*(pid \([0-9]*\))$/\1/p' "$tmp/out" | tr '\n' ' ')"
    if [ "$status" = 0 ]; then
        pass "$name block $(basename "$f" | cut -d. -f2): $n commands ran"
    else
        fail "$name block $(basename "$f" | cut -d. -f2): exit $status; $(tail -n 3 "$tmp/err")"
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
        got=$(cd "$work" && PATH="$work/build:$PATH" sh -c "$cmd" 2>&1 </dev/null)
        if [ "$got" = "$(cat "$tmp/want.$k")" ]; then
            pass "$name: \$ $cmd"
        else
            fail "$name: \$ $cmd printed: $got"
        fi
        rm -f "$tmp/cmd.$k" "$tmp/want.$k"
        k=$((k + 1))
    done
done
finish "$name"
