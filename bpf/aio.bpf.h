/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Linux AIO, from the syscall probes (syscalls.bpf.c): each iocb io_submit
 * accepted, from submission to the io_event io_getevents/io_pgetevents
 * returned for it, is one syscall record of its class (pread/preadv: read,
 * pwrite/pwritev: write, fsync/fdsync: sync) marked IOLENS_PATH_AIO, charged
 * to the submitting thread and the iocb's file.
 *  - io_submit exit: its first `ret` iocbs (those the kernel took; at most
 *    IOLENS_AIO_MAX_LOOP, or IOLENS_AIO_MAX_BATCH before 5.17) are read from user memory with their file, and
 * kept under (tgid, iocb address) in iolens_aio_reqs.
 *  - io_getevents/io_pgetevents exit: the `ret` io_events (as many) are read from user memory; each one's
 * `obj` is the iocb address, whose entry becomes the record (ret = the event's res). The latency is
 * submission to reaping: an upper bound of the device's time. Completions reaped from the user-space ring (no
 * io_getevents) are never seen: their entries stay in the map until it is full (counted). Page-cache and
 * blocking activity inside io_submit (buffered AIO reads run synchronously there) goes with the first iocb of
 * the batch.
 */
#ifndef IOLENS_AIO_BPF_H
#define IOLENS_AIO_BPF_H

#include "common.bpf.h"
#include "thread_state.bpf.h"

/* iocbs of one io_submit (events of one io_getevents) followed: unrolled
 * without bpf_loop (before 5.17), with it. */
#define IOLENS_AIO_MAX_BATCH 64
#define IOLENS_AIO_MAX_LOOP 65536

/* include/uapi/linux/aio_abi.h */
#define IOLENS_IOCB_CMD_PREAD 0
#define IOLENS_IOCB_CMD_PWRITE 1
#define IOLENS_IOCB_CMD_FSYNC 2
#define IOLENS_IOCB_CMD_FDSYNC 3
#define IOLENS_IOCB_CMD_PREADV 7
#define IOLENS_IOCB_CMD_PWRITEV 8

struct iolens_aio_key {
	__u64 iocb; /* the iocb's user address (io_event.obj) */
	__u32 tgid;
	__u32 pad;
};

struct iolens_aio_req {
	__u64 start_ns;
	__u64 requested;
	__u64 offset;
	__u64 ino;
	__u64 cache_in_bytes;
	__u64 readahead_bytes;
	__u64 blocked_ns;
	__u32 dev;
	__u32 tid;
	__s32 fd;
	__u16 ra_sync;
	__u16 ra_async;
	__u8 op;
	__u8 flags;
	__u16 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct iolens_aio_key);
	__type(value, struct iolens_aio_req);
	__uint(max_entries, 65536);
} iolens_aio_reqs SEC(".maps");

static __always_inline int iolens_aio_op(__u16 opcode)
{
	switch (opcode) {
	case IOLENS_IOCB_CMD_PREAD:
	case IOLENS_IOCB_CMD_PREADV:
		return IOLENS_OP_READ;
	case IOLENS_IOCB_CMD_PWRITE:
	case IOLENS_IOCB_CMD_PWRITEV:
		return IOLENS_OP_WRITE;
	case IOLENS_IOCB_CMD_FSYNC:
	case IOLENS_IOCB_CMD_FDSYNC:
		return IOLENS_OP_SYNC;
	}
	return -1;
}

#endif /* IOLENS_AIO_BPF_H */
