// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor probe: the least a probe that times reads can do, used by the
 * benchmark (docs/benchmarks.md) as the reference iolens's cost is judged
 * against. A task-storage timestamp on entry, a per-CPU log2 latency histogram
 * on exit, for pread64 calls of one process (tgid) only. Nothing else: no
 * ring buffer, no file identity, no shared state between CPUs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* x86_64 pread64. The benchmark is defined on x86_64 (as the workload is). */
#define FLOOR_NR_PREAD64 17
#define FLOOR_BUCKETS 64

/* Set by the loader between open and load. */
const volatile __u32 target_tgid = 0;

struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, __u64);
} start_ns SEC(".maps");

/* Bucket i holds latencies in [2^i, 2^(i+1)) ns (0 and 1 in bucket 0). */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __type(key, __u32);
    __type(value, __u64);
    __uint(max_entries, FLOOR_BUCKETS);
} hist SEC(".maps");

/* Entries whose timestamp could not be stored (task storage allocation
 * failed): those calls are missing from the histogram, so the loader reports
 * them rather than losing them silently. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __type(key, __u32);
    __type(value, __u64);
    __uint(max_entries, 1);
} missed SEC(".maps");

/* floor(log2(v)) for v > 0, 0 for 0. Branch- and loop-free: clang 14 crashes
 * on __builtin_clz* for the BPF target, so halve the search range with shifts. */
static __always_inline __u32 log2_u32(__u32 v) {
    __u32 r, s;

    r = (v > 0xFFFF) << 4;
    v >>= r;
    s = (v > 0xFF) << 3;
    v >>= s;
    r |= s;
    s = (v > 0xF) << 2;
    v >>= s;
    r |= s;
    s = (v > 0x3) << 1;
    v >>= s;
    r |= s;
    return r | (v >> 1);
}

static __always_inline __u32 log2_u64(__u64 v) {
    __u32 hi = v >> 32;

    return hi ? log2_u32(hi) + 32 : log2_u32((__u32)v);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter, struct pt_regs* regs, long id) {
    __u64* ts;

    if ((bpf_get_current_pid_tgid() >> 32) != target_tgid || id != FLOOR_NR_PREAD64) return 0;
    ts = bpf_task_storage_get(&start_ns, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (ts) {
        *ts = bpf_ktime_get_ns();
    } else {
        __u32 zero = 0;
        __u64* m = bpf_map_lookup_elem(&missed, &zero);

        if (m) *m += 1;
    }
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit, struct pt_regs* regs, long ret) {
    __u64 *ts, *slot;
    __u32 bucket;

    if ((bpf_get_current_pid_tgid() >> 32) != target_tgid) return 0;
    /* Only pread64 entries set a timestamp, so a non-zero one identifies the
     * exit of a timed call without reading the syscall number again. */
    ts = bpf_task_storage_get(&start_ns, bpf_get_current_task_btf(), 0, 0);
    if (!ts || !*ts) return 0;
    bucket = log2_u64(bpf_ktime_get_ns() - *ts);
    *ts = 0;
    if (bucket >= FLOOR_BUCKETS) bucket = FLOOR_BUCKETS - 1;
    slot = bpf_map_lookup_elem(&hist, &bucket);
    if (slot) *slot += 1;
    return 0;
}
