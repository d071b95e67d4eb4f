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
	IOLENS_REC_SYSCALL = 1,   /* struct iolens_syscall_rec */
	IOLENS_REC_FILE = 2,      /* struct iolens_file_rec (variable length) */
	IOLENS_REC_FORK = 3,      /* struct iolens_proc_rec */
	IOLENS_REC_EXEC = 4,      /* struct iolens_exec_rec (variable length) */
	IOLENS_REC_EXIT = 5,      /* struct iolens_proc_rec */
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
};

/* struct iolens_file_rec.flags */
enum iolens_file_flags {
	IOLENS_FILE_TRUNCATED = 1 << 0, /* path walk stopped early: path is a suffix */
};

/* Kernel-side counters, one per-CPU array slot each (append-only). */
enum iolens_counter {
	IOLENS_CNT_RECORDS = 0,       /* records submitted to the ring buffer */
	IOLENS_CNT_RB_FULL = 1,       /* records dropped: ring buffer reserve failed */
	IOLENS_CNT_STATE_FAIL = 2,    /* syscalls dropped: no per-thread state slot */
	IOLENS_CNT_PID_RANGE = 3,     /* processes not tracked: pid above the bitmap */
	IOLENS_CNT_PATH_TRUNC = 4,    /* file paths truncated */
	IOLENS_CNT_COUNT = 5,
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
struct iolens_proc_rec {
	struct iolens_rec_hdr hdr;
	__u32 pid;
	__u32 ppid;
	__s32 exit_code; /* exit: the wait status as the kernel stores it */
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

/* Size asserts, checked by both compilers. */
#ifdef __cplusplus
#define IOLENS_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define IOLENS_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
IOLENS_STATIC_ASSERT(sizeof(struct iolens_rec_hdr) == 4, "rec_hdr size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_syscall_rec) == 72, "syscall_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_file_rec) == 48 + IOLENS_PATH_BYTES, "file_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_proc_rec) == 40, "proc_rec size");
IOLENS_STATIC_ASSERT(sizeof(struct iolens_exec_rec) == 40 + IOLENS_ARGS_BYTES, "exec_rec size");

#endif /* IOLENS_ABI_H */
