#!/bin/sh
# Installs everything iolens needs to build and test on Debian 12, as root.
# (python3-torch and torchvision: the privileged test that profiles a real
# PyTorch DataLoader job; they are Debian's, used with /usr/bin/python3.)
# (bpftrace, strace and time: the overhead benchmark's reference tracers,
# tools/bench/run and docs/benchmarks.md; fio: the outside check of the
# io_uring, AIO and syscall paths, tests/privileged/fio_check_test.cpp;
# strace and sqlite3: the outside check of real programs,
# tests/privileged/strace_check_test.cpp.)
# (clang-format-14: the Format.Clean test.)
# (chromium: the Html.Browser test loads `report --html` pages in it, headless.)
# (python3-dask, python3-pandas: the Export.DfTracer tests, which load the
# DFTracer export as DFAnalyzer does; protobuf-compiler: the Export.Perfetto
# test decodes the protobuf export with protoc --decode.)
# (dpkg-dev, file, lintian, man-db: the Debian package, cpack -G DEB with
# dpkg-shlibdeps, and its Package.Deb test, tests/package/check.sh.)
# (libclang-rt-14-dev: libFuzzer and the ASan/UBSan runtimes for clang-14,
# tools/fuzz/run.sh; only recommended by clang, so named here.)
# (qemu-system-x86 ... debian-archive-keyring: tools/kernel-matrix, which boots
# Debian kernels in software emulation and runs iolens self-test inside.)
set -eu
if [ "$(id -u)" != 0 ]; then
    echo "tools/install-deps.sh: run as root (it installs Debian packages)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    build-essential cmake pkg-config clang llvm libclang-rt-14-dev clang-format-14 \
    libbpf-dev bpftool libelf-dev libdw-dev libbpfcc libbpfcc-dev zlib1g-dev \
    libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libgtest-dev \
    strace bpftrace time fio sqlite3 tmux \
    dpkg-dev file lintian man-db \
    qemu-system-x86 busybox-static cpio e2fsprogs xz-utils zstd debian-archive-keyring \
    python3-torch python3-torchvision python3-pil python3-numpy python3-h5py \
    python3-dask python3-pandas protobuf-compiler chromium >/dev/null
echo "tools/install-deps.sh: dependencies installed"
