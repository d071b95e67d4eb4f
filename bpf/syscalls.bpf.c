// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Syscall probe family: every file syscall of a tracked process, timed from
 * entry to exit, classified (enum iolens_op), tied to the file it touched, and
 * emitted as one struct iolens_syscall_rec.
 *
 * One attach point for all syscalls (sys_enter/sys_exit), switching on the
 * syscall id: cheaper than one classic tracepoint per syscall. Both a tp_btf and
 * a raw_tp variant are compiled; user space autoloads the best one the kernel
 * accepts. Per-thread in-flight state lives in task storage.
 */
#include "common.bpf.h"
#include "thread_state.bpf.h"
#include "call_batch.bpf.h"
#include "file.bpf.h"
#include "syscall_nr.bpf.h"
#include "aio.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define MAP_ANONYMOUS_FLAG 0x20
/* Copy calls are classified under this BPF-only class at entry; at exit each
 * becomes a read record of its source and a write record of its destination
 * (IOLENS_PATH_COPY). */
#define OP_COPY IOLENS_BPF_OP_COPY
#define MAX_RW_COUNT 0x7ffff000ULL /* INT_MAX & PAGE_MASK, include/linux/fs.h */
#define PATH_FLAGS(path) ((path) << IOLENS_SC_PATH_SHIFT)
#define STACK_PIECE 1024 /* bytes of user stack copied per read (record --stacks) */

/* record --stacks (set by user space before load): a stack record goes with
 * the first call of each thread on each file (iolens_stack_first) and with
 * one call in iolens_stack_period of each thread (0: none, 1: every call). */
const volatile __u32 iolens_stacks = 0;
const volatile __u32 iolens_stack_first = 1;
const volatile __u32 iolens_stack_period = 64;

/* The (thread, file, class, caller) keys whose first call has its stack; an
 * LRU, so a key it forgot gets a stack again (more stacks, never fewer).
 * A call without a file (stat by path) has dev = ino = 0. The caller is the
 * return address of the libc wrapper that made the syscall, read from the
 * user stack where iolens_stack_ra says the wrapper keeps it (0 until user
 * space has worked that out from the wrapper's first stack): a thread that
 * moves on to another function on the same file gets that function's stack. */
struct iolens_stack_key {
	__u64 ino;
	__u32 dev;
	__u32 tid;
	__u64 ra;
	__u32 op; /* enum iolens_op: a thread's first read of a file it wrote gets its own */
	__u32 pad;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct iolens_stack_key);
	__type(value, __u8);
	__uint(max_entries, 16384);
} iolens_stack_seen SEC(".maps");

/* (process, wrapper address) -> where the wrapper's return address is, in
 * bytes from the stack pointer at the syscall. Written by user space (the
 * recorder, from the wrapper's unwind table) after the wrapper's first stack. */
struct iolens_stack_ra_key {
	__u32 tgid;
	__u32 pad;
	__u64 ip;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* exited processes' entries age out */
	__type(key, struct iolens_stack_ra_key);
	__type(value, __s64);
	__uint(max_entries, 8192);
} iolens_stack_ra SEC(".maps");

/* Where a stack record is built before it is copied into the ring at its
 * size (too big for the 512-byte BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct iolens_stack_rec);
	__uint(max_entries, 1);
} iolens_stack_scratch SEC(".maps");

static __always_inline int classify(long nr)
{
	switch (nr) {
	case NR_read:
	case NR_pread64:
	case NR_readv:
	case NR_preadv:
	case NR_preadv2:
		return IOLENS_OP_READ;
	case NR_write:
	case NR_pwrite64:
	case NR_writev:
	case NR_pwritev:
	case NR_pwritev2:
		return IOLENS_OP_WRITE;
	case NR_open:
	case NR_openat:
	case NR_openat2:
	case NR_creat:
		return IOLENS_OP_OPEN;
	case NR_close:
		return IOLENS_OP_CLOSE;
	case NR_stat:
	case NR_lstat:
	case NR_fstat:
	case NR_newfstatat:
	case NR_statx:
	case NR_access:
	case NR_faccessat:
	case NR_faccessat2:
		return IOLENS_OP_STAT;
	case NR_lseek:
		return IOLENS_OP_SEEK;
	case NR_mmap:
		return IOLENS_OP_MMAP;
	case NR_getdents64:
		return IOLENS_OP_READDIR;
	case NR_fsync:
	case NR_fdatasync:
	case NR_sync_file_range:
		return IOLENS_OP_SYNC;
	case NR_sendfile:
	case NR_copy_file_range:
	case NR_splice:
		return OP_COPY;
	case NR_io_submit:
		return IOLENS_BPF_OP_AIO_SUBMIT;
	case NR_io_getevents:
	case NR_io_pgetevents:
		return IOLENS_BPF_OP_AIO_REAP;
	}
	return -1;
}

/* An access() on a path under IOLENS_MARKER_PREFIX is a marker from the job
 * (epoch, step, end): emit it and report true. */
