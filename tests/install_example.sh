#!/bin/sh
# Installs the library into a scratch prefix and builds the example program
# against it with pkg-config, as an outside user would, then runs it.
# usage: install_example.sh BUILD_DIR SOURCE_DIR CC "EXTRA_FLAGS"
set -eu
build=$1
src=$2
cc=$3
extra=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log"
pc=$(find "$tmp/prefix" -name botwire.pc)
test -n "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
test -x "$tmp/prefix/bin/botwire"
test -f "$tmp/prefix/include/botwire/botwire.h"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $extra -o "$tmp/example" "$src/examples/kobuki_decode.c" \
    $(pkg-config --cflags --libs botwire)
libdir=$(pkg-config --variable=libdir botwire)
out=$(LD_LIBRARY_PATH=$libdir "$tmp/example")
echo "$out"
echo "$out" | grep -q "base_control speed=100 radius=0"
echo "$out" | grep -q "base_control speed=-100 radius=0"
echo "$out" | grep -q "frames=2 checksum_errors=1 skipped_bytes=11"
