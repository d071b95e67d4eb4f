// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Page-cache probe family: what a tracked thread brought into the page cache
 * and why.
 *  - Inside a traced syscall, pages added by the thread are that call's misses
 *    (carried out in its syscall record); those outside the pages the call
 *    asked for (the readahead tracepoints' index and req_count) are its
 *    readahead, followed to their eviction (ra_folios).
 *  - Outside syscalls, pages a tracked thread adds come from page faults on
 *    file mappings (mmap): FAULT_IN records. The one whose folio holds the
 *    faulting page counts as a major fault: the page was not in the cache
 *    (pages a minor fault's async readahead brings in are not majors).
 *  - Pages of watched files leaving the page cache, in whatever task that
 *    happens: EVICT records; read-ahead ones carry when they were added, so
 *    the model can tell from the job's reads whether they were read.
 *  - Faults and evictions go out as runs of adjacent folios, within a per-CPU
 *    budget (add_to_run).
 *  - When recording stops, read-ahead folios still cached: RESIDENT records.
 * Tracepoints: filemap:mm_filemap_add_to_page_cache and
 * mm_filemap_delete_from_page_cache (required), mm_filemap_fault,
 * readahead's page_cache_sync_ra and page_cache_async_ra (optional: user space
 * loads a program only where its tracepoint exists), sched_process_exit (a
 * thread's open runs; not in the legacy build).
 */
#include "common.bpf.h"
#include "thread_state.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define IOLENS_PAGE_SIZE 4096

/* Read-ahead folios a tracked thread brought into the cache during the
 * capture (added inside a read, past the pages it asked for), followed to
 * their eviction: only these can be "read ahead and never read". A plain
 * hash, so a full map is counted (IOLENS_CNT_PC_READAHEAD_FULL) rather than
 * silently recycled; what is still here when recording stops is sent as
 * RESIDENT records (drain_runs). */
struct ra_folio {
	__u64 added_ns;
	__u64 ino;
	__u64 index;
	__u32 dev;
	__u32 pid;
	__u32 bytes;
	__u32 ra_bytes; /* of bytes, the pages outside the read's request */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct ra_folio);
	__uint(max_entries, 131072);
} ra_folios SEC(".maps");

/* Page-cache records are runs of folios of one file by one thread (a fault's
 * readahead window, reclaim walking a file's pages; read-ahead folios only
 * while adjacent, the others in any order): a thread keeps one
 * fault run and one eviction run open and sends a run when the next folio
 * does not continue it, when it is IOLENS_PC_RUN_NS old, when the thread
 * exits, or when recording stops (drain_runs). What is still sent is bounded
 * per CPU (IOLENS_PC_BUDGET records per IOLENS_PC_WINDOW_NS); the rest is
 * counted as lost (IOLENS_CNT_PC_BUDGET). */
#define IOLENS_PC_RUN_NS (100ULL * 1000 * 1000)
#define IOLENS_PC_WINDOW_NS (100ULL * 1000 * 1000)
#define IOLENS_PC_BUDGET 8192

struct pc_run {
	__u64 ino;
	__u64 index; /* first page */
	__u64 end;   /* past the last page */
	__u64 first_ns;
	__u64 ra_bytes;
	__u64 start_ns; /* the run's first folio */
	__u64 ts_ns;    /* its last */
	__u64 bytes;
	__u32 dev;
	__u32 pid;
	__u32 tid;
	__u32 majors;
	__u32 folios;
	__u8 kind;
	__u8 flags;
	__u16 pad;
};

struct pc_runs {
	struct pc_run fault;
	struct pc_run evict;
};

#ifndef IOLENS_LEGACY
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pc_runs);
} pc_runs SEC(".maps");
#endif

struct pc_budget {
	__u64 window_ns;
	__u64 sent;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pc_budget);
	__uint(max_entries, 1);
} pc_budget SEC(".maps");

/* Whether this CPU may send one more page-cache record now. */
static __always_inline bool within_budget(__u64 now)
{
	__u32 zero = 0;
	struct pc_budget *b = bpf_map_lookup_elem(&pc_budget, &zero);

	if (!b)
		return true;
	if (now - b->window_ns > IOLENS_PC_WINDOW_NS) {
		b->window_ns = now;
		b->sent = 0;
	}
	if (b->sent >= IOLENS_PC_BUDGET) {
		iolens_count(IOLENS_CNT_PC_BUDGET);
		return false;
	}
	b->sent++;
	return true;
}