static __always_inline bool emit_marker(struct iolens_thread_state *st, struct pt_regs *regs, long nr,
                                        bool btf_regs)
{
	const char prefix[IOLENS_MARKER_PREFIX_LEN + 1] = IOLENS_MARKER_PREFIX;
	char head[IOLENS_MARKER_PREFIX_LEN];
	struct iolens_marker_rec *rec;
	__u64 args[6];
	const char *path;
	__u64 pid_tgid;
	long n;

	if (btf_regs)
		IOLENS_SYSCALL_ARGS_BTF(regs, args);
	else
		IOLENS_SYSCALL_ARGS_CORE(regs, args);
	path = (const char *)(nr == NR_access ? args[0] : args[1]);
	if (bpf_probe_read_user(head, sizeof(head), path))
		return false;
	for (int i = 0; i < IOLENS_MARKER_PREFIX_LEN; i++)
		if (head[i] != prefix[i])
			return false;
	iolens_batch_flush(st); /* the thread's calls before its marker come first */
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return true;
	n = bpf_probe_read_user_str(rec->text, sizeof(rec->text), path + IOLENS_MARKER_PREFIX_LEN);
	if (n < 1)
		n = 1;
	pid_tgid = bpf_get_current_pid_tgid();
	rec->hdr.type = IOLENS_REC_MARKER;
	rec->hdr.size = sizeof(*rec);
	rec->text_len = n - 1; /* without the NUL */
	rec->pad0 = 0;
	rec->pid = pid_tgid >> 32;
	rec->tid = (__u32)pid_tgid;
	rec->ts_ns = bpf_ktime_get_ns();
	iolens_submit(rec);
	return true;
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long nr, bool btf_regs)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct iolens_file_info info;
	struct iolens_thread_state *st;
	int op;

	if (!iolens_is_tracked(tgid))
		return 0;
	op = classify(nr);
	if (op < 0) {
		/* The thread's calls before an exec belong before its exec record. */
		if ((nr == NR_execve || nr == NR_execveat) && (st = iolens_current_state(false)))
			iolens_batch_flush(st);
		return 0;
	}
	st = iolens_current_state(true);
	if (!st) {
		iolens_count(IOLENS_CNT_STATE_FAIL);
		return 0;
	}
	if (op == IOLENS_OP_STAT && (nr == NR_access || nr == NR_faccessat || nr == NR_faccessat2) &&
	    emit_marker(st, regs, nr, btf_regs)) {
		st->active = 0; /* the iolens protocol, not the job's I/O: not counted */
		return 0;
	}
	if (btf_regs)
		IOLENS_SYSCALL_ARGS_BTF(regs, st->args);
	else
		IOLENS_SYSCALL_ARGS_CORE(regs, st->args);
	st->nr = nr;
	st->op = op;
	st->close_has_file = 0;
	st->fault_pending = 0;
	st->ra_sync = 0;
	st->ra_async = 0;
	st->cache_in_bytes = 0;
	st->readahead_bytes = 0;
	st->blocked_ns = 0;
	st->offcpu_since_ns = 0;
	if (op == OP_COPY) {
		/* The offsets the call starts at, when it is given pointers to them
		 * (it updates them in place, so read them now). */
		__u64 in_ptr = nr == NR_sendfile ? st->args[2] : st->args[1];
		__u64 out_ptr = nr == NR_sendfile ? 0 : st->args[3];

		st->copy_off_in = IOLENS_NO_OFFSET;
		st->copy_off_out = IOLENS_NO_OFFSET;
		if (in_ptr && bpf_probe_read_user(&st->copy_off_in, sizeof(st->copy_off_in), (void *)in_ptr))
			st->copy_off_in = IOLENS_NO_OFFSET;
		if (out_ptr &&
		    bpf_probe_read_user(&st->copy_off_out, sizeof(st->copy_off_out), (void *)out_ptr))
			st->copy_off_out = IOLENS_NO_OFFSET;
		st->copy_dst_ino = 0;
		st->copy_dst_dev = 0;
		if (iolens_file_info(iolens_fd_file((int)(nr == NR_sendfile ? st->args[0] : st->args[2])),
		                     &info)) {
			st->copy_dst_ino = info.ino;
			st->copy_dst_dev = info.dev;
		}
	}
	if (op == IOLENS_OP_CLOSE && iolens_file_info(iolens_fd_file((int)st->args[0]), &info)) {
		st->close_has_file = 1;
		st->close_dev = info.dev;
		st->close_ino = info.ino;
		st->close_mode = info.mode;
	}
	st->active = 1;
	st->start_ns = bpf_ktime_get_ns(); /* last: time the call, not our bookkeeping */
	return 0;
}

