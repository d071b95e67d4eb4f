/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The C ABI shared by the BPF programs and the C++ frontend.
 *
 * Every record the kernel side emits into the ring buffer starts with a
 * struct iolens_rec_hdr carrying its type and its size in bytes, so the
 * consumer (and the recording-file reader) can walk a byte stream of records
 * without knowing every type. The recorder copies records verbatim into the
 * recording file, so these layouts ARE the on-disk event format too:
 *   - enums are append-only: never renumber, never reuse a value;
 *   - structs only grow at their end, with explicit padding, and the size
 *     asserts at the bottom of this file are checked on both sides.
 */
#ifndef IOLENS_ABI_H
#define IOLENS_ABI_H

#ifdef __bpf__
/* BPF side: the fixed-width types come from vmlinux.h, included first. */
#else
#include <linux/types.h>
#endif

#define IOLENS_COMM_LEN 16
/* Bytes of path components carried by one file record (see struct
 * iolens_file_rec). Must be a power of two: the BPF side masks offsets. */
#define IOLENS_PATH_BYTES 4096
/* Deepest directory nesting the in-kernel path walk follows. */
#define IOLENS_PATH_DEPTH 48
/* Bytes of the exec'd command line captured at exec (power of two). */
#define IOLENS_ARGS_BYTES 1024
/* Sentinel for "no file offset applies" (e.g. stat, open). */
#define IOLENS_NO_OFFSET (~0ULL)

/* Record types (append-only). */
enum iolens_rec_type {
	IOLENS_REC_SYSCALL = 1,      /* struct iolens_syscall_rec */
	IOLENS_REC_FILE = 2,         /* struct iolens_file_rec (variable length) */
	IOLENS_REC_FORK = 3,         /* struct iolens_proc_rec */
	IOLENS_REC_EXEC = 4,         /* struct iolens_exec_rec (variable length) */
	IOLENS_REC_EXIT = 5,         /* struct iolens_proc_rec */
	IOLENS_REC_PAGECACHE = 6,    /* struct iolens_pagecache_rec */
	IOLENS_REC_BLOCK = 7,        /* struct iolens_block_rec */
	IOLENS_REC_MARKER = 8,       /* struct iolens_marker_rec (variable length) */
	IOLENS_REC_OFFCPU = 9,       /* struct iolens_offcpu_rec */
	IOLENS_REC_STACK = 10,       /* struct iolens_stack_rec (variable length) */
	IOLENS_REC_SYSCALL_RUN = 11, /* a run of calls: struct iolens_syscall_run_entry (variable length) */
};

/* record --stacks: user frames a stack record carries at most, and bytes of
 * the user stack the kernel copies from the stack pointer (for the recorder's
 * unwinding by .eh_frame: see struct iolens_stack_rec). */
#define IOLENS_STACK_DEPTH 64
#define IOLENS_STACK_COPY 8192

/* Markers: a tracked process calls access()/faccessat()/faccessat2() on a path
 * under this prefix (the call fails harmlessly: the directory does not exist).
 * "/.iolens/epoch/N" starts epoch N, "/.iolens/step/N" marks a step,
 * "/.iolens/end" ends training. */
#define IOLENS_MARKER_PREFIX "/.iolens/"
#define IOLENS_MARKER_PREFIX_LEN 9
#define IOLENS_MARKER_BYTES 64

/* struct iolens_pagecache_rec.kind (append-only) */
enum iolens_pagecache_kind {
	/* Pages a tracked thread brought into the page cache outside any traced
	 * syscall: page faults on file mappings (mmap), fault-around, readahead
	 * started by a fault. */
	IOLENS_PC_FAULT_IN = 1,
	/* Pages of a file a tracked process opened or faulted on, removed from
	 * the page cache (reclaim, truncation, drop_caches), by any task. */
	IOLENS_PC_EVICT = 2,
	/* Written when recording stops: pages the traced job read ahead during
	 * the capture that are still in the page cache (first_ns: when the
	 * earliest was added). Whether the job read them is the model's
	 * judgement (docs/findings.md, readahead_waste). */
	IOLENS_PC_RESIDENT = 3,
};