static __always_inline void send_run(struct pc_run *run, bool budgeted)
{
	struct iolens_pagecache_rec *rec;

	if (!run->folios)
		return;
	if (budgeted && !within_budget(bpf_ktime_get_ns())) {
		run->folios = 0;
		return;
	}
	rec = iolens_reserve(sizeof(*rec));
	if (!rec) {
		run->folios = 0;
		return;
	}
	rec->hdr.type = IOLENS_REC_PAGECACHE;
	rec->hdr.size = sizeof(*rec);
	rec->kind = run->kind;
	rec->flags = run->flags | (run->majors ? IOLENS_PCF_MAJOR_FAULT : 0);
	rec->pad0 = 0;
	rec->pid = run->pid;
	rec->tid = run->tid;
	rec->dev = run->dev;
	rec->pad1 = 0;
	rec->ino = run->ino;
	rec->bytes = run->bytes;
	rec->ts_ns = run->ts_ns;
	rec->index = run->index;
	rec->first_ns = run->first_ns;
	rec->ra_bytes = run->ra_bytes;
	rec->majors = run->majors;
	rec->folios = run->folios;
	iolens_submit(rec);
	run->folios = 0;
}

/* Adds `one` (a run of one folio) to the thread's open run of its kind, or
 * sends the open run and opens `one`; without per-thread runs (the legacy
 * build) sends `one` at once. */
static __always_inline void add_to_run(struct pc_run *one)
{
#ifndef IOLENS_LEGACY
	struct pc_runs *runs =
		bpf_task_storage_get(&pc_runs, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	struct pc_run *run;

	if (runs) {
		run = one->kind == IOLENS_PC_FAULT_IN ? &runs->fault : &runs->evict;
		/* Read-ahead folios keep their range (the model judges it); of
		 * the others only the bytes count, so any folio of the file joins. */
		if (run->folios && run->dev == one->dev && run->ino == one->ino && run->pid == one->pid &&
		    run->flags == one->flags && one->ts_ns - run->start_ns < IOLENS_PC_RUN_NS &&
		    (!(one->flags & IOLENS_PCF_READAHEAD) || run->end == one->index ||
		     one->end == run->index)) {
			if (run->end == one->index)
				run->end = one->end;
			else if (one->end == run->index)
				run->index = one->index;
			run->bytes += one->bytes;
			run->folios++;
			run->majors += one->majors;
			run->ra_bytes += one->ra_bytes;
			if (one->first_ns && (!run->first_ns || one->first_ns < run->first_ns))
				run->first_ns = one->first_ns;
			run->ts_ns = one->ts_ns;
			return;
		}
		send_run(run, true);
		__builtin_memcpy(run, one, sizeof(*run));
		return;
	}
#endif
	send_run(one, true);
}

/* Bytes in a folio: 4096 << order for a large folio (PG_head), else 4096. */
static __always_inline __u64 folio_bytes(struct folio *folio, __u64 flags)
{
	__u64 order = 0;

	if (flags & (1ULL << bpf_core_enum_value(enum pageflags, PG_head)))
		order = iolens_large_folio_order(folio);
	return (__u64)IOLENS_PAGE_SIZE << (order & 31);
}

static __always_inline bool folio_file(struct folio *folio, __u32 *dev, __u64 *ino)
{
	struct address_space *mapping = BPF_CORE_READ(folio, mapping);
	struct inode *host;

	if (!mapping || ((unsigned long)mapping & 1)) /* anonymous */
		return false;
	host = BPF_CORE_READ(mapping, host);
	if (!host)
		return false;
	*ino = BPF_CORE_READ(host, i_ino);
	*dev = BPF_CORE_READ(host, i_sb, s_dev);
	return true;
}

static __always_inline struct iolens_thread_state *thread_state(bool create)
{
	return iolens_current_state(create);
}

/* Pages of the folio [index, index + pages) outside the pages the thread's
 * read asked for: those its readahead brought in. Zero when the call
 * started no readahead (FADV_RANDOM reads, writes). */
static __always_inline __u64 readahead_pages(struct iolens_thread_state *st, __u64 index, __u64 pages)
{
	__u64 lo = st->ra_req_lo, hi = st->ra_req_hi, end = index + pages, in = 0;

	if (!(st->ra_sync | st->ra_async))
		return 0;
	if (end > lo && index < hi)
		in = (end < hi ? end : hi) - (index > lo ? index : lo);
	return pages - in;
}

/* A folio a read syscall added: a miss of the call; its pages past the
 * request are readahead, followed to their eviction. */
static __always_inline void add_in_call(struct iolens_thread_state *st, struct folio *folio, __u64 bytes,
                                        __u32 tgid)
{
	struct ra_folio rf = {};
	__u64 key = (__u64)folio, ra;
	int err;

	st->cache_in_bytes += bytes;
	rf.index = BPF_CORE_READ(folio, index);
	ra = readahead_pages(st, rf.index, bytes / IOLENS_PAGE_SIZE) * IOLENS_PAGE_SIZE;
	if (!ra)
		return;
	st->readahead_bytes += ra;
	if (!folio_file(folio, &rf.dev, &rf.ino))
		return;
	rf.added_ns = bpf_ktime_get_ns();
	rf.pid = tgid;
	rf.bytes = bytes;
	rf.ra_bytes = ra;
	err = bpf_map_update_elem(&ra_folios, &key, &rf, BPF_ANY);
	if (err)
		iolens_count(IOLENS_CNT_PC_READAHEAD_FULL);
}

static __always_inline int on_add(struct folio *folio)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct iolens_thread_state *st;
	struct pc_run one = {};
	__u64 flags, bytes, ino;
	__u32 dev;

	if (!iolens_is_tracked(tgid))
		return 0;
	flags = iolens_folio_flags(folio);
	bytes = folio_bytes(folio, flags);
	st = thread_state(false);
	if (st && st->active) {
		/* A copy call writing its destination: not a miss of its read. */
		if (st->op == IOLENS_BPF_OP_COPY && folio_file(folio, &dev, &ino) &&
		    ino == st->copy_dst_ino && dev == st->copy_dst_dev)
			return 0;
		add_in_call(st, folio, bytes, tgid);
		return 0;
	}
	if (!folio_file(folio, &one.dev, &one.ino))
		return 0;
	iolens_watch_inode(one.dev, one.ino, tgid);
	one.kind = IOLENS_PC_FAULT_IN;
	one.index = BPF_CORE_READ(folio, index);
	one.end = one.index + bytes / IOLENS_PAGE_SIZE;
	one.bytes = bytes;
	if (st && st->fault_pending && st->fault_mapping == (__u64)BPF_CORE_READ(folio, mapping) &&
	    st->fault_index >= one.index && st->fault_index < one.end) {
		one.majors = 1;
		st->fault_pending = 0;
	}
	one.pid = tgid;
	one.tid = (__u32)pid_tgid;
	one.folios = 1;
	one.start_ns = one.ts_ns = bpf_ktime_get_ns();
	add_to_run(&one);
	return 0;
}

