#!/bin/sh
# Configures and builds iolens into ./build (or $IOLENS_BUILD_DIR).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${IOLENS_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
