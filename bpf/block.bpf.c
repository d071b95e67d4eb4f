// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Block probe family: every block request on the machine, with queue time
 * (insert to issue), service time (issue to completion), size, position and
 * queue depth, charged to the tracked process that submitted it.
 *
 * Attribution happens at submission, in the submitter's own context, never
 * from `current` at completion, which runs in interrupt context on whatever
 * task was there. block_getrq fires when a request is allocated for a bio, in
 * the submitter's context and after the bio was split to the device's limits,
 * so its sector is the request's start sector: the request is matched to it by
 * (disk, start sector) when it is issued. (block_bio_queue fires before the
 * split, so the tail of a large readahead bio would go uncharged.)
 *
 * A bio merged at the front of a request that is not issued yet (plugged or
 * in the scheduler) moves the request's start sector back to its own:
 * block_bio_frontmerge moves the owner entry with it, or the whole request
 * would be charged to nobody. (A bio merged at the back changes nothing we
 * key on; the request stays charged to whoever allocated it.)
 *
 * On 6.5+ block_io_start names the request itself in the submitter's context
 * (on_io_start): the sector matching, which two submitters of one sector
 * defeat, is then not loaded at all.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define REQ_OP_MASK 0xff /* REQ_OP_BITS = 8 */
#define REQ_OP_READ 0
#define REQ_OP_WRITE 1

struct bio_key {
	__u64 sector;
	__u32 dev;
	__u32 pad;
};

/* Submitter of a request's first bio, until the request is issued. LRU:
 * entries whose request is never issued age out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct bio_key);
	__type(value, __u32);
	__uint(max_entries, 16384);
} bio_owner SEC(".maps");

struct rq_state {
	__u64 insert_ns;
	__u64 issue_ns;
	__u32 pid;
	__u16 depth;
	__u8 queued;
	__u8 issued;
	__u8 started; /* block_io_start saw it: pid is its submitter (0: untracked) */
	__u8 pad[7];
};

/* In-flight requests by struct request address. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct rq_state);
	__uint(max_entries, 16384);
} requests SEC(".maps");

/* Requests issued and not completed, per disk. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 256);
} inflight SEC(".maps");

static __always_inline __u32 disk_dev(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
}

static __always_inline __u32 rq_dev(struct request *rq)
{
	return disk_dev(iolens_rq_disk(rq));
}

/* (disk, start sector) of a bio, the key its request is matched by. */
static __always_inline struct bio_key bio_start(struct bio *bio)
{
	struct bio_key key = {};

	key.dev = disk_dev(iolens_bio_disk(bio));
	key.sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	return key;
}

/* An update of a block-layer map whose failure costs a detail of a request
 * (its submitter, insert time or queue depth), not the request: counted. */
static __always_inline void block_map_update(void *map, const void *key, const void *value)
{
	if (bpf_map_update_elem(map, key, value, BPF_ANY))
		iolens_count(IOLENS_CNT_BLOCK_MAP_FAIL);
}

static __always_inline int on_getrq(struct bio *bio)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct bio_key key;

	if (!iolens_is_tracked(tgid))
		return 0;
	key = bio_start(bio);
	block_map_update(&bio_owner, &key, &tgid);
	return 0;
}

/* The bio goes in front of a request that starts where the bio ends; the
 * request will be issued at the bio's start sector. Its owner moves there. A
 * request nobody tracked owns becomes the merging process's if that one is
 * tracked: its bytes are then at least partly its own. */
static __always_inline int on_frontmerge(struct bio *bio)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, owner, *found;
	struct bio_key key = bio_start(bio), old = key;

	old.sector += BPF_CORE_READ(bio, bi_iter.bi_size) >> 9;
	found = bpf_map_lookup_elem(&bio_owner, &old);
	if (found) {
		owner = *found;
		bpf_map_delete_elem(&bio_owner, &old);
	} else if (iolens_is_tracked(tgid)) {
		owner = tgid;
	} else {
		return 0;
	}
	block_map_update(&bio_owner, &key, &owner);
	return 0;
}

