#!/bin/sh
# Set-up, build, and every test (unit and privileged), on a fresh Debian 12
# machine as root. This is what CI runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
"$root/tools/build.sh"
build=${IOLENS_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure --timeout 600 "$@"