/* What the exit probe works out about a call before emitting its record. */
struct call_info {
	struct iolens_file_info file; /* valid when filp is set (or, for close, HAS_FILE) */
	struct file *filp;            /* the file the call used or opened, if any */
	__u64 requested;
	__u64 offset;
	int fd;
	__u8 flags; /* enum iolens_syscall_flags */
};

/* The fields every syscall record has (the first IOLENS_SYSCALL_REC_V1_SIZE
 * bytes), written straight into the reserved ring-buffer space. */
static __always_inline void fill_call(struct iolens_syscall_rec *rec, __u16 size, __u8 flags,
                                      struct iolens_thread_state *st, __u64 pid_tgid, __u64 now, long ret,
                                      const struct call_info *c)
{
	bool has_file = flags & IOLENS_SC_HAS_FILE;

	rec->hdr.type = IOLENS_REC_SYSCALL;
	rec->hdr.size = size;
	rec->syscall_nr = st->nr;
	rec->op = st->op;
	rec->flags = flags;
	rec->pid = pid_tgid >> 32;
	rec->tid = (__u32)pid_tgid;
	rec->start_ns = st->start_ns;
	rec->duration_ns = now - st->start_ns;
	rec->ret = ret;
	rec->requested = c->requested;
	rec->offset = c->offset;
	rec->ino = has_file ? c->file.ino : 0;
	rec->dev = has_file ? c->file.dev : 0;
	rec->fd = c->fd;
}

/* The file behind fd, if it is a regular file (else no file I/O). */
static __always_inline bool regular_file(int fd, struct call_info *c)
{
	c->fd = fd;
	c->filp = iolens_fd_file(fd);
	return iolens_file_info(c->filp, &c->file) && iolens_is_regular(c->file.mode);
}

/* The file behind fd, if it is a regular file or a directory (fsync of a
 * directory makes a rename or a create durable: sqlite, checkpoint writers). */
static __always_inline bool file_or_dir(int fd, struct call_info *c)
{
	c->fd = fd;
	c->filp = iolens_fd_file(fd);
	return iolens_file_info(c->filp, &c->file) &&
		(iolens_is_regular(c->file.mode) || iolens_is_dir(c->file.mode));
}

/* The file behind fd, whatever it is (the call counts either way). */
static __always_inline void any_file(int fd, struct call_info *c)
{
	c->fd = fd;
	c->filp = iolens_fd_file(fd);
	if (!iolens_file_info(c->filp, &c->file))
		c->filp = NULL;
}

/* read and write family: the bytes asked for, and where in the file. */
static __always_inline void rw_extent(struct iolens_thread_state *st, long ret, struct call_info *c)
{
	__u64 done = ret > 0 ? ret : 0;

	switch (st->nr) {
	case NR_read:
	case NR_write:
		c->requested = st->args[2];
		c->offset = c->file.pos - done;
		break;
	case NR_pread64:
	case NR_pwrite64:
		c->requested = st->args[2];
		c->offset = st->args[3];
		break;
	case NR_readv:
	case NR_writev:
		c->requested = iov_total(st->args[1], st->args[2], &c->flags);
		c->offset = c->file.pos - done;
		break;
	default: /* preadv, pwritev, preadv2, pwritev2 */
		c->requested = iov_total(st->args[1], st->args[2], &c->flags);
		c->offset = st->args[3];
		if ((__s64)c->offset == -1) /* preadv2/pwritev2: -1 means the file position */
			c->offset = c->file.pos - done;
		break;
	}
}

/* open: the new fd's file or directory, announced by a file record (and a
 * regular file watched for evictions); anything else is no file. */
static __always_inline void opened_file(long ret, __u32 tgid, __u64 now, struct call_info *c)
{
	if (ret < 0)
		return;
	c->fd = ret;
	c->filp = iolens_fd_file(c->fd);
	if (!iolens_file_info(c->filp, &c->file) ||
	    !(iolens_is_regular(c->file.mode) || iolens_is_dir(c->file.mode))) {
		c->filp = NULL;
		return;
	}
	emit_file_record(c->filp, tgid, &c->file, now);
	if (iolens_is_regular(c->file.mode))
		iolens_watch_inode(c->file.dev, c->file.ino, tgid);
}

