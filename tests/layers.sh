#!/bin/sh
# scripts/layers.sh passes on the tree, and fails, naming each, on a copy
# with a wrong-way include planted in each way it can go wrong: up the
# layers, sideways between layers of one height, into the command's files,
# into another layer's private file, and a library built from tools/.
# usage: layers.sh SOURCE_DIR
set -u
src=$1
. "$(dirname "$0")/testlib.sh"

out=$(sh "$src/scripts/layers.sh" "$src" 2>&1)
[ $? = 0 ] && pass "the tree: $out" || fail "the tree: $out"

copy=$tmp/tree
mkdir "$copy"
for d in src tools bench ros firmware examples include cmake scripts CMakeLists.txt; do
    cp -R "$src/$d" "$copy/"
done
echo '#include "botwire/view.h"' >>"$copy/src/behave/grl.c"
echo '#include "botwire/runner.h"' >>"$copy/src/view/view.c"
echo '#include "../../tools/cli.h"' >>"$copy/src/base/base.c"
echo '#include "../sim/rng.h"' >>"$copy/src/text/api.c"
echo 'add_library(bad SHARED tools/cli.c)' >>"$copy/CMakeLists.txt"
sh "$copy/scripts/layers.sh" "$copy" >"$tmp/out" 2>&1
status=$?
[ "$status" = 1 ] && pass "planted: exit 1" || fail "planted: exit $status"
for want in "src/behave/grl.c (behave) includes botwire/view.h (view)" \
    "src/view/view.c (view) includes botwire/runner.h (runner)" \
    "src/base/base.c includes ../../tools/cli.h" \
    "src/text/api.c includes ../sim/rng.h" \
    "builds a tools/ source outside the botwire command" \
    "5 wrong-way"; do
    grep -qF "$want" "$tmp/out" && pass "named: $want" || fail "not named: $want ($(cat "$tmp/out"))"
done
finish "layers"
