#!/bin/sh
# make install: the build into PREFIX, with a list of every file it put
# there (PREFIX/share/botwire/install_manifest.txt, itself included) for
# make uninstall. A prefix the user cannot write is said before anything
# is copied, with what to do instead.
# usage: install.sh BUILD PREFIX
set -eu
build=$1
prefix=$2
case $prefix in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
# The deepest folder of the prefix that exists must be writable.
probe=$prefix
while [ ! -d "$probe" ]; do probe=$(dirname "$probe"); done
if [ ! -w "$probe" ]; then
    echo "make install: cannot write $probe (as $(id -un)): install as root with" >&2
    echo "    sudo make install PREFIX=$prefix" >&2
    echo "or into a prefix of your own, e.g. make install PREFIX=\$HOME/.local" >&2
    exit 1
fi
cmake --install "$build" --prefix "$prefix"
manifest=$prefix/share/botwire/install_manifest.txt
mkdir -p "$prefix/share/botwire"
# cmake lists what it installed (files and links) in the build folder.
{ cat "$build/install_manifest.txt"; echo; echo "$manifest"; } | sed '/^$/d' >"$manifest.new"
mv "$manifest.new" "$manifest"
echo "make install: $(wc -l <"$manifest") files in $prefix, listed in $manifest (make uninstall PREFIX=$prefix removes them)"