/* close: the file is gone by exit; on_sys_enter kept its identity. */
static __always_inline void closed_file(struct iolens_thread_state *st, struct call_info *c)
{
	c->fd = st->args[0];
	if (!st->close_has_file)
		return;
	c->file.dev = st->close_dev;
	c->file.ino = st->close_ino;
	c->file.mode = st->close_mode;
	if (iolens_is_regular(c->file.mode))
		c->flags |= IOLENS_SC_REGULAR;
	if (iolens_is_regular(c->file.mode) || iolens_is_dir(c->file.mode))
		c->flags |= IOLENS_SC_HAS_FILE;
}

/* Per-file attribution is for files and directories, never pipes or
 * sockets (an fstat of a pipe still counts as a stat call). */
static __always_inline void file_flags(struct call_info *c)
{
	if (c->filp && (iolens_is_regular(c->file.mode) || iolens_is_dir(c->file.mode))) {
		c->flags |= IOLENS_SC_HAS_FILE;
		if (iolens_is_regular(c->file.mode))
			c->flags |= IOLENS_SC_REGULAR;
		if (c->file.f_flags & IOLENS_O_DIRECT)
			c->flags |= IOLENS_SC_DIRECT;
	}
}

/* A call's file, extent and flags, by class. False when it is not file I/O
 * (pipes, sockets, ttys, anonymous mappings): no record then. */
static __always_inline bool decode_call(struct iolens_thread_state *st, long ret, __u32 tgid, __u64 now,
                                        struct call_info *c)
{
	switch (st->op) {
	case IOLENS_OP_READ:
	case IOLENS_OP_WRITE:
		if (!regular_file(st->args[0], c))
			return false;
		rw_extent(st, ret, c);
		break;
	case IOLENS_OP_SEEK:
		if (!regular_file(st->args[0], c))
			return false;
		if (ret >= 0)
			c->offset = ret;
		break;
	case IOLENS_OP_SYNC:
		if (!file_or_dir(st->args[0], c))
			return false;
		break;
	case IOLENS_OP_MMAP:
		if ((st->args[3] & MAP_ANONYMOUS_FLAG) || !regular_file(st->args[4], c))
			return false;
		c->requested = st->args[1];
		c->offset = st->args[5];
		break;
	case IOLENS_OP_OPEN:
		opened_file(ret, tgid, now, c);
		break;
	case IOLENS_OP_CLOSE:
		closed_file(st, c);
		break;
	case IOLENS_OP_STAT:
		if (st->nr == NR_fstat)
			any_file(st->args[0], c);
		break;
	case IOLENS_OP_READDIR:
		any_file(st->args[0], c);
		c->requested = st->args[2];
		break;
	}
	file_flags(c);
	return true;
}

/* What the exit probe needs to take the call's user stack (record --stacks). */
struct stack_ctx {
	void *ctx;            /* the program's context, for bpf_get_stack */
	struct pt_regs *regs; /* the saved user registers */
	bool btf_regs;        /* regs is a BTF pointer (tp_btf): direct loads */
};

/* record --stacks: sends the call's user stack when it is its thread's first
 * call on the file, or the thread's sample falls on it. It goes before the
 * call's record(s) (struct iolens_stack_rec): the thread's batch first. */
