#!/bin/sh
# docs/cli.md says what the tool's --help says: the page is the one
# scripts/cli-doc.sh writes from this build's help texts.
# usage: cli_doc.sh BOTWIRE SOURCE_DIR
set -u
bw=$1 src=$2
. "$(dirname "$0")/testlib.sh"
sh "$src/scripts/cli-doc.sh" "$bw" "$tmp/cli.md" || fail "cli-doc.sh failed"
if diff -u "$src/docs/cli.md" "$tmp/cli.md" >"$tmp/diff"; then
    pass "docs/cli.md is every command's --help ($(grep -c '^## botwire' "$tmp/cli.md") commands)"
else
    fail "docs/cli.md differs from the help texts (sh scripts/cli-doc.sh build/botwire docs/cli.md writes it):"
    head -n 40 "$tmp/diff"
fi
finish "cli doc"
