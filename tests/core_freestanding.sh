#!/bin/sh
# The codec core must build for a microcontroller: no allocation, no I/O, no
# libm, only <stdint.h> <stddef.h> <stdbool.h> <string.h>.
# usage: core_freestanding.sh LIBBOTWIRE_CODEC.a SOURCE_DIR
set -eu
lib=$1
src=$2
fail=0
allowed='^(memcpy|memmove|memset|memchr|memcmp|strcmp|strlen)$'
# Symbols used by one object of the core and defined by another are fine.
defined=$(nm --defined-only -g "$lib" | awk 'NF==3 {print $3}' | sort -u)
undef=$(nm -u "$lib" | awk 'NF==2 && $1=="U" {print $2}' | sort -u | grep -vxF "$defined" || true)
for s in $undef; do
    if ! echo "$s" | grep -Eq "$allowed"; then
        echo "core references $s"
        fail=1
    fi
done
for f in "$src"/src/core/*.c "$src"/src/robots/*/proto.c "$src"/src/robots/*/convert.c; do
    [ -f "$f" ] || continue
    grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$f" |
        grep -Ev '<(stdint|stddef|stdbool|string)\.h>' | sed "s|^|$f: |" | grep . && fail=1
done
for h in "$src"/include/botwire/wire.h "$src"/include/botwire/kobuki.h "$src"/include/botwire/p2os.h \
    "$src"/include/botwire/lobot.h "$src"/include/botwire/create.h "$src"/include/botwire/rbsm.h \
    "$src"/include/botwire/rflex.h; do
    grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$h" |
        grep -Ev '<(stdint|stddef|stdbool|string)\.h>' | sed "s|^|$h: |" | grep . && fail=1
done
[ "$fail" = 0 ] && echo "codec core: only $(echo $undef | tr '\n' ' ')referenced; headers ok"
exit $fail