#define IOLENS_PF_MEMALLOC 0x00000800 /* include/linux/sched.h, unchanged since 2.6 */

static __always_inline int on_delete(struct folio *folio)
{
	struct iolens_inode_key key = {};
	struct pc_run one = {};
	__u64 folio_key = (__u64)folio;
	struct ra_folio *rf;
	__u32 *owner;

	if (!folio_file(folio, &key.dev, &key.ino))
		return 0;
	rf = bpf_map_lookup_elem(&ra_folios, &folio_key);
	if (rf) {
		/* Charged to the process that read it ahead. */
		one.first_ns = rf->added_ns;
		one.ra_bytes = rf->ra_bytes;
		one.pid = rf->pid;
		one.flags = IOLENS_PCF_READAHEAD;
		bpf_map_delete_elem(&ra_folios, &folio_key);
	}
	owner = bpf_map_lookup_elem(&iolens_watched_inodes, &key);
	if (!owner)
		return 0;
	one.kind = IOLENS_PC_EVICT;
	if (!one.pid)
		one.pid = *owner;
	/* Who removes it: reclaim (kswapd, or direct/memcg reclaim in any task:
	 * PF_MEMALLOC set) is memory pressure; a traced thread outside reclaim
	 * drops the job's own pages. */
	if (iolens_is_tracked(bpf_get_current_pid_tgid() >> 32) &&
	    !(BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), flags) & IOLENS_PF_MEMALLOC))
		one.flags |= IOLENS_PCF_BY_JOB;
	one.tid = (__u32)bpf_get_current_pid_tgid();
	one.dev = key.dev;
	one.ino = key.ino;
	one.index = BPF_CORE_READ(folio, index);
	one.bytes = folio_bytes(folio, iolens_folio_flags(folio));
	one.end = one.index + one.bytes / IOLENS_PAGE_SIZE;
	one.folios = 1;
	one.start_ns = one.ts_ns = bpf_ktime_get_ns();
	add_to_run(&one);
	return 0;
}

static __always_inline int on_fault(struct address_space *mapping, unsigned long index)
{
	struct iolens_thread_state *st;

	if (!iolens_is_tracked(bpf_get_current_pid_tgid() >> 32))
		return 0;
	st = thread_state(true);
	if (st) {
		st->fault_pending = 1;
		st->fault_mapping = (__u64)mapping;
		st->fault_index = index;
	}
	return 0;
}

/* Readahead started inside a traced call: the pages it asked for are
 * [index, index + req_count) (the tracepoints' own arguments), the pages it
 * adds outside them are readahead. */
