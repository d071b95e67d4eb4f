// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Blocking probe family, on sched:sched_switch:
 *  - time a tracked thread spends off CPU in uninterruptible sleep (waiting
 *    for I/O) while inside a traced syscall, added to that call's blocked_ns;
 *  - every sleep of a tracked process's main thread (tid == pid) as an OFFCPU
 *    record: the training loop waiting for data, which the analysis overlaps
 *    with the rank's I/O to find stalls;
 *  - a tracked thread going to sleep sends its batch of syscall records.
 * It fires on every context switch on the machine, so the untracked case is
 * two bitmap tests.
 */
#include "common.bpf.h"
#include "thread_state.bpf.h"
#include "call_batch.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define IOLENS_TASK_INTERRUPTIBLE 0x1
#define IOLENS_TASK_UNINTERRUPTIBLE 0x2

static __always_inline int on_switch(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct iolens_thread_state *st;
	__u32 prev_tgid = BPF_CORE_READ(prev, tgid);
	unsigned int state = 0;
	__u64 now = 0;

	/* A preempted task is runnable, whatever its state says. */
	if (!preempt && iolens_is_tracked(prev_tgid))
		state = iolens_get_task_state(prev) &
			(IOLENS_TASK_INTERRUPTIBLE | IOLENS_TASK_UNINTERRUPTIBLE);
	if (state) {
		/* A thread that goes to sleep is not inside a syscall probe, and may
		 * sleep for long: send the records waiting in its batch now rather
		 * than at its next calls (bpf/call_batch.bpf.h). */
		st = iolens_task_state(prev, false);
		if (st) {
			iolens_batch_flush(st);
			if ((state & IOLENS_TASK_UNINTERRUPTIBLE) && st->active) {
				now = bpf_ktime_get_ns();
				st->offcpu_since_ns = now;
			}
		}
	}
	if (state && BPF_CORE_READ(prev, pid) == prev_tgid) {
		st = iolens_task_state(prev, true);
		if (st) {
			if (!now)
				now = bpf_ktime_get_ns();
			st->main_offcpu_since_ns = now;
			st->main_offcpu_state = state;
		}
	}
	if (iolens_is_tracked(BPF_CORE_READ(next, tgid))) {
		st = iolens_task_state(next, false);
		if (st && st->main_offcpu_since_ns) {
			struct iolens_offcpu_rec *rec;

			if (!now)
				now = bpf_ktime_get_ns();
			rec = iolens_reserve(sizeof(*rec));
			if (rec) {
				rec->hdr.type = IOLENS_REC_OFFCPU;
				rec->hdr.size = sizeof(*rec);
				rec->pid = BPF_CORE_READ(next, tgid);
				rec->tid = BPF_CORE_READ(next, pid);
				rec->state = st->main_offcpu_state;
				rec->start_ns = st->main_offcpu_since_ns;
				rec->end_ns = now;
				iolens_submit(rec);
			}
			st->main_offcpu_since_ns = 0;
		}
		if (st && st->offcpu_since_ns) {
			if (!now)
				now = bpf_ktime_get_ns();
			if (st->active)
				st->blocked_ns += now - st->offcpu_since_ns;
			st->offcpu_since_ns = 0;
		}
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return IOLENS_RUN(on_switch(preempt, prev, next));
}
