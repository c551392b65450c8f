#!/bin/sh
# Writes docs/cli.md from the tool's own help texts: `botwire --help`, then
# every command's --help, verbatim, so the page says what --help says. The
# test cli_doc checks that the page in the tree is what this writes.
# usage: cli-doc.sh BOTWIRE [OUT]   (default: standard output)
set -eu
bw=$1
out=${2:--}
commands=$("$bw" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
{
    echo "# The \`botwire\` command"
    echo
    echo "Every command and option, as \`--help\` prints them (this page is written"
    echo "from them by \`scripts/cli-doc.sh\`, and \`make check\` checks that it still"
    echo "says the same). What the commands do: [driving.md](driving.md),"
    echo "[emulators.md](emulators.md), [wire.md](wire.md), [view.md](view.md),"
    echo "[fleet.md](fleet.md), [performance.md](performance.md)."
    echo
    for c in $commands; do
        printf -- '- [`botwire %s`](#botwire-%s)\n' "$c" "$c"
    done
    echo
    echo '```'
    "$bw" --help
    echo '```'
    for c in $commands; do
        echo
        echo "## botwire $c"
        echo
        echo '```'
        "$bw" "$c" --help
        echo '```'
    done
} >"$([ "$out" = - ] && echo /dev/stdout || echo "$out")"
