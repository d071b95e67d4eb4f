#!/bin/sh
# Builds the fuzz targets and the unit tests with ASan and UBSan (clang,
# -DIOLENS_FUZZ=ON, in build-fuzz/), runs the unit tests (label unit: no
# privileges) under the sanitizers, then each fuzz target for a bounded time
# on the committed seed corpus. Fails on a failing test, a crash, a leak, UB
# or a timeout. docs/fuzzing.md.
#
#   tools/fuzz/run.sh [target...]      default: every target
#
# IOLENS_FUZZ_SECONDS   seconds per target (default 90); 0 builds and runs
#                       the seeds only
# IOLENS_FUZZ_UNIT      0 skips the sanitized unit tests (default 1)
# IOLENS_FUZZ_BUILD_DIR the build tree (default build-fuzz beside build/)
# IOLENS_FUZZ_JOBS      targets fuzzed at once (default: the CPUs, at most
#                       the number of targets)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${IOLENS_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${IOLENS_FUZZ_SECONDS:-90}
targets=${*:-recording_fuzzer chunks_fuzzer partial_fuzzer}

cc=$(command -v clang-14 || command -v clang) || { echo "tools/fuzz/run.sh: needs clang" >&2; exit 1; }
cxx=$(command -v clang++-14 || command -v clang++)
launcher=
if command -v ccache >/dev/null; then launcher=-DCMAKE_CXX_COMPILER_LAUNCHER=ccache; fi
CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -DIOLENS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $launcher >/dev/null
build_targets=$targets
if [ "${IOLENS_FUZZ_UNIT:-1}" != 0 ]; then
    build_targets="$build_targets iolens_unit_tests iolens iolens-synth-recording"
fi
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" --target $build_targets

# Every finding is fatal and says where it is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "${IOLENS_FUZZ_UNIT:-1}" != 0 ]; then
    echo "== unit tests under ASan/UBSan"
    (cd "$build" && ctest -L unit -j"$(nproc)" --output-on-failure --timeout 600)
fi

jobs=${IOLENS_FUZZ_JOBS:-$(nproc)}
out=$build/fuzz
mkdir -p "$out/artifacts"
status=0
run_target() {
    t=$1
    # New inputs go to the working corpus in the build tree; the committed
    # seeds are only read.
    mkdir -p "$out/corpus/$t"
    if [ "$seconds" = 0 ]; then
        set -- -runs=0
    else
        set -- -max_total_time="$seconds"
    fi
    "$out/$t" "$@" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/$t-" \
        "$out/corpus/$t" "$root/tools/fuzz/corpus/$t" >"$out/$t.log" 2>&1
}
report() {
    t=$1 rc=$2
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1)
    if [ "$rc" = 0 ]; then
        echo "== $t: ok, ${runs:-?} executions in ${seconds} s ($out/$t.log)"
    else
        echo "== $t: FAILED (exit $rc): $out/$t.log, input in $out/artifacts/" >&2
        tail -n 60 "$out/$t.log" >&2
        status=1
    fi
}
pending=
for t in $targets; do
    run_target "$t" &
    pending="$pending $t:$!"
    if [ "$(echo $pending | wc -w)" -ge "$jobs" ]; then
        for p in $pending; do rc=0; wait "${p#*:}" || rc=$?; report "${p%%:*}" "$rc"; done
        pending=
    fi
done
for p in $pending; do rc=0; wait "${p#*:}" || rc=$?; report "${p%%:*}" "$rc"; done
exit $status
