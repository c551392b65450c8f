#!/bin/sh
# Installs the Debian packages the build and the tests need, if missing.
# Quiet: a line per step; apt's own output goes to build/deps.log.
# Runs apt-get only when something is missing, as root or with sudo.
set -eu
cd "$(dirname "$0")/.."
pkgs="cmake make gcc clang libclang-rt-14-dev pkg-config binutils libcmocka-dev libjansson-dev
      help2man gcc-avr avr-libc binutils-avr gcc-arm-none-eabi libnewlib-arm-none-eabi
      libsimavr-dev g++ libroscpp-dev libstd-msgs-dev libgeometry-msgs-dev libnav-msgs-dev
      libsensor-msgs-dev libdiagnostic-msgs-dev libtf2-msgs-dev ros-core rosbash"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these (or equivalents) are installed:" $pkgs >&2
    exit 0
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

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
step() {
    what=$1
    shift
    printf 'deps: %s ... ' "$what"
    if "$@" >>"$log" 2>&1; then
        echo ok
    else
        echo "failed (full log: $log)"
        tail -n 20 "$log" >&2
        exit 1
    fi
}
echo "deps: installing Debian packages:$missing (log: $log)"
step "apt-get update" $sudo apt-get update -q
# shellcheck disable=SC2086
step "apt-get install" $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends $missing
