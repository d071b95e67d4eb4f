// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process probe family: follows the traced job through fork, exec and exit in
 * the kernel, so a child forked after the attach (a DataLoader worker) is
 * tracked before it runs a single instruction, with no race against user space.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct iolens_exec_rec);
	__uint(max_entries, 1);
} exec_scratch SEC(".maps");

static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid = BPF_CORE_READ(parent, tgid);
	__u32 child_tgid = BPF_CORE_READ(child, tgid);
	struct iolens_proc_rec *rec;

	/* A new thread shares its parent's tgid and is already covered. */
	if (child_tgid == parent_tgid || !iolens_is_tracked(parent_tgid))
		return 0;
	iolens_set_tracked(child_tgid, true);
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return 0;
	rec->hdr.type = IOLENS_REC_FORK;
	rec->hdr.size = sizeof(*rec);
	rec->pid = child_tgid;
	rec->ppid = parent_tgid;
	rec->exit_code = 0;
	rec->ts_ns = bpf_ktime_get_ns();
	BPF_CORE_READ_STR_INTO(&rec->comm, child, comm);
	iolens_submit(rec);
	return 0;
}

static __always_inline int on_exec(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct iolens_exec_rec *rec;
	__u32 zero = 0;
	__u64 arg_start, arg_end, len;

	if (!iolens_is_tracked(tgid))
		return 0;
	rec = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!rec)
		return 0;
	rec->hdr.type = IOLENS_REC_EXEC;
	rec->pid = tgid;
	rec->ppid = BPF_CORE_READ(task, real_parent, tgid);
	rec->ts_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(&rec->comm, sizeof(rec->comm));
	/* The new image's argv sits on its fresh stack, readable from here. */
	arg_start = BPF_CORE_READ(task, mm, arg_start);
	arg_end = BPF_CORE_READ(task, mm, arg_end);
	len = arg_end - arg_start;
	if (len > IOLENS_ARGS_BYTES)
		len = IOLENS_ARGS_BYTES;
	len &= (IOLENS_ARGS_BYTES * 2 - 1);
	if (len > IOLENS_ARGS_BYTES)
		len = IOLENS_ARGS_BYTES;
	if (bpf_probe_read_user(rec->args, len, (void *)arg_start))
		len = 0;
	rec->args_len = len;
	rec->hdr.size = offsetof(struct iolens_exec_rec, args) + len;
	/* urgent: user space reads the new image's rank variables from /proc */
	iolens_output(rec, offsetof(struct iolens_exec_rec, args) + len, true);
	return 0;
}

static __always_inline int on_exit(struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct iolens_proc_rec *rec;
	struct signal_struct *sig;
	int code;

	if (!iolens_is_tracked(tgid))
		return 0;
	/* Fires for every thread; the process is gone when the last one leaves
	 * (signal->live has been decremented before this tracepoint). */
	sig = BPF_CORE_READ(task, signal);
	if (BPF_CORE_READ(sig, live.counter) != 0)
		return 0;
	code = BPF_CORE_READ(task, exit_code);
	if (BPF_CORE_READ(sig, flags) & 0x00000004 /* SIGNAL_GROUP_EXIT */)
		code = BPF_CORE_READ(sig, group_exit_code);
	iolens_set_tracked(tgid, false);
	rec = iolens_reserve(sizeof(*rec));
	if (!rec)
		return 0;
	rec->hdr.type = IOLENS_REC_EXIT;
	rec->hdr.size = sizeof(*rec);
	rec->pid = tgid;
	rec->ppid = BPF_CORE_READ(task, real_parent, tgid);
	rec->exit_code = code;
	rec->ts_ns = bpf_ktime_get_ns();
	BPF_CORE_READ_STR_INTO(&rec->comm, task, comm);
	iolens_submit(rec);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec_btf)
{
	return on_exec();
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit_btf, struct task_struct *task)
{
	return on_exit(task);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_exec_raw)
{
	return on_exec();
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_raw, struct task_struct *task)
{
	return on_exit(task);
}