static __always_inline void emit_stack(const struct stack_ctx *sc, struct iolens_thread_state *st,
                                       __u64 pid_tgid, const struct call_info *c)
{
	/* A local copy: CO-RE reads relocate against the kernel's pt_regs, not
	 * against struct stack_ctx. */
	struct pt_regs *regs = sc->regs;
	struct iolens_stack_key key = {};
	struct iolens_stack_rec *rec;
	bool take = false, first = false;
	__u32 zero = 0;
	__u64 sp, size;
	__u32 w;
	__u8 one = 1;
	long n;

	if (!iolens_stacks)
		return;
	if (iolens_stack_period) {
		if (st->stack_countdown <= 1) {
			take = true;
			st->stack_countdown = iolens_stack_period;
		} else {
			st->stack_countdown--;
		}
	}
	sp = sc->btf_regs ? IOLENS_USER_SP_BTF(regs) : IOLENS_USER_SP_CORE(regs);
	if (iolens_stack_first) {
		struct iolens_stack_ra_key rk = {.tgid = pid_tgid >> 32};
		__s64 *slot;

		rk.ip = sc->btf_regs ? IOLENS_USER_IP_BTF(regs) : IOLENS_USER_IP_CORE(regs);
		slot = bpf_map_lookup_elem(&iolens_stack_ra, &rk);
		if (slot &&
		    (*slot < 0 || *slot > 4096 ||
		     bpf_probe_read_user(&key.ra, sizeof(key.ra), (void *)(sp + *slot))))
			key.ra = 0;
		key.tid = (__u32)pid_tgid;
		key.op = st->op;
		if (c->flags & IOLENS_SC_HAS_FILE) {
			key.ino = c->file.ino;
			key.dev = c->file.dev;
		}
		if (!bpf_map_lookup_elem(&iolens_stack_seen, &key)) {
			bpf_map_update_elem(&iolens_stack_seen, &key, &one, BPF_ANY);
			take = first = true;
		}
	}
	if (!take)
		return;
	rec = bpf_map_lookup_elem(&iolens_stack_scratch, &zero);
	if (!rec)
		return;
	/* The top of the user stack, for the recorder's unwinding (code without
	 * frame pointers): 1 KiB pieces until one cannot be read (the stack's
	 * end, or a page not present). */
	w = 0;
#pragma unroll
	for (int i = 0; i < IOLENS_STACK_COPY / STACK_PIECE; i++) {
		if (bpf_probe_read_user(&rec->data[i * (STACK_PIECE / 8)], STACK_PIECE,
		                        (void *)(sp + i * STACK_PIECE)))
			break;
		w = (i + 1) * (STACK_PIECE / 8);
	}
	if (w > IOLENS_STACK_COPY / 8)
		w = IOLENS_STACK_COPY / 8;
	/* Then the kernel's frame-pointer walk. */
	n = bpf_get_stack(sc->ctx, &rec->data[w], IOLENS_STACK_DEPTH * 8, BPF_F_USER_STACK);
	if (n < 0)
		n = 0;
	if (n > IOLENS_STACK_DEPTH * 8)
		n = IOLENS_STACK_DEPTH * 8;
	size = __builtin_offsetof(struct iolens_stack_rec, data) + (__u64)w * 8 + (__u64)n;
	rec->hdr.type = IOLENS_REC_STACK;
	rec->hdr.size = size;
	rec->nframes = n / sizeof(__u64);
	rec->nwords = w;
	rec->pid = pid_tgid >> 32;
	rec->tid = (__u32)pid_tgid;
	rec->start_ns = st->start_ns;
	rec->sp = sp;
	rec->bp = sc->btf_regs ? IOLENS_USER_BP_BTF(regs) : IOLENS_USER_BP_CORE(regs);
	rec->ip = sc->btf_regs ? IOLENS_USER_IP_BTF(regs) : IOLENS_USER_IP_CORE(regs);
	rec->flags = 0;
	rec->pad0 = 0;
	iolens_batch_flush(st);
	/* A thread's first stack, and its first on a file, wake the recorder
	 * now: it reads the process's mappings from /proc, which must happen
	 * before the process exits. */
	if (!iolens_output(rec, size, first || !st->stack_sent) && first)
		bpf_map_delete_elem(&iolens_stack_seen, &key); /* lost: take it again next time */
	st->stack_sent = 1;
}

/* The call's record. Nothing happened in the page cache or the scheduler
 * during the call (the usual cached read): the short record without those
 * fields, into the thread's batch (call_batch.bpf.h); else the full record. */
static __always_inline void emit_call(struct iolens_thread_state *st, __u64 pid_tgid, __u64 now, long ret,
                                      const struct call_info *c)
{
	struct iolens_syscall_rec *rec;

	if (!(st->cache_in_bytes | st->readahead_bytes | st->blocked_ns | st->ra_sync | st->ra_async)) {
#ifdef IOLENS_LEGACY
		rec = iolens_reserve(IOLENS_SYSCALL_REC_V1_SIZE);
		if (!rec)
			return;
		fill_call(rec, IOLENS_SYSCALL_REC_V1_SIZE, c->flags | IOLENS_SC_CACHE_ZERO, st, pid_tgid, now,
		          ret, c);
		iolens_submit_sized(rec, IOLENS_SYSCALL_REC_V1_SIZE);
#else
		__u8 flags = c->flags | IOLENS_SC_CACHE_ZERO;
		bool has_file = flags & IOLENS_SC_HAS_FILE;

		if (iolens_run_extend(st, now, ret, c->requested, c->offset, c->fd, flags,
		                      has_file ? c->file.dev : 0, has_file ? c->file.ino : 0))
			return;
		rec = iolens_batch_slot(st);
		fill_call(rec, IOLENS_SYSCALL_REC_V1_SIZE, flags, st, pid_tgid, now, ret, c);
		iolens_run_offer(st, rec, now);
#endif
		return;
	}
	iolens_batch_flush(st); /* keep the thread's records in order */
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return;
	fill_call(rec, sizeof(*rec), c->flags, st, pid_tgid, now, ret, c);
	rec->cache_in_bytes = st->cache_in_bytes;
	rec->readahead_bytes = st->readahead_bytes;
	rec->blocked_ns = st->blocked_ns;
	rec->ra_sync = st->ra_sync;
	rec->ra_async = st->ra_async;
	rec->pad1 = 0;
	iolens_submit(rec);
}

