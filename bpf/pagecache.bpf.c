// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Page-cache probe family: what a tracked thread brought into the page cache
 * and why.
 *  - Inside a traced syscall, pages added by the thread are that call's misses
 *    (carried out in its syscall record); those added after the call started
 *    readahead are its readahead.
 *  - Outside syscalls, pages a tracked thread adds come from page faults on
 *    file mappings (mmap): FAULT_IN records. The one whose folio holds the
 *    faulting page is marked as a major fault: the page was not in the cache
 *    (pages a minor fault's async readahead brings in are not majors).
 *  - Pages of watched files leaving the page cache, in whatever task that
 *    happens: EVICT records, marked when the page was never accessed.
 * Tracepoints: filemap:mm_filemap_add_to_page_cache and
 * mm_filemap_delete_from_page_cache (required), mm_filemap_fault,
 * readahead's page_cache_sync_ra and page_cache_async_ra (optional: user space
 * loads a program only where its tracepoint exists).
 */
#include "common.bpf.h"
#include "thread_state.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define IOLENS_PAGE_SIZE 4096

/* Folios a tracked thread brought into the cache during the capture. Only
 * these can be "read ahead and never used" when evicted: pages that were
 * cached before (by another process, or by a writer) say nothing about this
 * job's readahead. LRU: the oldest entries age out on very large jobs, which
 * can only undercount waste. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, __u8);
	__uint(max_entries, 262144);
} job_folios SEC(".maps");

static __always_inline void remember_folio(struct folio *folio)
{
	__u64 key = (__u64)folio;
	__u8 one = 1;

	bpf_map_update_elem(&job_folios, &key, &one, BPF_ANY);
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

static __always_inline int on_add(struct folio *folio)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct iolens_thread_state *st;
	struct iolens_pagecache_rec *rec;
	__u64 flags, bytes, ino;
	__u32 dev;

	if (!iolens_is_tracked(tgid))
		return 0;
	flags = iolens_folio_flags(folio);
	bytes = folio_bytes(folio, flags);
	remember_folio(folio);
	st = thread_state(false);
	if (st && st->active) {
		/* A copy call writing its destination: not a miss of its read. */
		if (st->op == IOLENS_BPF_OP_COPY && folio_file(folio, &dev, &ino) &&
		    ino == st->copy_dst_ino && dev == st->copy_dst_dev)
			return 0;
		st->cache_in_bytes += bytes;
		if (st->ra_sync || st->ra_async)
			st->readahead_bytes += bytes;
		return 0;
	}
	if (!folio_file(folio, &dev, &ino))
		return 0;
	iolens_watch_inode(dev, ino, tgid);
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return 0;
	rec->hdr.type = IOLENS_REC_PAGECACHE;
	rec->hdr.size = sizeof(*rec);
	rec->kind = IOLENS_PC_FAULT_IN;
	rec->flags = 0;
	rec->index = BPF_CORE_READ(folio, index);
	if (st && st->fault_pending && st->fault_mapping == (__u64)BPF_CORE_READ(folio, mapping) &&
	    st->fault_index >= rec->index && st->fault_index < rec->index + (bytes >> 12)) {
		rec->flags |= IOLENS_PCF_MAJOR_FAULT;
		st->fault_pending = 0;
	}
	rec->pad0 = 0;
	rec->pid = tgid;
	rec->tid = (__u32)pid_tgid;
	rec->dev = dev;
	rec->pad1 = 0;
	rec->ino = ino;
	rec->bytes = bytes;
	rec->ts_ns = bpf_ktime_get_ns();
	iolens_submit(rec);
	return 0;
}

static __always_inline int on_delete(struct folio *folio)
{
	struct iolens_inode_key key = {};
	struct iolens_pagecache_rec *rec;
	__u32 *owner;
	__u64 flags;

	if (!folio_file(folio, &key.dev, &key.ino))
		return 0;
	__u64 folio_key = (__u64)folio;
	bool ours = bpf_map_lookup_elem(&job_folios, &folio_key) != NULL;

	if (ours)
		bpf_map_delete_elem(&job_folios, &folio_key);
	owner = bpf_map_lookup_elem(&iolens_watched_inodes, &key);
	if (!owner)
		return 0;
	flags = iolens_folio_flags(folio);
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return 0;
	rec->hdr.type = IOLENS_REC_PAGECACHE;
	rec->hdr.size = sizeof(*rec);
	rec->kind = IOLENS_PC_EVICT;
	/* Read or written pages carry PG_referenced (folio_mark_accessed) or have
	 * been promoted (PG_active): a page this job brought in without either
	 * was never used. */
	rec->flags = ours &&
			!(flags &
	                  ((1ULL << bpf_core_enum_value(enum pageflags, PG_referenced)) |
	                   (1ULL << bpf_core_enum_value(enum pageflags, PG_active))))
		? IOLENS_PCF_UNREFERENCED
		: 0;
	rec->pad0 = 0;
	rec->pid = *owner;
	rec->tid = (__u32)bpf_get_current_pid_tgid();
	rec->dev = key.dev;
	rec->pad1 = 0;
	rec->ino = key.ino;
	rec->bytes = folio_bytes(folio, flags);
	rec->ts_ns = bpf_ktime_get_ns();
	rec->index = BPF_CORE_READ(folio, index);
	iolens_submit(rec);
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

static __always_inline int on_readahead(bool sync)
{
	struct iolens_thread_state *st;

	if (!iolens_is_tracked(bpf_get_current_pid_tgid() >> 32))
		return 0;
	st = thread_state(false);
	if (!st || !st->active)
		return 0;
	if (sync)
		st->ra_sync++;
	else
		st->ra_async++;
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_add_btf, struct folio *folio)
{
	return on_add(folio);
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_delete_btf, struct folio *folio)
{
	return on_delete(folio);
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(pc_fault_btf, struct address_space *mapping, unsigned long index)
{
	return on_fault(mapping, index);
}

SEC("tp_btf/page_cache_sync_ra")
int BPF_PROG(pc_sync_ra_btf)
{
	return on_readahead(true);
}

SEC("tp_btf/page_cache_async_ra")
int BPF_PROG(pc_async_ra_btf)
{
	return on_readahead(false);
}

SEC("raw_tp/mm_filemap_add_to_page_cache")
int BPF_PROG(pc_add_raw, struct folio *folio)
{
	return on_add(folio);
}

SEC("raw_tp/mm_filemap_delete_from_page_cache")
int BPF_PROG(pc_delete_raw, struct folio *folio)
{
	return on_delete(folio);
}

SEC("raw_tp/mm_filemap_fault")
int BPF_PROG(pc_fault_raw, struct address_space *mapping, unsigned long index)
{
	return on_fault(mapping, index);
}

SEC("raw_tp/page_cache_sync_ra")
int BPF_PROG(pc_sync_ra_raw)
{
	return on_readahead(true);
}

SEC("raw_tp/page_cache_async_ra")
int BPF_PROG(pc_async_ra_raw)
{
	return on_readahead(false);
}