/* struct iolens_pagecache_rec.flags */
enum iolens_pagecache_flags {
	IOLENS_PCF_MAJOR_FAULT = 1 << 0,  /* FAULT_IN: the first page brought in by a
	                                   * file page fault (counts one major fault) */
	IOLENS_PCF_UNREFERENCED = 1 << 1, /* EVICT, recordings before readahead
	                                   * tracking only: the page's referenced
	                                   * flag was clear when it left the cache
	                                   * (reclaim clears it, so it says little;
	                                   * no longer written) */
	IOLENS_PCF_READAHEAD = 1 << 2,    /* EVICT, RESIDENT: ra_bytes of the range
	                                   * were read ahead by the traced job during
	                                   * the capture (past what its read asked
	                                   * for), the earliest at first_ns */
	IOLENS_PCF_BY_JOB = 1 << 3,       /* EVICT: removed by a thread of a traced
	                                   * process outside memory reclaim (its own
	                                   * POSIX_FADV_DONTNEED, truncate, unlink,
	                                   * O_DIRECT write): not memory pressure */
};

/* struct iolens_block_rec.op */
enum iolens_block_op {
	IOLENS_BLK_READ = 0,
	IOLENS_BLK_WRITE = 1,
	IOLENS_BLK_OTHER = 2, /* flush, discard, write-zeroes, ... */
};

/* struct iolens_block_rec.flags */
enum iolens_block_flags {
	IOLENS_BLKF_QUEUED = 1 << 0, /* passed through an I/O scheduler: queue_ns is valid */
};

/* Syscall classes (append-only; also the order of the report tables). */
enum iolens_op {
	IOLENS_OP_READ = 0,    /* read, pread64, readv, preadv, preadv2 */
	IOLENS_OP_WRITE = 1,   /* write, pwrite64, writev, pwritev, pwritev2 */
	IOLENS_OP_OPEN = 2,    /* open, openat, openat2, creat */
	IOLENS_OP_CLOSE = 3,   /* close */
	IOLENS_OP_STAT = 4,    /* stat, lstat, fstat, newfstatat, statx, access, faccessat, faccessat2 */
	IOLENS_OP_SEEK = 5,    /* lseek */
	IOLENS_OP_MMAP = 6,    /* mmap of a file */
	IOLENS_OP_READDIR = 7, /* getdents64 */
	IOLENS_OP_SYNC = 8,    /* fsync, fdatasync, sync_file_range */
	IOLENS_OP_COUNT = 9,
};

/* struct iolens_syscall_rec.flags */
enum iolens_syscall_flags {
	IOLENS_SC_HAS_FILE = 1 << 0,  /* dev/ino/offset identify a file */
	IOLENS_SC_REGULAR = 1 << 1,   /* the file is a regular file */
	IOLENS_SC_DIRECT = 1 << 2,    /* opened with O_DIRECT */
	IOLENS_SC_IOV_TRUNC = 1 << 3, /* requested bytes counted only the first iovecs */
	/* A IOLENS_SYSCALL_REC_V1_SIZE record whose page-cache fields were all
	 * zero and left out (a third less ring-buffer and file space for the
	 * common cached call). Without this flag a short record is one from
	 * before those fields existed: its page-cache activity is unknown. */
	IOLENS_SC_CACHE_ZERO = 1 << 4,
	/* Bits 5-6: the data path the call took (enum iolens_path). Records
	 * from before paths existed have 0 there: a plain syscall. */
	IOLENS_SC_PATH_SHIFT = 5,
	IOLENS_SC_PATH_MASK = 3 << 5,
	/* An io_uring request that went to an io-wq worker thread (not inline). */
	IOLENS_SC_OFFLOADED = 1 << 7,
};

/* How a call's data reached its file (append-only; 2 bits of
 * iolens_syscall_rec.flags). Every path lands in the same class tables. */
enum iolens_path {
	IOLENS_PATH_SYSCALL = 0, /* read, write, ... (the class's own syscalls) */
	/* sendfile, copy_file_range, splice: one call is two records, a read of
	 * the source file and a write of the destination, each charged to its
	 * file (a side that is a pipe or a socket has no record). */
	IOLENS_PATH_COPY = 1,
	IOLENS_PATH_AIO = 2,      /* Linux AIO: an iocb from io_submit to its io_event */
	IOLENS_PATH_IO_URING = 3, /* an io_uring request from submission to completion */
	IOLENS_PATH_COUNT = 4,
};

