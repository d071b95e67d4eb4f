// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io_uring probe family: each read, write, fsync, sync_file_range, openat,
 * close or statx request a tracked process submits to an io_uring, from
 * submission to completion, as one syscall record of its class marked
 * IOLENS_PATH_IO_URING (bpf/aio.bpf.h does the same for Linux AIO).
 *  - io_uring_submit_req (6.4+), io_uring_submit_sqe (6.0-6.3; prep has
 *    run at both): opcode, the fd (or fixed-file
 *    index), offset and length from the request's struct io_rw (for READV and
 *    WRITEV the iovecs it points to, summed), the file a CLOSE will close,
 *    the submitting thread; kept under the request's address.
 *  - io_uring_queue_async_work: the request goes to an io-wq worker.
 *  - io_uring_complete: the file (req->file, assigned at issue: a fixed file
 *    resolves to the same identity as a plain fd; for OPENAT the new fd's
 *    file, announced by a file record as a syscall open is), the result; the
 *    record.
 * The submitting process is the tgid at submission: SQPOLL and io-wq threads
 * are threads of the ring's owner (5.12+), so their page-cache and block work
 * is charged to it by the other families.
 */
#include "common.bpf.h"
#include "file.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* include/uapi/linux/io_uring.h */
#define IORING_OP_READV 1
#define IORING_OP_WRITEV 2
#define IORING_OP_FSYNC 3
#define IORING_OP_SYNC_FILE_RANGE 8
#define IORING_OP_OPENAT 18
#define IORING_OP_CLOSE 19
#define IORING_OP_STATX 21
#define IORING_OP_OPENAT2 28
#define IORING_OP_READ_FIXED 4
#define IORING_OP_WRITE_FIXED 5
#define IORING_OP_READ 22
#define IORING_OP_WRITE 23
#define IORING_OP_READV_FIXED 60
#define IORING_OP_WRITEV_FIXED 61

#define IOLENS_NR_io_uring_enter 426

struct iou_req {
	__u64 start_ns;
	__u64 requested;
	__u64 offset;
	__u64 ino; /* CLOSE: the file it closes (IOU_HAS_FILE) */
	__u32 dev;
	__u32 mode;
	__u32 tgid;
	__u32 tid;
	__s32 fd;
	__u8 op;
	__u8 flags;
	__u8 opcode;
	__u8 state; /* enum iou_state */
};

enum iou_state {
	IOU_HAS_FILE = 1,   /* CLOSE: ino, dev and mode are the closed file's */
	IOU_FIXED_SLOT = 2, /* OPENAT/CLOSE on a registered-file slot: no fd, no file identity */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct iou_req);
	__uint(max_entries, 65536);
} iolens_iou_reqs SEC(".maps");

static __always_inline int iou_op(__u8 opcode)
{
	switch (opcode) {
	case IORING_OP_READV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_READ:
	case IORING_OP_READV_FIXED:
		return IOLENS_OP_READ;
	case IORING_OP_WRITEV:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_WRITE:
	case IORING_OP_WRITEV_FIXED:
		return IOLENS_OP_WRITE;
	case IORING_OP_FSYNC:
	case IORING_OP_SYNC_FILE_RANGE:
		return IOLENS_OP_SYNC;
	case IORING_OP_OPENAT:
	case IORING_OP_OPENAT2:
		return IOLENS_OP_OPEN;
	case IORING_OP_CLOSE:
		return IOLENS_OP_CLOSE;
	case IORING_OP_STATX:
		return IOLENS_OP_STAT;
	}
	return -1;
}

static __always_inline bool iou_vectored(__u8 opcode)
{
	return opcode == IORING_OP_READV || opcode == IORING_OP_WRITEV || opcode == IORING_OP_READV_FIXED ||
		opcode == IORING_OP_WRITEV_FIXED;
}

/* READ/WRITE: offset and length from the prepared struct io_rw (it lives in
 * the request's command area, io_uring/rw.h); READV/WRITEV: its addr and len
 * are the user iovec array and its count, summed as the vector syscalls are. */
static __always_inline void iou_prep_rw(struct io_kiocb *req, struct iou_req *r)
{
	struct io_rw *rw = (struct io_rw *)&req->cmd;
	__u32 len = BPF_CORE_READ(rw, len);

	r->offset = BPF_CORE_READ(rw, kiocb.ki_pos);
	if (iou_vectored(r->opcode))
		r->requested = iov_total(BPF_CORE_READ(rw, addr), len, &r->flags);
	else
		r->requested = len;
}

