// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io_uring probe family: each read, write or fsync request a tracked process
 * submits to an io_uring, from submission to completion, as one syscall
 * record of its class marked IOLENS_PATH_IO_URING (bpf/aio.bpf.h does the
 * same for Linux AIO).
 *  - io_uring_submit_req (6.4+; prep has run): opcode, the fd (or fixed-file
 *    index), offset and length from the request's struct io_rw, the
 *    submitting thread; kept under the request's address.
 *  - io_uring_queue_async_work: the request goes to an io-wq worker.
 *  - io_uring_complete: the file (req->file, assigned at issue: a fixed file
 *    resolves to the same identity as a plain fd), the result; the record.
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
	__u32 tgid;
	__u32 tid;
	__s32 fd;
	__u8 op;
	__u8 flags;
	__u8 opcode;
	__u8 pad;
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
		return IOLENS_OP_SYNC;
	}
	return -1;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(iou_submit, struct io_kiocb *req)
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
	if (op != IOLENS_OP_SYNC) {
		/* struct io_rw lives in the request's command area (io_uring/rw.h). */
		struct io_rw *rw = (struct io_rw *)&req->cmd;
		__u32 len = BPF_CORE_READ(rw, len);
		__s64 pos = BPF_CORE_READ(rw, kiocb.ki_pos);

		r.offset = pos;
		if (r.opcode == IORING_OP_READV || r.opcode == IORING_OP_WRITEV ||
		    r.opcode == IORING_OP_READV_FIXED || r.opcode == IORING_OP_WRITEV_FIXED)
			r.flags |= IOLENS_SC_IOV_TRUNC; /* the iovecs are not summed: requested is unknown */
		else
			r.requested = len;
	}
	if (bpf_map_update_elem(&iolens_iou_reqs, &key, &r, BPF_ANY))
		iolens_count(IOLENS_CNT_IOU_MAP_FULL);
	return 0;
}

SEC("tp_btf/io_uring_queue_async_work")
int BPF_PROG(iou_async, struct io_kiocb *req, int rw)
{
	__u64 key = (__u64)req;
	struct iou_req *r = bpf_map_lookup_elem(&iolens_iou_reqs, &key);

	if (r)
		r->flags |= IOLENS_SC_OFFLOADED;
	return 0;
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

SEC("tp_btf/io_uring_complete")
int BPF_PROG(iou_complete)
{
	struct io_kiocb *req = (struct io_kiocb *)IOLENS_CTX_ARG(ctx, 1);
	__u64 key = (__u64)req;
	struct iolens_file_info info;
	struct iolens_syscall_rec *rec;
	struct iou_req *r;
	__u64 now;

	r = bpf_map_lookup_elem(&iolens_iou_reqs, &key);
	if (!r)
		return 0;
	now = bpf_ktime_get_ns();
	/* Reads and writes of pipes and sockets are not file I/O. */
	if (!iolens_file_info(BPF_CORE_READ(req, file), &info) || !iolens_is_regular(info.mode)) {
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
	rec->flags = r->flags | IOLENS_SC_CACHE_ZERO | IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR |
		(info.f_flags & IOLENS_O_DIRECT ? IOLENS_SC_DIRECT : 0);
	rec->pid = r->tgid;
	rec->tid = r->tid;
	rec->start_ns = r->start_ns;
	rec->duration_ns = now - r->start_ns;
	rec->ret = complete_res(ctx);
	rec->requested = r->requested;
	rec->offset = r->offset;
	rec->ino = info.ino;
	rec->dev = info.dev;
	rec->fd = r->fd;
	iolens_submit_sized(rec, IOLENS_SYSCALL_REC_V1_SIZE);
	bpf_map_delete_elem(&iolens_iou_reqs, &key);
	return 0;
}
