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
"$tmp/prefix/bin/botwire" --version | grep -q "^botwire [0-9]"
test -f "$tmp/prefix/share/bash-completion/completions/botwire"
# The man page (help2man makes it from the help texts: a build without it
# has none, and that is a failure here, not a step left out).
command -v help2man >/dev/null 2>&1 ||
    { echo "install_example: help2man is not on PATH (package help2man): no man page" >&2; exit 1; }
test -f "$tmp/prefix/share/man/man1/botwire.1"
grep -q "botwire drive" "$tmp/prefix/share/man/man1/botwire.1"
# The completion offers the commands and each command's options.
command -v bash >/dev/null 2>&1 ||
    { echo "install_example: bash is not on PATH (package bash): the completion is untested" >&2; exit 1; }
got=$(PATH="$tmp/prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(botwire dr); COMP_CWORD=1; _botwire;
    echo "${COMPREPLY[*]}"; COMP_WORDS=(botwire drive --squ); COMP_CWORD=2; _botwire;
    echo "${COMPREPLY[*]}"' _ "$tmp/prefix/share/bash-completion/completions/botwire")
test "$got" = "drive
--square"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $extra -o "$tmp/example" "$src/examples/kobuki_decode.c" \
    $(pkg-config --cflags --libs botwire)
# Runs at once, with nothing set: pkg-config gave it the library's rpath.
out=$(env -u LD_LIBRARY_PATH "$tmp/example")
echo "$out"
echo "$out" | grep -q "base_control speed=100 radius=0"
echo "$out" | grep -q "base_control speed=-100 radius=0"
echo "$out" | grep -q "frames=2 checksum_errors=1 skipped_bytes=11"