/* OPENAT/OPENAT2 into a registered-file slot, and CLOSE of one, have no fd;
 * a CLOSE of an fd: the file it closes, while it is still in the table. */
static __always_inline void iou_prep_open_close(struct io_kiocb *req, struct iou_req *r)
{
	struct iolens_file_info info;

	r->fd = -1;
	if (r->op == IOLENS_OP_OPEN) {
		if (BPF_CORE_READ((struct io_open *)&req->cmd, file_slot))
			r->state |= IOU_FIXED_SLOT;
		return;
	}
	struct io_close *c = (struct io_close *)&req->cmd;
	if (BPF_CORE_READ(c, file_slot)) {
		r->state |= IOU_FIXED_SLOT;
		return;
	}
	r->fd = BPF_CORE_READ(c, fd);
	if (iolens_file_info(iolens_fd_file(r->fd), &info)) {
		r->state |= IOU_HAS_FILE;
		r->ino = info.ino;
		r->dev = info.dev;
		r->mode = info.mode;
	}
}

static __always_inline int iou_submit(struct io_kiocb *req)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct iou_req r = {};
	__u64 key = (__u64)req;
	int op;

	if (!iolens_is_tracked(pid_tgid >> 32))
		return 0;
	r.opcode = req->opcode;
	op = iou_op(r.opcode);
	if (op < 0)
		return 0;
	r.start_ns = bpf_ktime_get_ns();
	r.op = op;
	r.tgid = pid_tgid >> 32;
	r.tid = (__u32)pid_tgid;
	r.fd = bpf_core_field_exists(req->cqe.fd) ? BPF_CORE_READ(req, cqe.fd) : -1;
	r.flags = IOLENS_PATH_IO_URING << IOLENS_SC_PATH_SHIFT;
	r.offset = IOLENS_NO_OFFSET;
	if (op == IOLENS_OP_READ || op == IOLENS_OP_WRITE)
		iou_prep_rw(req, &r);
	else if (op == IOLENS_OP_OPEN || op == IOLENS_OP_CLOSE)
		iou_prep_open_close(req, &r);
	else if (op == IOLENS_OP_STAT)
		r.fd = -1; /* by path, as stat(2): counted per process, no file */
	if (bpf_map_update_elem(&iolens_iou_reqs, &key, &r, BPF_ANY))
		iolens_count(IOLENS_CNT_IOU_MAP_FULL);
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(iou_submit_req, struct io_kiocb *req)
{
	return IOLENS_RUN(iou_submit(req));
}

/* 6.0-6.3: the same point (after io_init_req, so prep has run) under its
 * older name, with a force_nonblock flag (always true there); renamed and the
 * flag dropped by "io_uring: rename trace_io_uring_submit_sqe() tracepoint"
 * (6.4). Before 6.0 it passed (ctx, opcode, user_data, ...) without the
 * request (5.10: 5 arguments; 5.15: 7): no file, offset or length to read, so
 * the plan says the family cannot run there. */
/* Loaded only where the prototype is (req, force_nonblock); the catalog's
 * arity check keeps it off 5.10's (5 or 7 arguments, no request). */
IOLENS_TP_ARITY(io_uring_submit_sqe);

SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(iou_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return IOLENS_RUN(iou_submit(req));
}

