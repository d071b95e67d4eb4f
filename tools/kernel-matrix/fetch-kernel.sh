#!/bin/bash
# fetch-kernel.sh SUITE CACHE_DIR: downloads Debian SUITE's default amd64
# kernel (what linux-image-amd64 depends on) and unpacks it under
# CACHE_DIR/SUITE/root, once: a later run reuses it (CACHE_DIR/SUITE/ready).
#
# apt runs with a private source list, list directory and package cache under
# CACHE_DIR/SUITE/apt, never the system's: other users of apt on this machine
# see no foreign suite appear in their lists, and there is nothing to remove
# or re-update afterwards.
set -euo pipefail
suite=$1
cache=$2
dir=$cache/$suite
if [ -f "$dir/ready" ]; then
    exit 0
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "fetch-kernel: $keyring missing: install debian-archive-keyring" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/deb"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main" >"$dir/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
          -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
          -o "APT::Sandbox::User=root" -o "Acquire::Retries=3")
apt-get -qq "${apt_opts[@]}" update \
    || { echo "fetch-kernel: apt-get update for $suite failed (network? deb.debian.org reachable?)" >&2; exit 1; }
# linux-image-amd64 is the metapackage; the image itself is its versioned dependency.
pkg=$(apt-cache "${apt_opts[@]}" depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$pkg" ] || { echo "fetch-kernel: no linux-image package behind linux-image-amd64 in $suite" >&2; exit 1; }
(cd "$dir/deb" && apt-get -qq "${apt_opts[@]}" download "$pkg") \
    || { echo "fetch-kernel: apt-get download $pkg failed" >&2; exit 1; }
dpkg -x "$dir"/deb/*.deb "$dir/root"
# Debian 13 ships modules under /usr/lib (merged /usr), older releases under /lib.
for moddir in "$dir/root/lib/modules" "$dir/root/usr/lib/modules" ""; do
    [ -d "$moddir" ] && break
done
[ -n "$moddir" ] || { echo "fetch-kernel: no modules directory in $pkg" >&2; exit 1; }
release=$(ls "$moddir")
[ -f "$dir/root/boot/vmlinuz-$release" ] || { echo "fetch-kernel: no vmlinuz-$release in $pkg" >&2; exit 1; }
# The lists were only needed to resolve the package, the .deb only to unpack it.
rm -rf "$dir/apt" "$dir/deb"
printf 'package=%s\nrelease=%s\nvmlinuz=%s\nmodules=%s\n' "$pkg" "$release" \
    "$dir/root/boot/vmlinuz-$release" "$moddir/$release" >"$dir/ready"
