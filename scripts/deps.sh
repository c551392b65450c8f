#!/bin/sh
# Installs the Debian packages the build and the tests need, if missing.
# Runs apt-get only when something is missing (with sudo when not root).
set -eu
pkgs="cmake make gcc clang libclang-rt-14-dev pkg-config binutils libcmocka-dev libjansson-dev"

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; make sure these (or equivalents) are installed: $pkgs" >&2
    exit 0
fi
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing Debian packages:$missing"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "deps: need root or sudo to install:$missing" >&2
        exit 1
    }
    sudo=sudo
fi
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