static __always_inline int iou_offloaded(struct io_kiocb *req)
{
	__u64 key = (__u64)req;
	struct iou_req *r = bpf_map_lookup_elem(&iolens_iou_reqs, &key);

	if (r)
		r->flags |= IOLENS_SC_OFFLOADED;
	return 0;
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(iou_async, struct io_kiocb *req, int rw)
{
	return IOLENS_RUN(iou_offloaded(req));
}

/* io_uring_complete's prototype: 7 arguments (ctx, req, user_data, res,
 * cflags, extra1, extra2) before 6.13 or so; 3 (ctx, req, cqe) since the
 * CQE is passed whole ("io_uring: pass struct io_uring_cqe to the complete
 * tracepoint"). */
IOLENS_TP_ARITY(io_uring_complete);

static __always_inline __s32 complete_res(unsigned long long *ctx)
{
	if (iolens_arity_io_uring_complete == 7)
		return (__s32)IOLENS_CTX_ARG(ctx, 3);
	return BPF_CORE_READ((struct io_uring_cqe *)IOLENS_CTX_ARG(ctx, 2), res);
}

/* The record's file and flags, by class, as the syscall family decides them:
 * reads, writes and syncs of regular files only (a socket or a pipe is not
 * file I/O); opens, closes and stats always count, tied to a file when it is
 * a regular file or a directory. False: no record. */
static __always_inline bool iou_file(struct io_kiocb *req, struct iou_req *r, __s32 res, __u64 now,
                                     struct iolens_file_info *info, __u8 *flags)
{
	struct file *file = NULL;

	switch (r->op) {
	case IOLENS_OP_READ:
	case IOLENS_OP_WRITE:
	case IOLENS_OP_SYNC:
		if (!iolens_file_info(BPF_CORE_READ(req, file), info) || !iolens_is_regular(info->mode))
			return false;
		*flags |= IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR |
			(info->f_flags & IOLENS_O_DIRECT ? IOLENS_SC_DIRECT : 0);
		return true;
	case IOLENS_OP_OPEN:
		/* The new fd is installed before the completion is posted, in the
		 * ring owner's table (io-wq workers share it). */
		if (res < 0 || (r->state & IOU_FIXED_SLOT))
			return true;
		r->fd = res;
		file = iolens_fd_file(res);
		if (!iolens_file_info(file, info))
			return true;
		break;
	case IOLENS_OP_CLOSE:
		if (!(r->state & IOU_HAS_FILE))
			return true;
		info->ino = r->ino;
		info->dev = r->dev;
		info->mode = r->mode;
		break;
	default:
		return true;
	}
	if (!iolens_is_regular(info->mode) && !iolens_is_dir(info->mode))
		return true;
	*flags |= IOLENS_SC_HAS_FILE | (iolens_is_regular(info->mode) ? IOLENS_SC_REGULAR : 0);
	if (file) {
		emit_file_record(file, r->tgid, info, now);
		if (iolens_is_regular(info->mode))
			iolens_watch_inode(info->dev, info->ino, r->tgid);
	}
	return true;
}

/* A request completed: its syscall record, submission to completion. */
static __always_inline int iou_completed(unsigned long long *ctx)
{
	struct io_kiocb *req = (struct io_kiocb *)IOLENS_CTX_ARG(ctx, 1);
	__u64 key = (__u64)req;
	struct iolens_file_info info = {};
	struct iolens_syscall_rec *rec;
	struct iou_req *r;
	__u8 flags;
	__s32 res;
	__u64 now;

	r = bpf_map_lookup_elem(&iolens_iou_reqs, &key);
	if (!r)
		return 0;
	now = bpf_ktime_get_ns();
	res = complete_res(ctx);
	flags = r->flags | IOLENS_SC_CACHE_ZERO;
	if (!iou_file(req, r, res, now, &info, &flags)) {
		bpf_map_delete_elem(&iolens_iou_reqs, &key);
		return 0;
	}
	rec = iolens_reserve(IOLENS_SYSCALL_REC_V1_SIZE);
	if (!rec) {
		bpf_map_delete_elem(&iolens_iou_reqs, &key);
		return 0;
	}
	rec->hdr.type = IOLENS_REC_SYSCALL;
	rec->hdr.size = IOLENS_SYSCALL_REC_V1_SIZE;
	rec->syscall_nr = IOLENS_NR_io_uring_enter;
	rec->op = r->op;
	rec->flags = flags;
	rec->pid = r->tgid;
	rec->tid = r->tid;
	rec->start_ns = r->start_ns;
	rec->duration_ns = now - r->start_ns;
	rec->ret = res;
	rec->requested = r->requested;
	rec->offset = r->offset;
	rec->ino = flags & IOLENS_SC_HAS_FILE ? info.ino : 0;
	rec->dev = flags & IOLENS_SC_HAS_FILE ? info.dev : 0;
	rec->fd = r->fd;
	iolens_submit_sized(rec, IOLENS_SYSCALL_REC_V1_SIZE);
	bpf_map_delete_elem(&iolens_iou_reqs, &key);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(iou_complete)
{
	return IOLENS_RUN(iou_completed(ctx));
}
