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

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define MAP_ANONYMOUS_FLAG 0x20
#define MAX_IOVECS 16

static __always_inline int classify(long nr)
{
	switch (nr) {
	case NR_read: case NR_pread64: case NR_readv: case NR_preadv: case NR_preadv2:
		return IOLENS_OP_READ;
	case NR_write: case NR_pwrite64: case NR_writev: case NR_pwritev: case NR_pwritev2:
		return IOLENS_OP_WRITE;
	case NR_open: case NR_openat: case NR_openat2: case NR_creat:
		return IOLENS_OP_OPEN;
	case NR_close:
		return IOLENS_OP_CLOSE;
	case NR_stat: case NR_lstat: case NR_fstat: case NR_newfstatat: case NR_statx:
	case NR_access: case NR_faccessat: case NR_faccessat2:
		return IOLENS_OP_STAT;
	case NR_lseek:
		return IOLENS_OP_SEEK;
	case NR_mmap:
		return IOLENS_OP_MMAP;
	case NR_getdents64:
		return IOLENS_OP_READDIR;
	case NR_fsync: case NR_fdatasync: case NR_sync_file_range:
		return IOLENS_OP_SYNC;
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

/* Total bytes described by an iovec array in user memory (first MAX_IOVECS). */
static __always_inline __u64 iov_total(__u64 uptr, __u64 count, __u8 *flags)
{
	__u64 total = 0;

	if (count > MAX_IOVECS) {
		*flags |= IOLENS_SC_IOV_TRUNC;
		count = MAX_IOVECS;
	}
	for (int i = 0; i < MAX_IOVECS; i++) {
		struct iovec iov;

		if (i >= count)
			break;
		if (bpf_probe_read_user(&iov, sizeof(iov), (void *)(uptr + i * sizeof(iov))))
			break;
		total += iov.iov_len;
	}
	return total;
}

static __always_inline void emit_file_record(struct file *file, __u32 tgid, struct iolens_file_info *info,
					     __u64 now)
{
	__u32 zero = 0;
	struct iolens_file_scratch *s = bpf_map_lookup_elem(&iolens_file_scratch_map, &zero);
	__u64 size;

	if (!s)
		return;
	s->rec.hdr.type = IOLENS_REC_FILE;
	s->rec.flags = 0;
	s->rec.pid = tgid;
	s->rec.dev = info->dev;
	s->rec.ino = info->ino;
	s->rec.mode = info->mode;
	s->rec.size = info->size;
	s->rec.ts_ns = now;
	iolens_file_path(file, &s->rec);
	size = offsetof(struct iolens_file_rec, path) + (s->rec.path_len & (IOLENS_PATH_BYTES - 1));
	s->rec.hdr.size = size;
	if (size > sizeof(s->rec))
		return;
	iolens_output(&s->rec, size, false);
}

/* The fields every syscall record has (the first IOLENS_SYSCALL_REC_V1_SIZE
 * bytes), written straight into the reserved ring-buffer space. */
static __always_inline void fill_call(struct iolens_syscall_rec *rec, __u16 size, __u8 flags,
				      struct iolens_thread_state *st, __u64 pid_tgid, __u64 now, long ret,
				      __u64 requested, __u64 offset, struct iolens_file_info *info, int fd)
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
	rec->requested = requested;
	rec->offset = offset;
	rec->ino = has_file ? info->ino : 0;
	rec->dev = has_file ? info->dev : 0;
	rec->fd = fd;
}

static __always_inline int on_sys_exit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct iolens_file_info info = {};
	struct iolens_syscall_rec *rec;
	struct file *file = NULL;
	struct iolens_thread_state *st;
	__u64 now, offset = IOLENS_NO_OFFSET, requested = 0;
	__u8 flags = 0;
	int fd = -1;

	if (!iolens_is_tracked(tgid))
		return 0;
	st = iolens_current_state(false);
	if (!st || !st->active)
		return 0;
	now = bpf_ktime_get_ns();
	st->active = 0;

	switch (st->op) {
	case IOLENS_OP_READ:
	case IOLENS_OP_WRITE:
		fd = st->args[0];
		file = iolens_fd_file(fd);
		if (!iolens_file_info(file, &info) || !iolens_is_regular(info.mode))
			return 0; /* pipes, sockets, ttys: not file I/O */
		switch (st->nr) {
		case NR_read: case NR_write:
			requested = st->args[2];
			offset = info.pos - (ret > 0 ? ret : 0);
			break;
		case NR_pread64: case NR_pwrite64:
			requested = st->args[2];
			offset = st->args[3];
			break;
		case NR_readv: case NR_writev:
			requested = iov_total(st->args[1], st->args[2], &flags);
			offset = info.pos - (ret > 0 ? ret : 0);
			break;
		default: /* preadv, pwritev, preadv2, pwritev2 */
			requested = iov_total(st->args[1], st->args[2], &flags);
			offset = st->args[3];
			if ((__s64)offset == -1) /* preadv2/pwritev2: -1 means the file position */
				offset = info.pos - (ret > 0 ? ret : 0);
			break;
		}
		break;
	case IOLENS_OP_SEEK:
	case IOLENS_OP_SYNC:
		fd = st->args[0];
		file = iolens_fd_file(fd);
		if (!iolens_file_info(file, &info) || !iolens_is_regular(info.mode))
			return 0;
		if (st->op == IOLENS_OP_SEEK && ret >= 0)
			offset = ret;
		break;
	case IOLENS_OP_MMAP:
		if (st->args[3] & MAP_ANONYMOUS_FLAG)
			return 0;
		fd = st->args[4];
		file = iolens_fd_file(fd);
		if (!iolens_file_info(file, &info) || !iolens_is_regular(info.mode))
			return 0;
		requested = st->args[1];
		offset = st->args[5];
		break;
	case IOLENS_OP_OPEN:
		if (ret >= 0) {
			fd = ret;
			file = iolens_fd_file(fd);
			if (iolens_file_info(file, &info) && (iolens_is_regular(info.mode) || iolens_is_dir(info.mode))) {
				emit_file_record(file, tgid, &info, now);
				if (iolens_is_regular(info.mode))
					iolens_watch_inode(info.dev, info.ino, tgid);
			}
			else
				file = NULL;
		}
		break;
	case IOLENS_OP_CLOSE:
		fd = st->args[0];
		if (st->close_has_file) {
			info.dev = st->close_dev;
			info.ino = st->close_ino;
			info.mode = st->close_mode;
			if (iolens_is_regular(info.mode))
				flags |= IOLENS_SC_REGULAR;
			if (iolens_is_regular(info.mode) || iolens_is_dir(info.mode))
				flags |= IOLENS_SC_HAS_FILE;
		}
		break;
	case IOLENS_OP_STAT:
		if (st->nr == NR_fstat) {
			fd = st->args[0];
			file = iolens_fd_file(fd);
			if (!iolens_file_info(file, &info))
				file = NULL;
		}
		break;
	case IOLENS_OP_READDIR:
		fd = st->args[0];
		file = iolens_fd_file(fd);
		requested = st->args[2];
		if (!iolens_file_info(file, &info))
			file = NULL;
		break;
	}

	/* Per-file attribution is for files and directories, never pipes or
	 * sockets (an fstat of a pipe still counts as a stat call). */
	if (file && (iolens_is_regular(info.mode) || iolens_is_dir(info.mode))) {
		flags |= IOLENS_SC_HAS_FILE;
		if (iolens_is_regular(info.mode))
			flags |= IOLENS_SC_REGULAR;
		if (info.f_flags & IOLENS_O_DIRECT)
			flags |= IOLENS_SC_DIRECT;
	}

	/* Nothing happened in the page cache or the scheduler during the call
	 * (the usual cached read): the short record without those fields, into
	 * the thread's batch (call_batch.bpf.h). */
	if (!(st->cache_in_bytes | st->readahead_bytes | st->blocked_ns | st->ra_sync | st->ra_async)) {
#ifdef IOLENS_LEGACY
		rec = iolens_reserve(IOLENS_SYSCALL_REC_V1_SIZE);
		if (!rec)
			return 0;
		fill_call(rec, IOLENS_SYSCALL_REC_V1_SIZE, flags | IOLENS_SC_CACHE_ZERO, st, pid_tgid, now, ret,
			  requested, offset, &info, fd);
		iolens_submit_sized(rec, IOLENS_SYSCALL_REC_V1_SIZE);
#else
		rec = iolens_batch_slot(st);
		fill_call(rec, IOLENS_SYSCALL_REC_V1_SIZE, flags | IOLENS_SC_CACHE_ZERO, st, pid_tgid, now, ret,
			  requested, offset, &info, fd);
#endif
		return 0;
	}
	iolens_batch_flush(st); /* keep the thread's records in order */
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return 0;
	fill_call(rec, sizeof(*rec), flags, st, pid_tgid, now, ret, requested, offset, &info, fd);
	rec->cache_in_bytes = st->cache_in_bytes;
	rec->readahead_bytes = st->readahead_bytes;
	rec->blocked_ns = st->blocked_ns;
	rec->ra_sync = st->ra_sync;
	rec->ra_async = st->ra_async;
	rec->pad1 = 0;
	iolens_submit(rec);
	return 0;
}

/* Preferred: BTF-typed raw tracepoint (no tracefs, typed arguments). */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	return on_sys_enter(regs, id, true);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ret);
}

/* Fallback: untyped raw tracepoint, same data. */
SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter_raw, struct pt_regs *regs, long id)
{
	return on_sys_enter(regs, id, false);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	return on_sys_exit(ret);
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
	return on_thread_exit();
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_batch_raw)
{
	return on_thread_exit();
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
