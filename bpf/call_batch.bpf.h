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

	__u32 n = st->batch_calls;

	if (!len)
		return;
	st->batch_len = 0;
	st->batch_calls = 0;
	st->run_open = 0;
	if (len > IOLENS_CALL_BATCH_BYTES)
		return; /* cannot happen; bounds the copy for the verifier */
	if (bpf_ringbuf_output(&iolens_events, st->batch, len, iolens_wakeup_flag(IOLENS_RB_BYTES(len)))) {
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
	st->batch_calls++;
	st->run_open = 0;
	iolens_count(IOLENS_CNT_RECORDS);
	return (struct iolens_syscall_rec *)&st->batch[len];
}

/*
 * Runs (IOLENS_REC_SYSCALL_RUN in iolens/abi.h). A short record of a read or
 * write that moved bytes at a known offset may start a run while it is the
 * last record of the batch. A further call of the thread that continues it --
 * the same syscall and class (a copy call sends a read and a write), flags,
 * fd and file, the same bytes asked for and moved,
 * at the run's stride from the last one's offset (the first further call
 * sets the stride: ret for sequential pieces, 0 for the same bytes again) --
 * is then 8 bytes appended to the run (its gap and duration) instead of a
 * 72-byte record. The first one turns the record into a run: its type
 * changes and the stride goes after it. True when the call went into the
 * run; the caller writes a record otherwise, and offers it as the start of
 * the next run (iolens_run_offer).
 */
#define IOLENS_BATCH_OFF_MASK ((IOLENS_CALL_BATCH_BYTES - 1) & ~7u)

static __always_inline bool iolens_run_extend(struct iolens_thread_state *st, __u64 now, long ret,
                                              __u64 requested, __u64 offset, __s32 fd, __u8 flags, __u32 dev,
                                              __u64 ino)
{
	struct iolens_syscall_run_entry *e;
	struct iolens_rec_hdr *hdr;
	__u32 len = st->batch_len, at = st->run_at;
	__u64 gap = st->start_ns - st->run_end_ns, dur = now - st->start_ns;
	__u64 stride = offset - st->run_offset;
	bool first = !st->run_strided;
	__u32 add = first ? sizeof(__u64) + sizeof(*e) : sizeof(*e);

	if (!st->run_open || ret != st->run_ret || requested != st->run_requested || ino != st->run_ino ||
	    dev != st->run_dev || fd != st->run_fd || flags != st->run_flags || st->nr != st->run_nr ||
	    st->op != st->run_op || (!first && stride != st->run_stride))
		return false;
	if (st->start_ns < st->run_end_ns || gap > 0xffffffffULL || dur > 0xffffffffULL)
		return false;
	if (len > IOLENS_CALL_BATCH_BYTES - add || at > IOLENS_CALL_BATCH_BYTES - IOLENS_SYSCALL_REC_V1_SIZE)
		return false; /* full: the call starts the next batch */
	/* Offsets are multiples of 8: the masks change nothing but keep the
	 * bounds in the register that indexes (older verifiers lose a bound
	 * checked above once the value is spilled to the stack and reloaded). */
	hdr = (struct iolens_rec_hdr *)&st->batch[at & IOLENS_BATCH_OFF_MASK];
	if (first) {
		/* The batch ends with the run's record: the stride goes after it. */
		hdr->type = IOLENS_REC_SYSCALL_RUN;
		*(__u64 *)&st->batch[len & IOLENS_BATCH_OFF_MASK] = stride;
		st->run_stride = stride;
		st->run_strided = 1;
		len += sizeof(__u64);
	}
	hdr->size += add;
	e = (struct iolens_syscall_run_entry *)&st->batch[len & IOLENS_BATCH_OFF_MASK];
	e->gap_ns = gap;
	e->duration_ns = dur;
	st->batch_len = len + sizeof(*e);
	st->batch_calls++;
	st->run_offset = offset;
	st->run_end_ns = now;
	iolens_count(IOLENS_CNT_RECORDS);
	return true;
}

/* rec, the short record just written at the end of the batch, may start a
 * run (see above). */
static __always_inline void iolens_run_offer(struct iolens_thread_state *st, struct iolens_syscall_rec *rec,
                                             __u64 now)
{
	if ((rec->op != IOLENS_OP_READ && rec->op != IOLENS_OP_WRITE) || rec->ret <= 0 ||
	    rec->offset == IOLENS_NO_OFFSET)
		return;
	st->run_open = 1;
	st->run_strided = 0;
	st->run_at = st->batch_len - IOLENS_SYSCALL_REC_V1_SIZE;
	st->run_flags = rec->flags;
	st->run_op = st->op;
	st->run_fd = rec->fd;
	st->run_nr = st->nr;
	st->run_dev = rec->dev;
	st->run_ino = rec->ino;
	st->run_ret = rec->ret;
	st->run_requested = rec->requested;
	st->run_offset = rec->offset;
	st->run_end_ns = now;
}
#else
static __always_inline void iolens_batch_flush(struct iolens_thread_state *st)
{
}
#endif

#endif /* IOLENS_CALL_BATCH_BPF_H */