/*
 * 6.5+ (commit 5a80bd075f3b, "block: introduce block_io_start/block_io_done
 * tracepoints"): block_io_start fires as a bio becomes a new request, in the
 * submitter's context (blk_mq_bio_to_request -> blk_account_io_start), so the
 * request itself names its submitter: no matching by start sector, which
 * loses one of two processes reading the same sector at once (two fio jobs
 * on one file lost 4-16 KiB of 4 MiB of O_DIRECT reads a run under load). Where the
 * kernel has it, user space does not load the getrq and frontmerge programs
 * (user/probes/catalog.cpp). Every new request's entry is written, tracked or
 * not, so a stale entry of a request merged away (freed uncompleted) never
 * lends its owner to the next request at that address.
 */
static __always_inline int on_io_start(struct request *rq)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 id = (__u64)rq;
	struct rq_state st = {};

	st.started = 1;
	st.pid = iolens_is_tracked(tgid) ? tgid : 0;
	block_map_update(&requests, &id, &st);
	return 0;
}

static __always_inline int on_insert(struct request *rq)
{
	__u64 id = (__u64)rq;
	struct rq_state fresh = {}, *st;

	st = bpf_map_lookup_elem(&requests, &id);
	if (!st || (!st->started && !st->issued)) {
		/* no block_io_start on this kernel: the entry starts here (a
		 * requeued request inserted again keeps its entry) */
		block_map_update(&requests, &id, &fresh);
		st = bpf_map_lookup_elem(&requests, &id);
		if (!st)
			return 0;
	}
	st->insert_ns = bpf_ktime_get_ns();
	st->queued = 1;
	return 0;
}

