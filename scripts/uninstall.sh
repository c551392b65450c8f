#!/bin/sh
# make uninstall: removes exactly the files make install put in PREFIX (its
# manifest, PREFIX/share/botwire/install_manifest.txt), then the folders
# that held only them; nothing else.
# usage: uninstall.sh PREFIX
set -eu
prefix=$1
case $prefix in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
manifest=$prefix/share/botwire/install_manifest.txt
if [ ! -f "$manifest" ]; then
    echo "make uninstall: nothing of botwire's is installed in $prefix (no $manifest)" >&2
    exit 1
fi
if [ ! -w "$manifest" ]; then
    echo "make uninstall: cannot change $prefix (as $(id -un)): sudo make uninstall PREFIX=$prefix" >&2
    exit 1
fi
n=0
dirs=""
while IFS= read -r f; do
    [ -n "$f" ] || continue
    case $f in
    "$prefix"/*) ;;
    *)
        echo "make uninstall: $f is outside $prefix: left alone" >&2
        continue
        ;;
    esac
    if [ -e "$f" ] || [ -L "$f" ]; then
        rm -f "$f"
        n=$((n + 1))
    fi
    dirs="$dirs
$(dirname "$f")"
done <"$manifest"
# The folders, deepest first, that are empty now (never the prefix itself).
echo "$dirs" | sed '/^$/d' | sort -u | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
    while IFS= read -r d; do
        while [ "$d" != "$prefix" ] && [ "${d#"$prefix"/}" != "$d" ] && rmdir "$d" 2>/dev/null; do
            d=$(dirname "$d")
        done
    done
if command -v ldconfig >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    ldconfig 2>/dev/null || true
fi
echo "make uninstall: removed $n files from $prefix"
