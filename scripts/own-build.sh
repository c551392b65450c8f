#!/bin/sh
# A build folder configured for another copy of the tree (a checkout copied
# or moved with its build folder, where CMake stops with "The current
# CMakeCache.txt directory ... is different") is configured afresh for this
# one: its cache and CMake's own files go, with a line saying so; what it
# built stays, and is rebuilt where out of date.
# usage: own-build.sh BUILD_DIR   (from the tree's root)
set -eu
dir=$1
cache=$dir/CMakeCache.txt
[ -f "$cache" ] || exit 0
here=$(pwd -P)
was=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
[ -n "$was" ] || exit 0
[ "$(cd "$was" 2>/dev/null && pwd -P)" = "$here" ] && exit 0
echo "botwire: $dir was configured for the tree at $was: configuring it for this one, $here"
rm -rf "$cache" "$dir/CMakeFiles"
