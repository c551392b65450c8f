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
# The service's unit and the udev rules, where systemd and udev look.
grep -q "^ExecStart=$tmp/prefix/bin/botwire " "$tmp/prefix/lib/systemd/system/botwire@.service" || {
    echo "install_example: the unit's ExecStart: $(grep ExecStart "$tmp/prefix/lib/systemd/system/botwire@.service")" >&2
    exit 1
}
cmp -s "$src/dist/udev/60-botwire.rules" "$tmp/prefix/lib/udev/rules.d/60-botwire.rules"
# Every example of docs/library.md, built against the install with its
# pkg-config flags as an outside program is, and run with nothing set.
for ex in kobuki_decode base_drive emulated_kobuki wander json_decode; do
    libs=$(pkg-config --libs botwire)
    [ "$ex" = json_decode ] && libs="$libs -lbotwire_json"
    # shellcheck disable=SC2086 # the flags, one word each
    "$cc" -std=c11 -Wall -Wextra -Werror $extra $(pkg-config --cflags botwire) \
        -o "$tmp/$ex" "$src/examples/$ex.c" $libs -lm
    env -i "$tmp/$ex" >"$tmp/$ex.out"
done
grep -q "^frames=2 checksum_errors=1 skipped_bytes=11$" "$tmp/kobuki_decode.out"
grep -q "^x 0.40 m, v 0.00 m/s, online 1$" "$tmp/base_drive.out"
grep -q "^50 feedback frames; the robot truly at x 1.10 m$" "$tmp/emulated_kobuki.out"
grep -q "^60 s of wander: [1-9][0-9]*\.[0-9] m by odometry" "$tmp/wander.out"
grep -q '^{"type":"base_control","speed":100,"radius":0}$' "$tmp/json_decode.out"
grep -q "^aa 55 06 01 04 64 00 00 00 67$" "$tmp/json_decode.out"
# Only the installed libraries' headers: the layers built into the command
# alone keep theirs in the tree.
for h in record.h svg.h runner.h view.h ros2.h; do
    test ! -e "$tmp/prefix/include/botwire/$h"
done
test -f "$tmp/prefix/include/botwire/json.h"
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
# Only the options a command takes (drive's help names sim's --pty), and
# robots, not files, for the URL of drive, record and wander.
got=$(PATH="$tmp/prefix/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(botwire drive --pt); COMP_CWORD=2;
    _botwire; echo "[${COMPREPLY[*]}]"; COMP_WORDS=(botwire wander sim:p2); COMP_CWORD=2; _botwire;
    echo "${COMPREPLY[*]}"' _ "$tmp/prefix/share/bash-completion/completions/botwire")
test "$got" = "[]
sim:p2os"
# The man page's synopsis: each form on its own line.
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$tmp/prefix/share/man/man1/botwire.1" >"$tmp/synopsis"
test "$(grep -c '^\.B botwire$' "$tmp/synopsis")" = 3 && test "$(grep -c '^\.br$' "$tmp/synopsis")" = 2 ||
    { echo "install_example: man page synopsis: $(cat "$tmp/synopsis")" >&2; exit 1; }
# make install's script lists what it put in the prefix, and make
# uninstall's removes exactly that: the prefix is left empty.
sh "$src/scripts/install.sh" "$build" "$tmp/p2" >"$tmp/install2.log"
test -f "$tmp/p2/share/botwire/install_manifest.txt"
test -x "$tmp/p2/bin/botwire"
sh "$src/scripts/uninstall.sh" "$tmp/p2" >"$tmp/uninstall.log"
left=$(find "$tmp/p2" -mindepth 1 | head -n 3)
test -z "$left" || { echo "install_example: make uninstall left: $left" >&2; exit 1; }
# A second uninstall says there is nothing to remove, and fails.
if sh "$src/scripts/uninstall.sh" "$tmp/p2" 2>"$tmp/un2.err"; then exit 1; fi
grep -q "nothing of botwire's is installed in $tmp/p2" "$tmp/un2.err"
# A prefix the user cannot write is said before anything is copied.
if [ "$(id -u)" = 0 ]; then
    mkdir "$tmp/locked" && chmod 755 "$tmp" "$tmp/locked"
    cp "$src/scripts/install.sh" "$tmp/install.sh" # the source may be in a folder nobody cannot read
    if setpriv --reuid=65534 --regid=65534 --clear-groups sh "$tmp/install.sh" "$build" \
        "$tmp/locked/p" 2>"$tmp/locked.err"; then exit 1; fi
    grep -q "cannot write $tmp/locked (as nobody): install as root with" "$tmp/locked.err"
    test -z "$(find "$tmp/locked" -mindepth 1)"
fi
echo "install_example: the examples built and run against the install; install, uninstall and a locked prefix as expected"