/* struct iolens_file_rec.flags */
enum iolens_file_flags {
	IOLENS_FILE_TRUNCATED = 1 << 0, /* path walk stopped early: path is a suffix */
};

/*
 * Kernel-side counters, one per-CPU array slot each, defined once here: the
 * enum below, the names in recordings (kernel_counters, lost_detail), the
 * recorder's loss list and the tables in docs/capture.md all come from this
 * list (tests/unit/counters_test.cpp checks the docs against it).
 * X(id, value, JSON name, loss, meaning):
 *   - append-only: never renumber, never reuse a value, never rename (the
 *     names are in recordings on disk);
 *   - loss 1: each count is a record (or a syscall) that never reached the
 *     recording: shown in lost_detail and summed into lost_events.
 */
#define IOLENS_COUNTERS(X)                                                                                   \
	X(RECORDS, 0, "records", 0, "records submitted to the ring buffer")                                  \
	X(RB_FULL, 1, "ring_buffer_full", 1, "a record could not be reserved: the consumer fell behind")     \
	X(STATE_FAIL, 2, "no_thread_state", 1,                                                               \
	  "a syscall entry could not get its per-thread slot (task storage, or the legacy build's hash)")    \
	X(PID_RANGE, 3, "pid_above_bitmap", 1,                                                               \
	  "a new tracked process had a pid above `pid_max` at load time (the name predates the "             \
	  "one-byte-per-pid set)")                                                                           \
	X(PATH_TRUNC, 4, "path_truncated", 0,                                                                \
	  "file paths cut short: the walk stopped early, the path is a suffix")                              \
	X(BLOCK_UNMATCHED, 5, "block_issued_before_start", 0,                                                \
	  "block completions whose issue was not seen (issued before tracing started)")                      \
	X(INODE_MAP_FULL, 6, "inode_watch_full", 1,                                                          \
	  "a traced file could not join the eviction watch list (65,536 files): evictions of its pages are " \
	  "not seen")                                                                                        \
	/* Ring-buffer bytes this CPU produced: the producers decide when to wake                            \
	 * the consumer from it instead of asking the ring how much is unread,                               \
	 * which costs a cache miss on the consumer's position. */                                           \
	X(RB_BYTES, 7, "ring_bytes", 0, "ring-buffer bytes produced (the producers' wake-up schedule)")      \
	X(BLOCK_REQ_FULL, 8, "block_request_map_full", 1,                                                    \
	  "a block request could not be traced: the in-flight request map (16,384) was full when it was "    \
	  "issued")                                                                                          \
	X(BLOCK_MAP_FAIL, 9, "block_map_update_failed", 0,                                                   \
	  "a block request's submitter, insert time or queue depth could not be kept (a block-layer map "    \
	  "was full)")                                                                                       \
	X(AIO_UNMATCHED, 10, "aio_event_unmatched", 0,                                                       \
	  "AIO completions (io_events) whose io_submit was not seen: submitted before tracing began")        \
	X(AIO_MAP_FULL, 11, "aio_request_map_full", 1,                                                       \
	  "an AIO request could not be followed: the in-flight map (65,536) was full when it was submitted") \
	X(AIO_BATCH_CUT, 12, "aio_batch_cut", 1,                                                             \
	  "iocbs or io_events of one io_submit or io_getevents call past the first 65,536 (64 before "       \
	  "5.17): not followed")                                                                             \
	X(IOU_MAP_FULL, 13, "io_uring_request_map_full", 1,                                                  \
	  "an io_uring request could not be followed: the in-flight map (65,536) was full when it was "      \
	  "submitted")                                                                                       \
	X(PC_BUDGET, 14, "pagecache_over_budget", 1,                                                         \
	  "page-cache records (runs of folios faulted in or evicted) past a CPU's budget (8,192 per 100 "    \
	  "ms): their bytes are missing from the fault and eviction totals")                                 \
	X(PC_READAHEAD_FULL, 15, "readahead_watch_full", 0,                                                  \
	  "read-ahead folios not followed to their eviction: the watch map (131,072 folios) was full (the "  \
	  "readahead never read can only be undercounted)")

