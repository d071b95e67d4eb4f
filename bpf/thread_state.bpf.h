/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-thread state shared by the families that follow a thread through a
 * syscall (syscalls, pagecache, blocking). Only those include this header:
 * a family that declares the state map carries it into its object, and on
 * kernels without task storage even an unused task-storage map fails the
 * whole object's load.
 */
#ifndef IOLENS_THREAD_STATE_BPF_H
#define IOLENS_THREAD_STATE_BPF_H

#include "common.bpf.h"

/* Bytes of syscall records a thread collects before they go to the ring
 * buffer in one piece: 14 short records. */
#define IOLENS_CALL_BATCH_BYTES 1024

/* What a tracked thread is doing, kept in task storage: the syscall in
 * flight (saved at entry, completed at exit) and what the page-cache and
 * scheduler probes observed meanwhile. */
/* The class a copy call (sendfile, copy_file_range, splice) has while in
 * flight: BPF-only, never in a record (its records are a read and a write). */
#define IOLENS_BPF_OP_COPY 15
/* io_submit and io_getevents/io_pgetevents in flight (bpf/aio.bpf.h): their
 * records are the iocbs', emitted at reaping. */
#define IOLENS_BPF_OP_AIO_SUBMIT 16
#define IOLENS_BPF_OP_AIO_REAP 17

struct iolens_thread_state {
	__u64 start_ns;
	__u64 args[6];
	__u16 nr;
	__u8 op;
	__u8 active;     /* a classified syscall is in flight */
	__u32 close_dev; /* close: the file is gone by exit, so identify it at entry */
	__u64 close_ino;
	__u32 close_mode;
	__u8 close_has_file;
	__u8 fault_pending; /* a file page fault began: fault_mapping, fault_index */
	__u16 ra_sync;      /* readahead started during the syscall */
	__u16 ra_async;
	__u16 stack_sent;           /* record --stacks: the thread has sent a stack */
	__u32 stack_countdown;      /* record --stacks: calls until the next sampled stack */
	__u64 fault_mapping;        /* the faulting address_space */
	__u64 fault_index;          /* and page index: a fault that brings it in is major */
	__u64 cache_in_bytes;       /* pages brought in during the syscall */
	__u64 readahead_bytes;      /* ... after it started readahead */
	__u64 blocked_ns;           /* uninterruptible off-CPU time during the syscall */
	__u64 offcpu_since_ns;      /* switched out uninterruptibly at this time, or 0 */
	__u64 main_offcpu_since_ns; /* main thread: went to sleep at this time, or 0 */
	__u32 main_offcpu_state;
	__u32 pad2;
	/* Copy calls (sendfile, copy_file_range, splice): the offsets their
	 * offset pointers held at entry, or IOLENS_NO_OFFSET (the file position). */
	__u64 copy_off_in;
	__u64 copy_off_out;
	/* ... and the destination file: pages of it the call adds to the page
	 * cache are the copy's writes, not misses of its read. */
	__u64 copy_dst_ino;
	__u32 copy_dst_dev;
	__u32 pad3;
	/* The pages the syscall asked for, [ra_req_lo, ra_req_hi), as the
	 * readahead tracepoints tell them (set at the call's first readahead,
	 * when ra_sync + ra_async is 0): pages it adds outside are readahead. */
	__u64 ra_req_lo;
	__u64 ra_req_hi;
#ifndef IOLENS_LEGACY
	/* Syscall records waiting to go to the ring buffer together
	 * (bpf/call_batch.bpf.h). Not in the legacy build, whose state lives
	 * in a preallocated hash where 1 KiB a thread would cost 32 MiB. */
	__u32 batch_len;   /* bytes of records in batch */
	__u32 batch_calls; /* calls in batch (a run counts each of its calls) */
	/* The run the batch ends with, if run_open (IOLENS_REC_SYSCALL_RUN,
	 * bpf/call_batch.bpf.h): where its record starts in batch, what a
	 * further call must share with it, its stride once run_strided, the
	 * offset of its last call and when that call ended. */
	__u8 run_open;
	__u8 run_strided;
	__u8 run_flags;
	__u8 run_op; /* the class: a copy call's read and write share a syscall */
	__u32 run_at;
	__s32 run_fd;
	__u32 run_nr;
	__u32 run_dev;
	__u32 run_pad2;
	__u64 run_ino;
	__s64 run_ret;
	__u64 run_requested;
	__u64 run_offset;
	__u64 run_stride;
	__u64 run_end_ns;
	__u8 batch[IOLENS_CALL_BATCH_BYTES];
#endif
};

/*
 * Where that state lives depends on the build variant (CMake compiles the
 * families that keep it twice; user space picks by feature probing):
 *  - default: task storage, freed with the task, found without hashing;
 *  - IOLENS_LEGACY (kernels before 5.11, which have neither task storage for
 *    tracing programs nor bpf_get_current_task_btf()): an LRU hash keyed by
 *    thread id. Entries of exited threads are never deleted; the LRU recycles
 *    them, and a reused thread id starts clean because sys_enter resets the
 *    state before every traced call.
 * iolens_current_state() is the running thread's state; iolens_task_state()
 * another task's (the scheduler probe sees two). create: allocate if absent.
 */
#ifdef IOLENS_LEGACY
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, struct iolens_thread_state);
	__uint(max_entries, 32768);
} iolens_threads_by_tid SEC(".maps");

static const struct iolens_thread_state iolens_state_zero;

static __always_inline struct iolens_thread_state *iolens_state_of_tid(__u32 tid, bool create)
{
	if (!create)
		return bpf_map_lookup_elem(&iolens_threads_by_tid, &tid);
	return iolens_lookup_or_init(&iolens_threads_by_tid, &tid, &iolens_state_zero);
}
#define iolens_current_state(create) iolens_state_of_tid((__u32)bpf_get_current_pid_tgid(), (create))
#define iolens_task_state(task, create) iolens_state_of_tid(BPF_CORE_READ((task), pid), (create))
#else
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct iolens_thread_state);
} iolens_threads SEC(".maps");

#define iolens_task_state(task, create)                                                                      \
	((struct iolens_thread_state *)bpf_task_storage_get(&iolens_threads, (task), 0,                      \
	                                                    (create) ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0))
#define iolens_current_state(create) iolens_task_state(bpf_get_current_task_btf(), (create))
#endif

#endif /* IOLENS_THREAD_STATE_BPF_H */
