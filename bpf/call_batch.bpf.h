/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-thread batches of syscall records.
 *
 * A cached 4 KiB read takes ~250 ns; a ring-buffer reservation and commit
 * per traced call added ~40 ns of it (the ring's lock, and the producer
 * position's cache line, which the recorder reads from another CPU; with two
 * busy threads the lock is contended too). So the short syscall records of a
 * thread (IOLENS_SC_CACHE_ZERO: nothing happened in the page cache or the
 * scheduler) are written into the thread's own state and copied into the ring
 * 14 at a time, as one ring-buffer sample holding several whole records (the
 * recorder and the recording file take records back to back anyway).
 *
 * What keeps this exact:
 *  - A thread's records stay in order: its batch is flushed before any other
 *    record the thread emits from this family (a full syscall record, a
 *    marker) and before execve, so its calls come before its exec record.
 *  - Nothing waits forever: the batch is flushed when the thread exits
 *    (sched_process_exit runs in the exiting thread), and when recording
 *    stops user space runs the drain_batches task iterator over the threads
 *    still alive, after detaching the syscall programs.
 *  - Nothing is lost silently: IOLENS_CNT_RECORDS counts a record when it
 *    enters the batch, so a batch that never reached the ring shows up as
 *    "undelivered"; a flush the full ring refused moves its records from
 *    RECORDS to RB_FULL.
 * Records of different threads are no longer in ring order; every consumer
 * orders by timestamps (docs/capture.md).
 *
 * The legacy build (kernels before 5.11) has no batches: each record goes to
 * the ring as it is made.
 */
#ifndef IOLENS_CALL_BATCH_BPF_H
#define IOLENS_CALL_BATCH_BPF_H

#include "thread_state.bpf.h"

static __always_inline void iolens_count_add(__u32 counter, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&iolens_counters, &counter);
	if (v)
		*v += n; /* per-CPU: no atomics needed; sums may wrap per CPU, not in total */
}

#ifndef IOLENS_LEGACY
static __always_inline void iolens_batch_flush(struct iolens_thread_state *st)
{
	__u32 len = st->batch_len;

	if (!len)
		return;
	st->batch_len = 0;
	if (len > IOLENS_CALL_BATCH_BYTES)
		return; /* cannot happen; bounds the copy for the verifier */
	if (bpf_ringbuf_output(&iolens_events, st->batch, len, iolens_wakeup_flag(IOLENS_RB_BYTES(len)))) {
		__u32 n = len / IOLENS_SYSCALL_REC_V1_SIZE; /* only short records are batched */

		iolens_count_add(IOLENS_CNT_RB_FULL, n);
		iolens_count_add(IOLENS_CNT_RECORDS, -(__u64)n);
	}
}

/* Room for a short syscall record at the end of the thread's batch (flushing
 * it first if full); the caller fills it. Counted as produced now. */
static __always_inline struct iolens_syscall_rec *iolens_batch_slot(struct iolens_thread_state *st)
{
	__u32 len = st->batch_len;

	if (len > IOLENS_CALL_BATCH_BYTES - IOLENS_SYSCALL_REC_V1_SIZE) {
		iolens_batch_flush(st);
		len = 0;
	}
	st->batch_len = len + IOLENS_SYSCALL_REC_V1_SIZE;
	iolens_count(IOLENS_CNT_RECORDS);
	return (struct iolens_syscall_rec *)&st->batch[len];
}
#else
static __always_inline void iolens_batch_flush(struct iolens_thread_state *st)
{
}
#endif

#endif /* IOLENS_CALL_BATCH_BPF_H */