enum iolens_counter {
#define IOLENS_COUNTER_ENUM(id, value, name, loss, meaning) IOLENS_CNT_##id = value,
	IOLENS_COUNTERS(IOLENS_COUNTER_ENUM)
#undef IOLENS_COUNTER_ENUM
#define IOLENS_COUNTER_ONE(id, value, name, loss, meaning) +1
		IOLENS_CNT_COUNT = 0 IOLENS_COUNTERS(IOLENS_COUNTER_ONE),
#undef IOLENS_COUNTER_ONE
};

/* A probe family's runs, per CPU (iolens_runs, bpf/common.bpf.h): every run
 * is counted, and one in 2^IOLENS_TIMED_SHIFT is timed by the program itself
 * (its start to its end): user space scales the timed runs' time to all the
 * runs. The kernel's own BPF statistics (BPF_ENABLE_STATS) time every run of
 * every program, but switching them on and off patches the kernel's text
 * (a static key: a few ms of the recorder's CPU and a stall of every CPU
 * each time on a VM), and while on they add two clock reads to every run. */
#define IOLENS_TIMED_SHIFT 6
struct iolens_run_count {
	__u64 runs;       /* every run */
	__u64 timed_runs; /* the runs timed: one in 2^IOLENS_TIMED_SHIFT */
	__u64 timed_ns;   /* their time, summed */
};

/* Every record starts with this header. */
struct iolens_rec_hdr {
	__u16 type; /* enum iolens_rec_type */
	__u16 size; /* bytes of the whole record, header included */
};

/* One completed syscall of a tracked process. */
struct iolens_syscall_rec {
	struct iolens_rec_hdr hdr;
	__u16 syscall_nr; /* the architecture's syscall number */
	__u8 op;          /* enum iolens_op */
	__u8 flags;       /* enum iolens_syscall_flags */
	__u32 pid;        /* tgid */
	__u32 tid;
	__u64 start_ns;    /* CLOCK_MONOTONIC at entry */
	__u64 duration_ns; /* entry to exit */
	__s64 ret;         /* the syscall's return value (negative errno on error) */
	__u64 requested;   /* bytes asked for (read/write count, iovec total, mmap length) */
	__u64 offset;      /* file offset where the access began, or IOLENS_NO_OFFSET */
	__u64 ino;
	__u32 dev; /* kernel dev_t: major << 20 | minor */
	__s32 fd;  /* fd the call used or returned, -1 if none */
	/* --- page cache (zero when the pagecache probes are not live) --- */
	/* Bytes this thread brought into the page cache during the call (misses,
	 * including the readahead the call triggered). */
	__u64 cache_in_bytes;
	/* Of those, bytes brought in after the call triggered readahead. */
	__u64 readahead_bytes;
	/* Time the thread spent off CPU in uninterruptible sleep during the call
	 * (waiting for I/O), when the blocking probe is live. */
	__u64 blocked_ns;
	__u16 ra_sync;  /* synchronous readahead started during the call */
	__u16 ra_async; /* asynchronous readahead started during the call */
	__u32 pad1;
};
/* Size of a syscall record before the page-cache fields: readers accept both. */
#define IOLENS_SYSCALL_REC_V1_SIZE 72

/*
 * A run of a thread's calls, lossless (IOLENS_REC_SYSCALL_RUN): a thread that
 * reads (or writes) a file in equal pieces one after the other -- sequential
 * pieces, the same bytes again, or any fixed stride -- sends its first call
 * as a short syscall record (the first IOLENS_SYSCALL_REC_V1_SIZE bytes of
 * struct iolens_syscall_rec, IOLENS_SC_CACHE_ZERO set, ret > 0) whose header
 * has this type, then the run's stride (__s64: the offset from one call to
 * the next), then one entry per further call (at least one): hdr.size =
 * IOLENS_SYSCALL_REC_V1_SIZE + 8 + 8 * entries. Each further call has the
 * fields of the one before it (syscall, class, flags, pid, tid, fd, file,
 * ret, requested), its offset is the one before's plus the stride, and it
 * starts gap_ns after the one before ended. Readers expand a run into the
 * very records it stands for (model/record_walk.h), so a report is the same
 * either way; the kernel side sends 8 bytes a call instead of 72.
 */
