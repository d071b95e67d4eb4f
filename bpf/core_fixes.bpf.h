/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel differences the BPF programs absorb themselves, in one place, each
 * with the kernel change it covers (BCC libbpf-tools' core_fixes.bpf.h is the
 * model). A `___flavor` struct describes a field as older kernels had it:
 * CO-RE matches it against the running kernel's struct of the name before
 * the `___`, and bpf_core_field_exists() keeps, at load, only the branch whose
 * field this kernel has (the other is dead code the verifier drops).
 *
 * Not here: differences user space decides before load, from the kernel's
 * features: builds for kernels without task storage or bpf_rdonly_cast
 * (CMakeLists.txt's IOLENS_BPF_OBJECTS, IOLENS_LEGACY/IOLENS_DIRECT_LOADS) and
 * tracepoint prototypes (IOLENS_TP_ARITY in common.bpf.h).
 */
#ifndef IOLENS_CORE_FIXES_BPF_H
#define IOLENS_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/*
 * 5.14, commit 2f064a59a1 ("sched: Change task_struct::state"): state became
 * __state, an unsigned int. The sleeping state of a task being switched out.
 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int iolens_get_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/*
 * 5.12, commit 309dca309fc3 ("block: store a block_device pointer in struct
 * bio"): bio->bi_disk became bio->bi_bdev->bd_disk.
 */
struct bio___pre512 {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *iolens_bio_disk(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		return BPF_CORE_READ(bio, bi_bdev, bd_disk);
	return BPF_CORE_READ((struct bio___pre512 *)bio, bi_disk);
}

/*
 * 5.16, commits d152c682f03c ("block: add an explicit ->disk backpointer to
 * the request_queue") and f3fa33acca9f ("block: remove the ->rq_disk field in
 * struct request"): the disk moved from the request to its queue.
 */
struct request___pre516 {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *iolens_rq_disk(struct request *rq)
{
	if (bpf_core_field_exists(((struct request___pre516 *)rq)->rq_disk))
		return BPF_CORE_READ((struct request___pre516 *)rq, rq_disk);
	return BPF_CORE_READ(rq, q, disk);
}

/*
 * 6.17, commit 53fbef56e07d ("mm: introduce memdesc_flags_t"): folio->flags,
 * a plain unsigned long before, became a memdesc_flags_t (same size and
 * place). CO-RE treats the two as different fields, so each kernel takes the
 * branch that matches its type.
 */
struct folio___pre617 {
	unsigned long flags;
} __attribute__((preserve_access_index));

static __always_inline __u64 iolens_folio_flags(struct folio *folio)
{
	struct folio___pre617 *old = (void *)folio;
	__u64 flags = 0;

	if (bpf_core_field_exists(old->flags))
		return BPF_CORE_READ(old, flags);
	bpf_probe_read_kernel(&flags, sizeof(flags), __builtin_preserve_access_index(&folio->flags));
	return flags;
}

/*
 * 6.6, commit ebc1baf5c9b4 ("mm: free up a word in the first tail page"): a
 * large folio's order moved from its own field, _folio_order, into the low
 * byte of _flags_1 (folio_order()). Only meaningful for a large folio
 * (PG_head set).
 */
struct folio___pre66 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

static __always_inline __u64 iolens_large_folio_order(struct folio *folio)
{
	struct folio___pre66 *old = (void *)folio;

	if (bpf_core_field_exists(old->_folio_order))
		return BPF_CORE_READ(old, _folio_order);
	if (bpf_core_field_exists(folio->_flags_1))
		return BPF_CORE_READ(folio, _flags_1) & 0xff;
	return 0;
}

/*
 * 5.17, commit e6f2dd0f8067 ("bpf: Add bpf_loop helper"): loops verified once
 * whatever their length; before it, loops must be unrolled.
 */
#define iolens_have_bpf_loop() bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop)

/*
 * 6.4, commit d7ba4cc900bf ("bpf: return long from bpf_map_ops funcs"):
 * before it, the map operations that the verifier turns helper calls into
 * return int, so a map helper's error arrives zero-extended from 32 bits
 * (-EEXIST as 0xffffffef; measured on 5.10 and 6.1). Compared as an int, it
 * is the same on every kernel.
 */
#define IOLENS_EEXIST 17 /* not in BTF (a macro) */

static __always_inline int iolens_map_err(long ret)
{
	return (int)ret;
}

#endif /* IOLENS_CORE_FIXES_BPF_H */
