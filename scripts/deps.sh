#!/bin/sh
# Installs the Debian packages the build and the tests need, if missing: the
# core's always, and those of each optional part (scripts/parts.sh) unless
# SKIP names it (make check SKIP=ros); for the tests against Foxglove's own
# code (the view's WebSocket client, the MCAP readers), the npm packages of
# tests/npm/package-lock.json into build/npm (npm ci, when the lock changed
# or they are not there). Quiet: a line per step; apt's own
# output goes to build/deps.log. Runs apt-get only when something is
# missing, as root or with sudo; waits for another apt (one that started with
# the machine, say) instead of failing on its lock.
set -eu
cd "$(dirname "$0")/.."
. scripts/parts.sh
skip=${SKIP:-}
parts_check_skip "$skip"
pkgs=$pkgs_core
for part in $parts_optional; do
    part_skipped "$part" "$skip" || eval "pkgs=\"\$pkgs \$pkgs_$part\""
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these (or equivalents) are installed:" $pkgs >&2
    exit 0
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done

# Foxglove's WebSocket client and MCAP readers for the tests, from the npm
# registry, exactly as locked.
npm_packages() {
    dir=build/npm
    if [ -d "$dir/node_modules/@foxglove/ws-protocol" ] && [ -d "$dir/node_modules/@mcap/core" ] &&
        cmp -s tests/npm/package-lock.json "$dir/package-lock.json"; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || return 0 # part_missing names it
    mkdir -p "$dir"
    cp tests/npm/package.json tests/npm/package-lock.json "$dir/"
    printf 'deps: npm ci (Foxglove'"'"'s WebSocket client and MCAP readers for the tests, into %s) ... ' "$dir"
    if (cd "$dir" && npm ci --no-audit --no-fund --fetch-retries=1) >>build/deps.log 2>&1; then
        echo ok
    else
        # Only tests need them: the build goes on, and make check says the
        # tests were left out, and why.
        rm -rf "$dir/node_modules"
        why=$(grep -E '^npm (ERR!|error) code ' build/deps.log | tail -n 1 | sed -E 's/^npm (ERR!|error) //')
        echo "failed (${why:-see build/deps.log}); the tests against Foxglove's code will be left out"
    fi
}
if [ -z "$missing" ]; then
    mkdir -p build
    npm_packages
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "deps: these Debian packages are missing:$missing" >&2
        echo "deps: install them as root, then run make again:" >&2
        echo "      su -c 'apt-get update && apt-get install -y --no-install-recommends$missing'" >&2
        exit 1
    fi
    sudo=sudo
fi
mkdir -p build
log=build/deps.log
: >"$log"

# apt-get with the dpkg lock's own timeout; the lists and archives locks
# have none, so a run that fails on a lock another apt holds is tried again
# once it is free, for up to 10 minutes.
apt_get() {
    deadline=$(($(date +%s) + 600))
    said=""
    while :; do
        mark=$(wc -l <"$log")
        if $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" \
            >>"$log" 2>&1; then
            return 0
        fi
        held=$(tail -n +"$((mark + 1))" "$log" | sed -n 's/^E: Could not get lock \(.*\)/\1/p' | head -n 1)
        [ -n "$held" ] && [ "$(date +%s)" -lt "$deadline" ] || return 1
        if [ -z "$said" ]; then
            printf '(waiting: another apt holds %s) ' "$held"
            said=1
        fi
        sleep 2
    done
}
step() {
    what=$1
    shift
    printf 'deps: %s ... ' "$what"
    if "$@"; then
        echo ok
    else
        echo "failed (full log: $log)"
        tail -n 20 "$log" >&2
        exit 1
    fi
}
echo "deps: installing Debian packages:$missing (log: $log)"
step "apt-get update" apt_get update -q
# shellcheck disable=SC2086
step "apt-get install" apt_get install -y -q --no-install-recommends $missing
npm_packages