struct iolens_syscall_run_entry {
	__u32 gap_ns;      /* from the previous call's end to this call's start */
	__u32 duration_ns; /* entry to exit */
};

/* Identity and absolute path of a file a tracked process opened.
 * path holds path_len bytes: the components leaf first, each followed by a
 * NUL ("c.bin\0data\0home\0" is /home/data/c.bin); the reader reverses them.
 * Only path_len bytes of path are present in the record (hdr.size says so). */
struct iolens_file_rec {
	struct iolens_rec_hdr hdr;
	__u16 path_len;
	__u8 flags; /* enum iolens_file_flags */
	__u8 pad0;
	__u32 pid;
	__u32 dev;
	__u32 mode; /* inode i_mode */
	__u32 pad1;
	__u64 ino;
	__u64 size; /* i_size when opened */
	__u64 ts_ns;
	char path[IOLENS_PATH_BYTES];
};

/* fork (a new process, not a thread) and exit of a tracked process. */
/* A FORK record's exit_code: the process joined the --cgroup group (moved
 * into it, or forked into it by a process not traced), it was not forked by
 * a traced parent. */
#define IOLENS_FORK_JOINED 1

struct iolens_proc_rec {
	struct iolens_rec_hdr hdr;
	__u32 pid;
	__u32 ppid;
	__s32 exit_code; /* exit: the wait status as the kernel stores it; fork: 0 or IOLENS_FORK_JOINED */
	__u64 ts_ns;
	char comm[IOLENS_COMM_LEN];
};

/* exec by a tracked process: the new comm and command line.
 * args holds args_len bytes of NUL-separated argv (hdr.size says so). */
struct iolens_exec_rec {
	struct iolens_rec_hdr hdr;
	__u16 args_len;
	__u16 pad0;
	__u32 pid;
	__u32 ppid;
	__u64 ts_ns;
	char comm[IOLENS_COMM_LEN];
	char args[IOLENS_ARGS_BYTES];
};

/* Page-cache activity outside syscalls (faults) and evictions. */
struct iolens_pagecache_rec {
	struct iolens_rec_hdr hdr;
	__u8 kind;  /* enum iolens_pagecache_kind */
	__u8 flags; /* enum iolens_pagecache_flags */
	__u16 pad0;
	__u32 pid; /* tgid of the tracked process (FAULT_IN), or of the process
	            * that first opened the file (EVICT) */
	__u32 tid; /* the thread that faulted; for EVICT the evicting task */
	__u32 dev;
	__u32 pad1;
	__u64 ino;
	__u64 bytes; /* 4096 << folio order */
	__u64 ts_ns;
	__u64 index; /* page offset of the first folio in the file */
	/* --- since runs (IOLENS_PAGECACHE_REC_V1_SIZE bytes before): one
	 * record covers a run of folios of one file by one thread, `bytes` in
	 * all; with IOLENS_PCF_READAHEAD they are adjacent, pages [index,
	 * index + bytes/4096); without it index is the first folio's --- */
	__u64 first_ns; /* READAHEAD: when the earliest read-ahead folio of the run was added */
	__u64 ra_bytes; /* READAHEAD: bytes of the run read ahead by the job */
	__u32 majors;   /* FAULT_IN: major faults in the run */
	__u32 folios;   /* folios in the run */
};
/* Size of a page-cache record before runs: one folio, majors from the flag. */
#define IOLENS_PAGECACHE_REC_V1_SIZE 56

/* One completed block request, system wide, charged to the tracked process
 * that submitted it (pid 0: another process, the kernel, or unknown). */
