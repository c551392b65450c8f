#!/bin/sh
# Writes botwire.1 from the tool's own help texts with help2man, so the man
# page says what --help says: the usage, then every command's --help.
# usage: manpage.sh BOTWIRE OUT.1
set -eu
bw=$1
out=$2
inc=$out.include
{
    echo "[COMMANDS]"
    for c in $("$bw" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
        echo ".SS \"botwire $c\""
        echo ".nf"
        # Lines starting with . or ' are roff requests: escape them.
        "$bw" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
        echo ".fi"
    done
    echo "[FILES]"
    echo "World files: docs/world-format.md. Record files: docs/record-format.md."
    echo "[SEE ALSO]"
    echo "The README and docs/ of the botwire sources (docs/cli.md: these pages)."
} >"$inc"
# help2man reads the usage forms when they are in GNU's shape ("Usage:",
# then "  or:" for each other form); the tool's own help lines them up
# instead. A wrapper gives help2man that shape and the rest unchanged.
wrap=$out.botwire
cat >"$wrap" <<WRAP
#!/bin/sh
if [ "\$1" = --help ]; then
    "$bw" --help | awk 'NR == 1 { sub(/^usage: */, "Usage: "); sub(/ *\\(botwire <command> --help.*/, ""); print; next }
        /^       botwire / { sub(/^ +/, "  or:  "); print; next } { print }'
else
    exec "$bw" "\$@"
fi
WRAP
chmod +x "$wrap"
help2man --no-info --no-discard-stderr --name "serial protocols between a robot and its base" \
    --include "$inc" --output "$out" "$wrap"
rm -f "$inc" "$wrap"
# The page names the tool, not the wrapper.
sed -i "s/$(basename "$wrap" | sed 's/[.]/[.]/g')/botwire/g" "$out"
