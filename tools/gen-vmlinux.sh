#!/bin/sh
# Regenerate the pinned vmlinux.h from a kernel's BTF.
# The build never reads the build host's BTF implicitly: CO-RE relocates against
# the running kernel at load time, so one pinned header serves every kernel.
# Usage: tools/gen-vmlinux.sh [BTF_FILE]   (default: /sys/kernel/btf/vmlinux)
set -eu
btf=${1:-/sys/kernel/btf/vmlinux}
arch=$(uname -m)
case "$arch" in x86_64) dir=x86 ;; aarch64) dir=arm64 ;; *) dir=$arch ;; esac
out="$(dirname "$0")/../bpf/vmlinux/$dir/vmlinux.h"
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out from $btf"