struct iolens_block_rec {
	struct iolens_rec_hdr hdr;
	__u8 op;     /* enum iolens_block_op */
	__u8 flags;  /* enum iolens_block_flags */
	__u16 depth; /* requests in flight on the device when this one was issued, itself included */
	__u32 dev;   /* the disk: major << 20 | minor */
	__u32 pid;   /* tgid of the submitter if tracked, else 0 */
	__u32 bytes;
	__u32 pad0;
	__u64 sector;     /* first 512-byte sector */
	__u64 issue_ns;   /* CLOCK_MONOTONIC when issued to the device */
	__u64 queue_ns;   /* insert to issue (IOLENS_BLKF_QUEUED) */
	__u64 service_ns; /* issue to completion */
};

/* A marker call: text is the path after IOLENS_MARKER_PREFIX ("epoch/3"),
 * text_len bytes, no NUL (hdr.size says how much of text is present). */
struct iolens_marker_rec {
	struct iolens_rec_hdr hdr;
	__u16 text_len;
	__u16 pad0;
	__u32 pid;
	__u32 tid;
	__u64 ts_ns;
	char text[IOLENS_MARKER_BYTES];
};

/* A main thread (tid == pid) of a tracked process was off CPU, sleeping (not
 * preempted), from start_ns to end_ns: waiting for data, a lock, a child. */
struct iolens_offcpu_rec {
	struct iolens_rec_hdr hdr;
	__u32 pid;
	__u32 tid;
	__u32 state; /* the task state it slept in (0x1 interruptible, 0x2 uninterruptible) */
	__u64 start_ns;
	__u64 end_ns;
};

/* The user stack of a traced call (`record --stacks`: the first call of each
 * thread on each file, and a sample of the others). It comes just before the
 * call's record(s) in the stream of its thread (same tid and start_ns); a copy
 * call's two records share it.
 *
 * data holds nwords words of the user stack copied from sp (the kernel
 * copies up to IOLENS_STACK_COPY bytes, in 1 KiB pieces, stopping at the first
 * it cannot read), then nframes user addresses, innermost first, from the
 * kernel's frame-pointer walk (bpf_get_stack, BPF_F_USER_STACK): ips[0] is
 * the instruction after the syscall, in the libc wrapper.
 *
 * The recorder unwinds each stack with the binaries' .eh_frame tables (code
 * built without frame pointers included) and writes it to the recording with
 * nwords 0, flag IOLENS_STACKF_UNWOUND and the unwound return addresses as
 * its frames (docs/call-sites.md). Only the words and frames present are in
 * the record (hdr.size says so). */
enum iolens_stack_flags {
	IOLENS_STACKF_UNWOUND = 1 << 0, /* the frames are the recorder's unwinding */
};

struct iolens_stack_rec {
	struct iolens_rec_hdr hdr;
	__u16 nframes;
	__u16 nwords;
	__u32 pid;
	__u32 tid;
	__u64 start_ns; /* the call's start_ns */
	__u64 sp;       /* user registers at the syscall: stack pointer, */
	__u64 bp;       /* frame pointer (rbp), */
	__u64 ip;       /* and instruction pointer */
	__u32 flags;    /* enum iolens_stack_flags */
	__u32 pad0;
	__u64 data[IOLENS_STACK_COPY / 8 + IOLENS_STACK_DEPTH]; /* words, then frames */
};

/* Size asserts, checked by both compilers. */
#ifdef __cplusplus
#define IOLENS_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define IOLENS_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
IOLENS_STATIC_ASSERT(sizeof(struct iolens_rec_hdr) == 4, "rec_hdr size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_syscall_rec) == 104, "syscall_rec size");
IOLENS_STATIC_ASSERT(__builtin_offsetof(struct iolens_syscall_rec, cache_in_bytes) ==
                             IOLENS_SYSCALL_REC_V1_SIZE,
                     "the short syscall record ends where the page-cache fields begin");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_pagecache_rec) == 80, "pagecache_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_block_rec) == 56, "block_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_marker_rec) == 24 + IOLENS_MARKER_BYTES, "marker_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_offcpu_rec) == 32, "offcpu_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_file_rec) == 48 + IOLENS_PATH_BYTES, "file_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_proc_rec) == 40, "proc_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_stack_rec) == 56 + IOLENS_STACK_COPY + 8 * IOLENS_STACK_DEPTH,
                     "stack_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_exec_rec) == 40 + IOLENS_ARGS_BYTES, "exec_rec size");

#endif /* IOLENS_ABI_H */