static __always_inline int on_issue(struct request *rq)
{
	__u64 id = (__u64)rq;
	struct rq_state fresh = {}, *st;
	struct bio_key key = {};
	__u32 zero = 0, *depth, *owner;

	st = iolens_lookup_or_init(&requests, &id, &fresh);
	if (!st) { /* the map is full: this request's record is lost */
		iolens_count(IOLENS_CNT_BLOCK_REQ_FULL);
		return 0;
	}
	key.dev = rq_dev(rq);
	key.sector = BPF_CORE_READ(rq, __sector);
	if (!st->started) { /* no block_io_start: the owner of its first bio */
		owner = bpf_map_lookup_elem(&bio_owner, &key);
		if (owner) {
			st->pid = *owner;
			bpf_map_delete_elem(&bio_owner, &key);
		}
	}
	if (!st->issued) { /* a requeued request is issued again: count it once */
		depth = iolens_lookup_or_init(&inflight, &key.dev, &zero);
		if (depth) {
			__sync_fetch_and_add(depth, 1);
			st->depth = *depth;
		} else {
			iolens_count(IOLENS_CNT_BLOCK_MAP_FAIL);
			st->depth = 1;
		}
	}
	st->issued = 1;
	st->issue_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_complete(struct request *rq, unsigned int nr_bytes)
{
	__u64 id = (__u64)rq;
	struct iolens_block_rec *rec;
	struct rq_state *st;
	__u32 dev, *depth, op;

	st = bpf_map_lookup_elem(&requests, &id);
	if (!st || !st->issued) {
		/* issued before tracing started (or not traced: BLOCK_REQ_FULL) */
		iolens_count(IOLENS_CNT_BLOCK_UNMATCHED);
		return 0;
	}
	dev = rq_dev(rq);
	depth = bpf_map_lookup_elem(&inflight, &dev);
	if (depth && *depth > 0)
		__sync_fetch_and_add(depth, -1);
	op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
	rec = iolens_reserve(sizeof(*rec));
	if (rec) {
		rec->hdr.type = IOLENS_REC_BLOCK;
		rec->hdr.size = sizeof(*rec);
		rec->op = op == REQ_OP_READ  ? IOLENS_BLK_READ
			: op == REQ_OP_WRITE ? IOLENS_BLK_WRITE
					     : IOLENS_BLK_OTHER;
		rec->flags = st->queued ? IOLENS_BLKF_QUEUED : 0;
		rec->depth = st->depth;
		rec->dev = dev;
		rec->pid = st->pid;
		rec->bytes = nr_bytes;
		rec->pad0 = 0;
		rec->sector = BPF_CORE_READ(rq, __sector);
		rec->issue_ns = st->issue_ns;
		rec->queue_ns = st->queued ? st->issue_ns - st->insert_ns : 0;
		rec->service_ns = bpf_ktime_get_ns() - st->issue_ns;
		iolens_submit(rec);
	}
	bpf_map_delete_elem(&requests, &id);
	return 0;
}

/*
 * 5.11 dropped the request_queue argument of block_rq_insert/issue (commit
 * a54895fa057c, "block: remove the request_queue to argument request based
 * tracepoints") and the queue and request arguments of block_getrq (which
 * also lost its rw) and block_bio_frontmerge (e8a676d61c07, "block: simplify
 * and extend the block_bio_merge tracepoint class"); some stable kernels took
 * one change and not the other (Debian's 5.10). One program per tracepoint
 * and hook reads its argument where this kernel's prototype has it: user
 * space sets each iolens_arity_<tracepoint> from the kernel's BTF (the probe
 * plan, user/probes/catalog.cpp). Reading the wrong position would not fail:
 * it would read a request_queue as a request.
 */
IOLENS_TP_ARITY(block_getrq);          /* 1: (bio); 3: (q, bio, rw) */
IOLENS_TP_ARITY(block_bio_frontmerge); /* 1: (bio); 3: (q, rq, bio) */
IOLENS_TP_ARITY(block_rq_insert);      /* 1: (rq); 2: (q, rq) */
IOLENS_TP_ARITY(block_rq_issue);       /* 1: (rq); 2: (q, rq) */
/* block_io_start (6.5+) has one prototype: (rq). */

#define GETRQ_BIO(ctx) ((struct bio *)IOLENS_TP_ARG(ctx, block_getrq, 3, 1, 0))
#define FRONTMERGE_BIO(ctx) ((struct bio *)IOLENS_TP_ARG(ctx, block_bio_frontmerge, 3, 2, 0))
#define INSERT_RQ(ctx) ((struct request *)IOLENS_TP_ARG(ctx, block_rq_insert, 2, 1, 0))
#define ISSUE_RQ(ctx) ((struct request *)IOLENS_TP_ARG(ctx, block_rq_issue, 2, 1, 0))

SEC("tp_btf/block_getrq")
int BPF_PROG(blk_getrq_btf)
{
	return IOLENS_RUN(on_getrq(GETRQ_BIO(ctx)));
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(blk_frontmerge_btf)
{
	return IOLENS_RUN(on_frontmerge(FRONTMERGE_BIO(ctx)));
}

SEC("tp_btf/block_io_start")
int BPF_PROG(blk_io_start_btf, struct request *rq)
{
	return IOLENS_RUN(on_io_start(rq));
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(blk_rq_insert_btf)
{
	return IOLENS_RUN(on_insert(INSERT_RQ(ctx)));
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(blk_rq_issue_btf)
{
	return IOLENS_RUN(on_issue(ISSUE_RQ(ctx)));
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(blk_rq_complete_btf, struct request *rq, int error, unsigned int nr_bytes)
{
	return IOLENS_RUN(on_complete(rq, nr_bytes));
}

SEC("raw_tp/block_getrq")
int BPF_PROG(blk_getrq_raw)
{
	return IOLENS_RUN(on_getrq(GETRQ_BIO(ctx)));
}

SEC("raw_tp/block_bio_frontmerge")
int BPF_PROG(blk_frontmerge_raw)
{
	return IOLENS_RUN(on_frontmerge(FRONTMERGE_BIO(ctx)));
}

SEC("raw_tp/block_io_start")
int BPF_PROG(blk_io_start_raw, struct request *rq)
{
	return IOLENS_RUN(on_io_start(rq));
}

SEC("raw_tp/block_rq_insert")
int BPF_PROG(blk_rq_insert_raw)
{
	return IOLENS_RUN(on_insert(INSERT_RQ(ctx)));
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(blk_rq_issue_raw)
{
	return IOLENS_RUN(on_issue(ISSUE_RQ(ctx)));
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(blk_rq_complete_raw, struct request *rq, int error, unsigned int nr_bytes)
{
	return IOLENS_RUN(on_complete(rq, nr_bytes));
}