/* One side of a copy call: the file behind fd if it is a regular file, the
 * bytes asked for and the offset the side started at (off: from the call's
 * offset pointer, else the file position before the call). */
static __always_inline bool copy_side(int fd, __u64 count, __u64 off, long ret, struct call_info *c)
{
	if (!regular_file(fd, c))
		return false;
	/* The kernel moves at most MAX_RW_COUNT per call (rw_verify_area); cp
	 * asks copy_file_range for SSIZE_MAX and would overflow the sums. */
	c->requested = count < MAX_RW_COUNT ? count : MAX_RW_COUNT;
	c->offset = off != IOLENS_NO_OFFSET ? off : c->file.pos - (ret > 0 ? ret : 0);
	c->flags |= PATH_FLAGS(IOLENS_PATH_COPY);
	file_flags(c);
	return true;
}

/* sendfile(out, in, *off, count), copy_file_range(in, *off_in, out, *off_out,
 * len, flags), splice(in, *off_in, out, *off_out, len, flags): a read record
 * of the source and a write record of the destination, the same call (start,
 * duration, return value) in both; the page-cache and blocking fields go with
 * the first record emitted. A side that is not a regular file (a pipe, a
 * socket) has no record. */
static __always_inline void emit_copy(const struct stack_ctx *sc, struct iolens_thread_state *st,
                                      __u64 pid_tgid, __u64 now, long ret)
{
	struct call_info in = {.offset = IOLENS_NO_OFFSET, .fd = -1};
	struct call_info out = {.offset = IOLENS_NO_OFFSET, .fd = -1};
	bool sendfile = st->nr == NR_sendfile;
	int in_fd = sendfile ? st->args[1] : st->args[0];
	int out_fd = sendfile ? st->args[0] : st->args[2];
	__u64 count = sendfile ? st->args[3] : st->args[4];

	bool have_in = copy_side(in_fd, count, st->copy_off_in, ret, &in);
	bool have_out;

	if (have_in)
		emit_stack(sc, st, pid_tgid, &in);
	if (have_in) {
		st->op = IOLENS_OP_READ;
		emit_call(st, pid_tgid, now, ret, &in);
		st->cache_in_bytes = 0;
		st->readahead_bytes = 0;
		st->blocked_ns = 0;
		st->ra_sync = 0;
		st->ra_async = 0;
	}
	have_out = copy_side(out_fd, count, st->copy_off_out, ret, &out);
	if (have_out && !have_in)
		emit_stack(sc, st, pid_tgid, &out);
	if (have_out) {
		st->op = IOLENS_OP_WRITE;
		emit_call(st, pid_tgid, now, ret, &out);
	}
}

/* What following one io_submit's iocbs or one io_getevents's events needs,
 * by value: the loop body may run as a bpf_loop callback. */
struct aio_walk {
	__u64 uptr;     /* the iocb pointer array, or the io_event array */
	__u64 start_ns; /* io_submit: its entry; io_getevents: its exit (now) */
	__u64 cache_in_bytes, readahead_bytes, blocked_ns;
	__u32 ra; /* ra_sync << 16 | ra_async */
	__u32 tgid, tid;
	__u32 n; /* iocbs or events */
};

/* io_submit exit: iocb i of those the kernel took, kept with its file and
 * extent until its io_event is reaped (bpf/aio.bpf.h). */
