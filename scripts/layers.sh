#!/bin/sh
# The layers of docs/design.md, checked: every #include "..." of the
# product's code goes down the layers, never up or sideways, and reaches
# another layer only through its public header (include/botwire/), but for
# the few interfaces a family plugs into (its device model, its driver
# ops, the framer compiled into its codec). Nothing outside tools/ includes
# a file of tools/ or builds one of its sources. Tests and fuzzers, which
# look inside on purpose, are not checked.
# usage: layers.sh [ROOT]   (default: this repository); exit 1 with one line
# per wrong include.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# rank NAME: a layer's height; layers of one height never include each other.
#   core 0 < geom 1 < codec 2 < io 3 < sim 4 < device 5 < base 6 < driver 7
#   < behave 8 < record 9 < text 10, picture 9, runner 9, view 9, ros2 9
#   < bench 11 < the command, ROS, firmware, examples 12
rank() {
    case $1 in
    core) echo 0 ;; geom) echo 1 ;; codec) echo 2 ;; io) echo 3 ;; sim) echo 4 ;;
    device) echo 5 ;; base) echo 6 ;; driver) echo 7 ;; behave) echo 8 ;;
    record | picture | runner | view | ros2) echo 9 ;; text) echo 10 ;; bench) echo 11 ;;
    *) echo 12 ;;
    esac
}

# layer_of_file PATH: the layer a file of the tree belongs to (empty: not checked).
layer_of_file() {
    case $1 in
    src/core/*) echo core ;;
    src/geom/*) echo geom ;;
    src/robots/*/device.c) echo device ;;
    src/robots/*/driver.c | src/robots/*/host.c | src/robots/*/host.h) echo driver ;;
    src/robots/*) echo codec ;;
    src/io/*) echo io ;;
    src/sim/*) echo sim ;;
    src/base/*) echo base ;;
    src/behave/*) echo behave ;;
    src/record/*) echo record ;;
    src/text/*) echo text ;;
    src/picture/*) echo picture ;;
    src/runner/*) echo runner ;;
    src/view/*) echo view ;;
    src/ros2/*) echo ros2 ;;
    bench/*) echo bench ;;
    tools/*) echo cli ;;
    ros/*) echo ros ;;
    firmware/*) echo firmware ;;
    examples/*) echo examples ;;
    include/botwire/*) layer_of_header "$(basename "$1")" ;;
    *) echo "" ;;
    esac
}

# layer_of_header NAME.h: the layer whose public header it is.
layer_of_header() {
    case $1 in
    wire.h) echo core ;;
    geom.h) echo geom ;;
    kobuki.h | p2os.h | lobot.h | create.h | rbsm.h | rflex.h) echo codec ;;
    port.h) echo io ;;
    sim.h | device.h) echo sim ;;
    base.h | sniff.h | create_base.h) echo base ;;
    behave.h | botwire.h) echo behave ;;
    record.h | mcap.h) echo record ;;
    json.h) echo text ;;
    svg.h) echo picture ;;
    runner.h) echo runner ;;
    view.h) echo view ;;
    ros2.h) echo ros2 ;;
    *) echo unknown ;;
    esac
}

# The interfaces a family's files plug into, FILE-GLOB:INCLUDED-PATH (the
# included path resolved from the repository's root).
plugin_ok() {
    case "$1:$2" in
    src/robots/*/proto.c:src/core/framer_inline.h) return 0 ;;
    src/robots/*/device.c:src/sim/device_internal.h) return 0 ;;
    src/robots/*/device.c:src/sim/rng.h) return 0 ;;
    src/robots/*/driver.c:src/base/base_internal.h) return 0 ;;
    src/robots/lobot/driver.c:src/robots/create/host.h) return 0 ;; # the Create's OI host side
    firmware/*/main.c:firmware/common/mega.h) return 0 ;; # the Mega firmwares' chip
    esac
    return 1
}

# normalise PATH: a/b/../c -> a/c, ./ dropped.
normalise() {
    echo "$1" | awk -F/ '{
        n = 0
        for (i = 1; i <= NF; i++) {
            if ($i == "" || $i == ".") continue
            if ($i == ".." && n > 0 && part[n] != "..") { n--; continue }
            part[++n] = $i
        }
        s = ""
        for (i = 1; i <= n; i++) s = s (i > 1 ? "/" : "") part[i]
        print s
    }'
}

bad=0
wrong() {
    echo "layers: $*"
    bad=$((bad + 1))
}

files=$(find src tools bench ros firmware examples include/botwire \
    \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort)
for f in $files; do
    from=$(layer_of_file "$f")
    [ -n "$from" ] || continue
    from_rank=$(rank "$from")
    dir=$(dirname "$f")
    # Each quoted include: its text, then where it resolves.
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
        case $inc in
        botwire/*)
            to=$(layer_of_header "$(basename "$inc")")
            if [ "$to" = unknown ]; then
                wrong "$f includes $inc, a header no layer owns (scripts/layers.sh names them)"
                continue
            fi
            to_rank=$(rank "$to")
            if [ "$to_rank" -gt "$from_rank" ] ||
                { [ "$to_rank" = "$from_rank" ] && [ "$to" != "$from" ]; }; then
                wrong "$f ($from) includes $inc ($to): a layer includes only the layers below it"
            fi
            continue
            ;;
        esac
        path=$(normalise "$dir/$inc")
        [ -e "$path" ] || path=$(normalise "include/$inc")
        case $path in
        tools/*)
            [ "$from" = cli ] || wrong "$f includes $inc: nothing outside tools/ uses the command's files"
            continue
            ;;
        esac
        # The folder's own files (a family's, a layer's) are its own.
        [ "$(dirname "$path")" = "$dir" ] && continue
        plugin_ok "$f" "$path" && continue
        [ "$from" = cli ] && case $path in bench/*) continue ;; esac
        wrong "$f includes $inc ($path): another layer's private file (its public header is in include/botwire/)"
    done >"$root/.layers.$$"
    if [ -s "$root/.layers.$$" ]; then
        cat "$root/.layers.$$"
        bad=$((bad + $(grep -c . "$root/.layers.$$")))
    fi
    rm -f "$root/.layers.$$"
done

# Only the command is built from tools/: no library takes its sources.
for c in CMakeLists.txt cmake/*.cmake */CMakeLists.txt; do
    [ -f "$c" ] || continue
    awk -v file="$c" '
        /add_executable\(botwire[ \t]*$|add_executable\(botwire[ \t]/ { inside = 1 }
        /tools\/[^ )]*\.c/ && !inside { print "layers: " file ":" NR ": builds a tools/ source outside the botwire command: " $0 }
        inside && /\)/ { inside = 0 }
    ' "$c"
done >"$root/.layers.$$"
if [ -s "$root/.layers.$$" ]; then
    cat "$root/.layers.$$"
    bad=$((bad + $(grep -c . "$root/.layers.$$")))
fi
rm -f "$root/.layers.$$"

if [ "$bad" -gt 0 ]; then
    echo "layers: $bad wrong-way include(s) or build(s) (docs/design.md)"
    exit 1
fi
echo "layers: every include goes down the layers ($(echo "$files" | grep -c .) files)"