static __always_inline int on_readahead(bool sync, unsigned long index, unsigned long req_count)
{
	struct iolens_thread_state *st;
	__u64 end = (__u64)index + req_count;

	if (!iolens_is_tracked(bpf_get_current_pid_tgid() >> 32))
		return 0;
	st = thread_state(false);
	if (!st || !st->active)
		return 0;
	if (!(st->ra_sync | st->ra_async)) {
		st->ra_req_lo = index;
		st->ra_req_hi = end;
	} else {
		if (index < st->ra_req_lo)
			st->ra_req_lo = index;
		if (end > st->ra_req_hi)
			st->ra_req_hi = end;
	}
	if (sync)
		st->ra_sync++;
	else
		st->ra_async++;
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_add_btf, struct folio *folio)
{
	return IOLENS_RUN(on_add(folio));
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_delete_btf, struct folio *folio)
{
	return IOLENS_RUN(on_delete(folio));
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(pc_fault_btf, struct address_space *mapping, unsigned long index)
{
	return IOLENS_RUN(on_fault(mapping, index));
}

SEC("tp_btf/page_cache_sync_ra")
int BPF_PROG(pc_sync_ra_btf, struct inode *inode, unsigned long index, void *ra, unsigned long req_count)
{
	return IOLENS_RUN(on_readahead(true, index, req_count));
}

SEC("tp_btf/page_cache_async_ra")
int BPF_PROG(pc_async_ra_btf, struct inode *inode, unsigned long index, void *ra, unsigned long req_count)
{
	return IOLENS_RUN(on_readahead(false, index, req_count));
}

SEC("raw_tp/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_add_raw, struct folio *folio)
{
	return IOLENS_RUN(on_add(folio));
}

SEC("raw_tp/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_delete_raw, struct folio *folio)
{
	return IOLENS_RUN(on_delete(folio));
}

SEC("raw_tp/mm_filemap_fault")
int BPF_PROG(pc_fault_raw, struct address_space *mapping, unsigned long index)
{
	return IOLENS_RUN(on_fault(mapping, index));
}

SEC("raw_tp/page_cache_sync_ra")
int BPF_PROG(pc_sync_ra_raw, struct inode *inode, unsigned long index, void *ra, unsigned long req_count)
{
	return IOLENS_RUN(on_readahead(true, index, req_count));
}

SEC("raw_tp/page_cache_async_ra")
int BPF_PROG(pc_async_ra_raw, struct inode *inode, unsigned long index, void *ra, unsigned long req_count)
{
	return IOLENS_RUN(on_readahead(false, index, req_count));
}

#ifndef IOLENS_LEGACY
/* A thread's open runs leave when it exits... */
static __always_inline int on_exit(void)
{
	struct pc_runs *runs = bpf_task_storage_get(&pc_runs, bpf_get_current_task_btf(), 0, 0);

	if (runs) {
		send_run(&runs->fault, true);
		send_run(&runs->evict, true);
	}
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pc_exit_btf)
{
	return IOLENS_RUN(on_exit());
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(pc_exit_raw)
{
	return IOLENS_RUN(on_exit());
}

/* Read-ahead folios still in the page cache when recording stops: one
 * RESIDENT record each (the model judges whether the job read them). */
static long send_resident(void *map, __u64 *key, struct ra_folio *rf, void *ctx)
{
	struct pc_run one = {};

	one.kind = IOLENS_PC_RESIDENT;
	one.flags = IOLENS_PCF_READAHEAD;
	one.pid = rf->pid;
	one.dev = rf->dev;
	one.ino = rf->ino;
	one.index = rf->index;
	one.end = rf->index + rf->bytes / IOLENS_PAGE_SIZE;
	one.bytes = rf->bytes;
	one.first_ns = one.start_ns = rf->added_ns;
	one.ts_ns = bpf_ktime_get_ns();
	one.ra_bytes = rf->ra_bytes;
	one.folios = 1;
	send_run(&one, false);
	return 0;
}

__u32 resident_sent = 0;

/* ... or when recording stops, for the threads still alive (kswapd's
 * eviction run among them); the first task visited also sends the
 * read-ahead folios still cached. */
SEC("iter/task")
int drain_runs(struct bpf_iter__task *ctx)
{
	struct task_struct *task;
	struct pc_runs *runs;

	if (!resident_sent) {
		resident_sent = 1;
		bpf_for_each_map_elem(&ra_folios, send_resident, NULL, 0);
	}
	/* One load of ctx->task: 6.1's verifier sees a second load as
	 * ptr_or_null again and rejects the storage lookup. */
	task = ctx->task;
	if (!task)
		return 0;
	runs = bpf_task_storage_get(&pc_runs, task, 0, 0);
	if (runs) {
		send_run(&runs->fault, false);
		send_run(&runs->evict, false);
	}
	return 0;
}
#endif
