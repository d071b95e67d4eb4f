#!/bin/bash
# build-initramfs.sh MODULES_DIR IOLENS_BIN INIT_SCRIPT OUT: a self-contained
# initramfs (gzip'd newc cpio) for booting an unpacked Debian kernel under
# qemu: busybox-static, the iolens binary with every shared library ldd lists
# and the dynamic loader (at their own paths, so the binary runs unchanged),
# the kernel modules a virtio disk with ext4 needs (with their dependencies,
# decompressed: busybox insmod may not read .ko.xz/.ko.zst), and the init.
set -euo pipefail
moddir=$1
iolens=$2
init=$3
out=$4
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || busybox=/bin/busybox
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' \
    || ldd "$busybox" 2>&1 | grep -q 'not a dynamic executable' \
    || { echo "build-initramfs: $busybox is not static: install busybox-static" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,proc,sys,dev,mnt,tmp,run,modules,etc,root}
cp "$busybox" "$stage/bin/busybox"
cp "$init" "$stage/init"
chmod 755 "$stage/init"

# iolens and what the dynamic loader will look for.
mkdir -p "$stage/usr/local/bin"
cp "$iolens" "$stage/usr/local/bin/iolens"
ldd "$iolens" | awk '/=> \// {print $3} /^[ \t]*\/.*ld-linux/ {print $1}' | sort -u | while read -r lib; do
    mkdir -p "$stage$(dirname "$lib")"
    cp -L "$lib" "$stage$lib"
done

# Modules: name -> file under moddir (module names treat - and _ alike).
declare -A seen=()
order=()
find_module() {
    local name=${1//-/_}
    local alt=${1//_/-}
    find "$moddir/kernel" \( -name "$name.ko" -o -name "$name.ko.*" -o -name "$alt.ko" -o -name "$alt.ko.*" \) \
        -print -quit
}
unpack_module() {  # src -> stage/modules/<name>.ko (uncompressed)
    local src=$1 dst=$2
    case "$src" in
        *.ko.xz) xz -dc "$src" >"$dst" ;;
        *.ko.zst) zstd -qdc "$src" >"$dst" ;;
        *.ko.gz) gzip -dc "$src" >"$dst" ;;
        *) cp "$src" "$dst" ;;
    esac
}
add_module() {  # depth-first: dependencies load first
    local name=${1//-/_}
    [ -n "${seen[$name]:-}" ] && return 0
    seen[$name]=1
    local src
    src=$(find_module "$name")
    if [ -z "$src" ]; then
        # Built into this kernel (=y): nothing to load. Say so when it is
        # not: a module that should exist but is missing is a real problem.
        echo "build-initramfs: module $name not found as a file (built in?)" >&2
        return 0
    fi
    local ko="$stage/modules/$name.ko"
    unpack_module "$src" "$ko"
    # .modinfo holds NUL-separated key=value strings, "depends=a,b" among them.
    local deps
    deps=$(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | head -n1)
    local d
    for d in ${deps//,/ }; do
        add_module "$d"
    done
    order+=("$name")
}
# The disk (virtio-pci + virtio-blk), ext4 and the checksum it asks the crypto
# API for at mount time (nobody is there to run modprobe for it).
for m in virtio_pci virtio_blk crc32c_generic ext4; do
    add_module "$m"
done
printf '%s\n' "${order[@]}" >"$stage/modules/order"

(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
