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

/* --cgroup: the id of a cgroup v2 group (kernfs node id: its directory's
 * inode). Its members are tracked by user space at attach; the processes
 * that join it later (cgroup_attach_task) or are forked into it
 * (CLONE_INTO_CGROUP, or by a member) are tracked here. 0: no group. */
const volatile __u64 iolens_target_cgroup = 0;

#define IOLENS_CGROUP_MAX_DEPTH 32

/* Is cgrp the target group or one of its descendants? Only the default (v2)
 * hierarchy counts: kernfs ids are unique within one hierarchy, and every v1
 * hierarchy has its own (hierarchy_id 0 is the default one). */
static __always_inline bool under_target(struct cgroup *cgrp)
{
	if (!iolens_target_cgroup || !cgrp || BPF_CORE_READ(cgrp, root, hierarchy_id) != 0)
		return false;
	for (int i = 0; i < IOLENS_CGROUP_MAX_DEPTH && cgrp; i++) {
		if (BPF_CORE_READ(cgrp, kn, id) == iolens_target_cgroup)
			return true;
		cgrp = BPF_CORE_READ(cgrp, self.parent, cgroup);
	}
	return false;
}

/* A process that is now traced: a FORK record (flags say whether it was
 * forked by a traced parent or joined the --cgroup). */
static __always_inline void emit_start(struct task_struct *task, __u32 tgid, __u32 ppid, __s32 how)
{
	struct iolens_proc_rec *rec = iolens_reserve(sizeof(*rec));

	if (!rec)
		return;
	rec->hdr.type = IOLENS_REC_FORK;
	rec->hdr.size = sizeof(*rec);
	rec->pid = tgid;
	rec->ppid = ppid;
	rec->exit_code = how;
	rec->ts_ns = bpf_ktime_get_ns();
	BPF_CORE_READ_STR_INTO(&rec->comm, task, comm);
	iolens_submit(rec);
}

static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid = BPF_CORE_READ(parent, tgid);
	__u32 child_tgid = BPF_CORE_READ(child, tgid);

	/* A new thread shares its parent's tgid and is already covered. */
	if (child_tgid == parent_tgid)
		return 0;
	if (!iolens_is_tracked(parent_tgid)) {
		/* Forked straight into the group by an outsider (clone3's
		 * CLONE_INTO_CGROUP: no cgroup_attach_task). */
		if (!iolens_target_cgroup || !under_target(BPF_CORE_READ(child, cgroups, dfl_cgrp)))
			return 0;
		iolens_set_tracked(child_tgid, true);
		emit_start(child, child_tgid, parent_tgid, IOLENS_FORK_JOINED);
		return 0;
	}
	iolens_set_tracked(child_tgid, true);
	emit_start(child, child_tgid, parent_tgid, 0);
	return 0;
}

/* A task moved into a cgroup (echo PID > cgroup.procs: Slurm, systemd,
 * container runtimes). Fires in the mover's context, once per hierarchy the
 * task is moved in. A process that leaves the group stays traced. */
static __always_inline int on_cgroup_attach(struct cgroup *dst, struct task_struct *task)
{
	__u32 tgid;

	if (!iolens_target_cgroup || !under_target(dst))
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	if (iolens_is_tracked(tgid))
		return 0;
	iolens_set_tracked(tgid, true);
	emit_start(task, tgid, BPF_CORE_READ(task, real_parent, tgid), IOLENS_FORK_JOINED);
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
	return IOLENS_RUN(on_fork(parent, child));
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec_btf)
{
	return IOLENS_RUN(on_exec());
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit_btf, struct task_struct *task)
{
	return IOLENS_RUN(on_exit(task));
}

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(cgroup_attach_btf, struct cgroup *dst, const char *path, struct task_struct *task)
{
	return IOLENS_RUN(on_cgroup_attach(dst, task));
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return IOLENS_RUN(on_fork(parent, child));
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_exec_raw)
{
	return IOLENS_RUN(on_exec());
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_raw, struct task_struct *task)
{
	return IOLENS_RUN(on_exit(task));
}

SEC("raw_tp/cgroup_attach_task")
int BPF_PROG(cgroup_attach_raw, struct cgroup *dst, const char *path, struct task_struct *task)
{
	return IOLENS_RUN(on_cgroup_attach(dst, task));
}