static __always_inline long aio_submit_one(__u32 i, struct aio_walk *w)
{
	struct iolens_aio_key key = {.tgid = w->tgid};
	struct call_info c = {.offset = IOLENS_NO_OFFSET, .fd = -1};
	struct iolens_aio_req req = {};
	struct iocb cb;
	int op;

	if (i >= w->n)
		return 1;
	if (bpf_probe_read_user(&key.iocb, sizeof(key.iocb), (void *)(w->uptr + i * sizeof(__u64))) ||
	    bpf_probe_read_user(&cb, sizeof(cb), (void *)key.iocb))
		return 0;
	op = iolens_aio_op(cb.aio_lio_opcode);
	if (op < 0 || !regular_file(cb.aio_fildes, &c))
		return 0;
	file_flags(&c);
	req.start_ns = w->start_ns;
	if (cb.aio_lio_opcode == IOLENS_IOCB_CMD_PREADV || cb.aio_lio_opcode == IOLENS_IOCB_CMD_PWRITEV)
		req.requested = iov_total(cb.aio_buf, cb.aio_nbytes, &c.flags);
	else if (op != IOLENS_OP_SYNC)
		req.requested = cb.aio_nbytes;
	req.offset = op == IOLENS_OP_SYNC ? IOLENS_NO_OFFSET : cb.aio_offset;
	req.ino = c.file.ino;
	req.dev = c.file.dev;
	req.tid = w->tid;
	req.fd = c.fd;
	req.op = op;
	req.flags = c.flags | PATH_FLAGS(IOLENS_PATH_AIO);
	/* What the io_submit call itself did in the page cache goes with the
	 * first iocb it took. */
	req.cache_in_bytes = w->cache_in_bytes;
	req.readahead_bytes = w->readahead_bytes;
	req.blocked_ns = w->blocked_ns;
	req.ra_sync = w->ra >> 16;
	req.ra_async = w->ra & 0xffff;
	w->cache_in_bytes = w->readahead_bytes = w->blocked_ns = 0;
	w->ra = 0;
	if (bpf_map_update_elem(&iolens_aio_reqs, &key, &req, BPF_ANY))
		iolens_count(IOLENS_CNT_AIO_MAP_FULL);
	return 0;
}

/* One reaped iocb: its syscall record, submission to reaping. */
static __always_inline void emit_aio(const struct iolens_aio_req *req, __u32 tgid, __u64 now, __s64 res)
{
	bool cache =
		req->cache_in_bytes | req->readahead_bytes | req->blocked_ns | req->ra_sync | req->ra_async;
	struct iolens_syscall_rec *rec;

	if (cache)
		rec = iolens_reserve(sizeof(struct iolens_syscall_rec));
	else
		rec = iolens_reserve(IOLENS_SYSCALL_REC_V1_SIZE);
	if (!rec)
		return;
	rec->hdr.type = IOLENS_REC_SYSCALL;
	rec->hdr.size = cache ? sizeof(struct iolens_syscall_rec) : IOLENS_SYSCALL_REC_V1_SIZE;
	rec->syscall_nr = NR_io_submit;
	rec->op = req->op;
	rec->flags = req->flags | (cache ? 0 : IOLENS_SC_CACHE_ZERO);
	rec->pid = tgid;
	rec->tid = req->tid;
	rec->start_ns = req->start_ns;
	rec->duration_ns = now - req->start_ns;
	rec->ret = res;
	rec->requested = req->requested;
	rec->offset = req->offset;
	rec->ino = req->ino;
	rec->dev = req->dev;
	rec->fd = req->fd;
	if (cache) {
		rec->cache_in_bytes = req->cache_in_bytes;
		rec->readahead_bytes = req->readahead_bytes;
		rec->blocked_ns = req->blocked_ns;
		rec->ra_sync = req->ra_sync;
		rec->ra_async = req->ra_async;
		rec->pad1 = 0;
		iolens_submit_sized(rec, sizeof(struct iolens_syscall_rec));
	} else {
		iolens_submit_sized(rec, IOLENS_SYSCALL_REC_V1_SIZE);
	}
}

/* io_getevents/io_pgetevents exit: event i completes the iocb its obj names. */
static __always_inline long aio_reap_one(__u32 i, struct aio_walk *w)
{
	struct iolens_aio_key key = {.tgid = w->tgid};
	struct iolens_aio_req *req;
	struct io_event ev;

	if (i >= w->n)
		return 1;
	if (bpf_probe_read_user(&ev, sizeof(ev), (void *)(w->uptr + i * sizeof(ev))))
		return 1;
	key.iocb = ev.obj;
	req = bpf_map_lookup_elem(&iolens_aio_reqs, &key);
	if (!req) {
		iolens_count(IOLENS_CNT_AIO_UNMATCHED);
		return 0;
	}
	emit_aio(req, w->tgid, w->start_ns, ev.res);
	bpf_map_delete_elem(&iolens_aio_reqs, &key);
	return 0;
}

#ifndef IOLENS_LEGACY
static long aio_submit_cb(__u32 i, void *ctx)
{
	return aio_submit_one(i, ctx);
}

static long aio_reap_cb(__u32 i, void *ctx)
{
	return aio_reap_one(i, ctx);
}
#endif

/* Runs one io_submit's iocbs or one io_getevents's events through its
 * handler: bpf_loop where the kernel has it (5.17+: up to
 * IOLENS_AIO_MAX_LOOP), else an unrolled IOLENS_AIO_MAX_BATCH; the rest
 * counts as aio_batch_cut. */
