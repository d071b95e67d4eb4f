/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Maps and helpers shared by every iolens BPF program. Each probe family's
 * object declares these maps; user space creates them once (with the first
 * object it loads) and hands the same fds to the others (bpf_map__reuse_fd),
 * so all families share one tracked-process set, one ring buffer and one set
 * of counters (iolens_runs excepted: each object keeps its own).
 */
#ifndef IOLENS_COMMON_BPF_H
#define IOLENS_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "iolens/abi.h"
#include "core_fixes.bpf.h"

/* Tunables, set by user space between open and load. */
/* Wake the consumer each time a CPU has produced another 2^shift bytes:
 * batching wake-ups keeps the per-event cost low; the consumer also polls
 * on a short timer, so what a quiet CPU produced is read within that time. */
const volatile __u32 iolens_wakeup_shift = 18; /* 256 KiB */

/*
 * Tracepoints whose prototype changed between kernels. IOLENS_TP_ARITY(tp)
 * declares iolens_arity_<tp>, which user space sets to the argument count of
 * the running kernel's prototype (its BTF) before load; IOLENS_TP_ARG(ctx, tp,
 * old_arity, old_at, at) is the argument at index `at`, or at `old_at` on a
 * kernel whose prototype has old_arity arguments. The value is a constant of
 * the read-only data, so the verifier sees only the position this kernel
 * has: one program fits both prototypes.
 */
#define IOLENS_TP_ARITY(tp) const volatile __u32 iolens_arity_##tp = 0
/* Argument n of a tracepoint's context, each position its own load: the
 * compiler would otherwise merge two loads into one from a computed
 * address, which the verifier rejects for a context pointer. */
#define IOLENS_CTX_ARG(ctx, n)                                                                               \
	({                                                                                                   \
		unsigned long long __arg;                                                                    \
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(__arg) : "r"(ctx), "i"((n)*8));                 \
		__arg;                                                                                       \
	})
#define IOLENS_TP_ARG(ctx, tp, old_arity, old_at, at)                                                        \
	(iolens_arity_##tp == (old_arity) ? IOLENS_CTX_ARG(ctx, old_at) : IOLENS_CTX_ARG(ctx, at))

/* Tracked processes: one byte per tgid (8 per array slot), so the hot-path
 * filter is an inlined array lookup and a byte load, and updates are plain
 * byte stores: kernels before 5.12 have no atomic OR/AND for BPF, and a byte
 * store never clobbers a neighbour's byte that another CPU (or user space,
 * through the mmap-able map) writes at the same time. Sized by user space
 * from /proc/sys/kernel/pid_max (4 MiB at the largest pid_max). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 524288); /* 4M pids; resized at load */
} iolens_tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 * 1024 * 1024); /* resized at load */
} iolens_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, IOLENS_CNT_COUNT);
} iolens_counters SEC(".maps");

/* Runs of this object's programs, per CPU (struct iolens_run_count): every
 * run counted, one in 2^IOLENS_TIMED_SHIFT timed by the program itself, from
 * which user space estimates the time of them all. The kernel's statistics
 * are not needed for it (see iolens/abi.h for what they cost); with
 * `record --bpf-stats always` they time every run as well, as a reference.
 * One per object: user space does not share it between families
 * (probe_set.cpp). The iterators that run after the capture do not count. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct iolens_run_count);
	__uint(max_entries, 1);
} iolens_runs SEC(".maps");

/* First thing in every program: counts the run; returns its start time when
 * this run is one to time, else 0. Per CPU: no atomics needed (a program
 * nested in an interrupt on the same CPU may, rarely, lose one count). */
static __always_inline __u64 iolens_ran(void)
{
	__u32 zero = 0;
	struct iolens_run_count *v = bpf_map_lookup_elem(&iolens_runs, &zero);

	if (!v)
		return 0;
	v->runs += 1;
	/* The runs to time by a hash of the count, not every 64th run: the
	 * syscall family's entry and exit alternate on a CPU, and a plain
	 * stride would time only one of them (a Fibonacci hash of n spreads
	 * over both parities, and any short cycle, evenly). */
	if ((v->runs * 0x9E3779B97F4A7C15ull) >> (64 - IOLENS_TIMED_SHIFT))
		return 0;
	return bpf_ktime_get_ns();
}

/* Last thing: adds a timed run's time (t0 from iolens_ran). */
static __always_inline void iolens_ran_done(__u64 t0)
{
	__u32 zero = 0;
	struct iolens_run_count *v;

	if (!t0)
		return;
	v = bpf_map_lookup_elem(&iolens_runs, &zero);
	if (!v)
		return;
	v->timed_runs += 1;
	v->timed_ns += bpf_ktime_get_ns() - t0;
}

/* A program's body, counted and (one run in 2^IOLENS_TIMED_SHIFT) timed:
 * `return IOLENS_RUN(on_something(args));` */
#define IOLENS_RUN(body)                                                                                     \
	({                                                                                                   \
		__u64 __iolens_t0 = iolens_ran();                                                            \
		int __iolens_ret = (body);                                                                   \
		iolens_ran_done(__iolens_t0);                                                                \
		__iolens_ret;                                                                                \
	})

