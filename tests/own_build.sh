#!/bin/sh
# make in a copied or moved tree: a build folder whose CMake cache names
# another copy of the tree is configured afresh for this one, with a line
# saying so (CMake alone stops with "The current CMakeCache.txt directory
# ... is different"); one configured for this tree is left alone.
# usage: own_build.sh SOURCE_DIR
set -u
src=$1
bw=
. "$(dirname "$0")/testlib.sh"
cd "$src" || exit 1
here=$(pwd -P)
mkdir -p "$tmp/moved/CMakeFiles" "$tmp/moved/tests"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\nCMAKE_BUILD_TYPE:STRING=Release\n' "$tmp/elsewhere" >"$tmp/moved/CMakeCache.txt"
: >"$tmp/moved/tests/test_core.o"
out=$(sh scripts/own-build.sh "$tmp/moved")
[ "$out" = "botwire: $tmp/moved was configured for the tree at $tmp/elsewhere: configuring it for this one, $here" ] &&
    [ ! -e "$tmp/moved/CMakeCache.txt" ] && [ ! -e "$tmp/moved/CMakeFiles" ] && [ -e "$tmp/moved/tests/test_core.o" ] &&
    pass "a build folder of another tree: configured afresh ($out)" || fail "another tree's build folder: '$out', $(ls -A "$tmp/moved")"
mkdir -p "$tmp/own/CMakeFiles"
printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$here" >"$tmp/own/CMakeCache.txt"
out=$(sh scripts/own-build.sh "$tmp/own")
[ -z "$out" ] && [ -e "$tmp/own/CMakeCache.txt" ] && [ -e "$tmp/own/CMakeFiles" ] &&
    pass "this tree's build folder: left alone" || fail "this tree's build folder: '$out', $(ls -A "$tmp/own")"
out=$(sh scripts/own-build.sh "$tmp/none")
[ -z "$out" ] && pass "no build folder yet: nothing to do" || fail "no build folder: '$out'"
finish "own build folder"