static __always_inline void aio_walk(struct aio_walk *w, long ret, bool submit)
{
	__u32 max = IOLENS_AIO_MAX_BATCH;

	if (ret <= 0)
		return;
#ifndef IOLENS_LEGACY
	/* The loop body's frame and the exit probe's together must fit the
	 * 512-byte stack: only the callback has it, so a standard build on a
	 * kernel without bpf_loop (5.13-5.16) follows no iocb (all cut). */
	max = iolens_have_bpf_loop() ? IOLENS_AIO_MAX_LOOP : 0;
#endif
	w->n = ret < max ? ret : max;
	if (ret > max)
		iolens_count_add(IOLENS_CNT_AIO_BATCH_CUT, ret - max);
#ifndef IOLENS_LEGACY
	if (w->n) {
		if (submit)
			bpf_loop(IOLENS_AIO_MAX_LOOP, aio_submit_cb, w, 0);
		else
			bpf_loop(IOLENS_AIO_MAX_LOOP, aio_reap_cb, w, 0);
	}
#else
	for (int i = 0; i < IOLENS_AIO_MAX_BATCH; i++)
		if (submit ? aio_submit_one(i, w) : aio_reap_one(i, w))
			break;
#endif
}

static __always_inline void aio_submitted(struct iolens_thread_state *st, __u64 pid_tgid, long ret)
{
	struct aio_walk w = {
		.uptr = st->args[2],
		.start_ns = st->start_ns,
		.cache_in_bytes = st->cache_in_bytes,
		.readahead_bytes = st->readahead_bytes,
		.blocked_ns = st->blocked_ns,
		.ra = (__u32)st->ra_sync << 16 | st->ra_async,
		.tgid = pid_tgid >> 32,
		.tid = (__u32)pid_tgid,
	};

	aio_walk(&w, ret, true);
}

static __always_inline void aio_reaped(struct iolens_thread_state *st, __u64 pid_tgid, __u64 now, long ret)
{
	struct aio_walk w = {
		.uptr = st->args[3], .start_ns = now, .tgid = pid_tgid >> 32, .tid = (__u32)pid_tgid};

	iolens_batch_flush(st); /* the thread's earlier calls first */
	aio_walk(&w, ret, false);
}

static __always_inline int on_sys_exit(void *ctx, struct pt_regs *regs, long ret, bool btf_regs)
{
	struct stack_ctx sc = {.ctx = ctx, .regs = regs, .btf_regs = btf_regs};
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct call_info c = {.offset = IOLENS_NO_OFFSET, .fd = -1};
	struct iolens_thread_state *st;
	__u64 now;

	if (!iolens_is_tracked(pid_tgid >> 32))
		return 0;
	st = iolens_current_state(false);
	if (!st || !st->active)
		return 0;
	now = bpf_ktime_get_ns();
	st->active = 0;
	if (st->op == OP_COPY) {
		emit_copy(&sc, st, pid_tgid, now, ret);
		return 0;
	}
	if (st->op == IOLENS_BPF_OP_AIO_SUBMIT) {
		aio_submitted(st, pid_tgid, ret);
		return 0;
	}
	if (st->op == IOLENS_BPF_OP_AIO_REAP) {
		aio_reaped(st, pid_tgid, now, ret);
		return 0;
	}
	if (decode_call(st, ret, pid_tgid >> 32, now, &c)) {
		emit_stack(&sc, st, pid_tgid, &c);
		emit_call(st, pid_tgid, now, ret, &c);
	}
	return 0;
}

/* Preferred: BTF-typed raw tracepoint (no tracefs, typed arguments). */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	return IOLENS_RUN(on_sys_enter(regs, id, true));
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	return IOLENS_RUN(on_sys_exit(ctx, regs, ret, true));
}

/* Fallback: untyped raw tracepoint, same data. */
SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	return IOLENS_RUN(on_sys_enter(regs, id, false));
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	return IOLENS_RUN(on_sys_exit(ctx, regs, ret, false));
}

#ifndef IOLENS_LEGACY
/* A thread's last batch goes out when it exits (this runs in its context).
 * Not filtered by the tracked set: the process family may already have
 * dropped the process from it when the last thread exits. */
static __always_inline int on_thread_exit(void)
{
	struct iolens_thread_state *st = iolens_current_state(false);

	if (st)
		iolens_batch_flush(st);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit_batch_btf)
{
	return IOLENS_RUN(on_thread_exit());
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_batch_raw)
{
	return IOLENS_RUN(on_thread_exit());
}

/* Run by user space when recording stops, after the syscall programs are
 * detached: sends the batches of threads that are still alive. */
SEC("iter/task")
int drain_batches(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct iolens_thread_state *st;

	if (!task)
		return 0;
	st = iolens_task_state(task, false);
	if (st)
		iolens_batch_flush(st);
	return 0;
}
#endif