/* Files (dev, ino) that tracked processes opened or faulted on, so evictions
 * of their pages (which happen in any task's context) can be attributed.
 * Value: tgid of the first process seen with the file. */
struct iolens_inode_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct iolens_inode_key);
	__type(value, __u32);
	__uint(max_entries, 65536);
} iolens_watched_inodes SEC(".maps");

static __always_inline void iolens_count(__u32 counter)
{
	__u64 *v = bpf_map_lookup_elem(&iolens_counters, &counter);
	if (v)
		*v += 1; /* per-CPU: no atomics needed */
}

static __always_inline bool iolens_is_tracked(__u32 tgid)
{
	__u32 slot = tgid >> 3;
	__u8 *bytes = bpf_map_lookup_elem(&iolens_tracked, &slot);
	return bytes && bytes[tgid & 7];
}

static __always_inline void iolens_set_tracked(__u32 tgid, bool on)
{
	__u32 slot = tgid >> 3;
	__u8 *bytes = bpf_map_lookup_elem(&iolens_tracked, &slot);

	if (!bytes) {
		if (on)
			iolens_count(IOLENS_CNT_PID_RANGE);
		return;
	}
	bytes[tgid & 7] = on;
}

/* Count `bytes` more ring-buffer bytes produced on this CPU and say whether
 * the consumer should be woken: when the count crosses a multiple of
 * 2^iolens_wakeup_shift. A per-CPU count, not bpf_ringbuf_query(): asking
 * the ring how much is unread reads the consumer's position, a cache line
 * the recorder writes from another CPU, and cost ~55 ns per record (kernel
 * BPF statistics, 4M cached preads, docs/benchmarks.md). */
static __always_inline __u64 iolens_wakeup_flag(__u64 bytes)
{
	__u32 key = IOLENS_CNT_RB_BYTES;
	__u64 *produced = bpf_map_lookup_elem(&iolens_counters, &key);
	__u64 before;

	if (!produced)
		return BPF_RB_NO_WAKEUP;
	before = *produced;
	*produced = before + bytes; /* per-CPU: no atomics needed */
	return (before >> iolens_wakeup_shift) != ((before + bytes) >> iolens_wakeup_shift)
		? BPF_RB_FORCE_WAKEUP
		: BPF_RB_NO_WAKEUP;
}

/* Reserve a fixed-size record; counts the loss when the ring is full. */
static __always_inline void *iolens_reserve(__u64 size)
{
	void *rec = bpf_ringbuf_reserve(&iolens_events, size, 0);
	if (!rec)
		iolens_count(IOLENS_CNT_RB_FULL);
	return rec;
}

/* Ring-buffer bytes a record of `size` takes: an 8-byte header, 8-aligned. */
#define IOLENS_RB_BYTES(size) ((((__u64)(size)) + 8 + 7) & ~7ULL)

/* Submit a record reserved with iolens_reserve(size). */
static __always_inline void iolens_submit_sized(void *rec, __u64 size)
{
	bpf_ringbuf_submit(rec, iolens_wakeup_flag(IOLENS_RB_BYTES(size)));
	iolens_count(IOLENS_CNT_RECORDS);
}
#define iolens_submit(rec) iolens_submit_sized((rec), sizeof(*(rec)))

/* Copy a variable-length record (built in scratch memory) into the ring;
 * false when the ring was full. urgent: wake the consumer now (it must act
 * while the process lives). */
static __always_inline bool iolens_output(void *rec, __u64 size, bool urgent)
{
	__u64 flag = iolens_wakeup_flag(IOLENS_RB_BYTES(size));

	if (urgent)
		flag = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&iolens_events, rec, size, flag) == 0) {
		iolens_count(IOLENS_CNT_RECORDS);
		return true;
	}
	iolens_count(IOLENS_CNT_RB_FULL);
	return false;
}

/* Inserts *value under key unless the key is there already: 0 when it is
 * there now (inserted, or found), else the map's error (a full map). */
static __always_inline int iolens_map_insert(void *map, const void *key, const void *value)
{
	int err = iolens_map_err(bpf_map_update_elem(map, key, value, BPF_NOEXIST));

	return err == -IOLENS_EEXIST ? 0 : err;
}

/* The value under key, inserted from *init first if there is none (BCC's
 * bpf_map_lookup_or_try_init); NULL when the insert failed (a full map). A
 * concurrent insert of the same key is found, not overwritten. */
static __always_inline void *iolens_lookup_or_init(void *map, const void *key, const void *init)
{
	void *value = bpf_map_lookup_elem(map, key);

	if (value || iolens_map_insert(map, key, init))
		return value;
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void iolens_watch_inode(__u32 dev, __u64 ino, __u32 tgid)
{
	struct iolens_inode_key key = {.ino = ino, .dev = dev};

	if (iolens_map_insert(&iolens_watched_inodes, &key, &tgid))
		iolens_count(IOLENS_CNT_INODE_MAP_FULL);
}

#endif /* IOLENS_COMMON_BPF_H */
