/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * File identity from inside the kernel: fd -> struct file -> inode, and the
 * absolute path of a struct file by walking dentries and mounts. Everything
 * goes through CO-RE reads so the field offsets of the running kernel apply.
 */
#ifndef IOLENS_FILE_BPF_H
#define IOLENS_FILE_BPF_H

#include "common.bpf.h"

/* From include/uapi/linux/stat.h and fcntl.h; not in BTF (macros). */
#define IOLENS_S_IFMT 00170000
#define IOLENS_S_IFREG 0100000
#define IOLENS_S_IFDIR 0040000
#define IOLENS_O_DIRECT 00040000 /* x86 and arm64 value */

struct iolens_file_info {
	__u64 ino;
	__u64 size;
	__u64 pos;
	__u32 dev;
	__u32 mode;
	__u32 f_flags;
};

#ifdef IOLENS_DIRECT_LOADS
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
#endif

/* The struct file behind fd in the current task, or NULL. The task, its
 * files_struct and fdtable are BTF pointers, loaded directly; only the fd
 * array slot needs a probe read (a variable index into a pointer array).
 * IOLENS_LEGACY (before 5.11): no bpf_get_current_task_btf(), so CO-RE reads. */
static __always_inline struct file *iolens_fd_file(int fd)
{
	struct files_struct *files;
	struct fdtable *fdt;
	struct file **fd_array;
	struct file *file = NULL;
	unsigned int max_fds;

	if (fd < 0)
		return NULL;
#ifdef IOLENS_LEGACY
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	files = BPF_CORE_READ(task, files);
	if (!files)
		return NULL;
	fdt = BPF_CORE_READ(files, fdt);
	if (!fdt)
		return NULL;
	max_fds = BPF_CORE_READ(fdt, max_fds);
	fd_array = BPF_CORE_READ(fdt, fd);
#else
	struct task_struct *task = bpf_get_current_task_btf();

	files = task->files;
	if (!files)
		return NULL;
	fdt = files->fdt;
	if (!fdt)
		return NULL;
	max_fds = fdt->max_fds;
	fd_array = fdt->fd;
#endif
	if ((unsigned int)fd >= max_fds)
		return NULL;
#ifdef IOLENS_DIRECT_LOADS
	/* The verifier allows no variable index into a BTF pointer array, but
	 * bpf_rdonly_cast() turns any address into a typed read-only pointer
	 * whose loads the JIT guards against faults. struct kiocb starts with
	 * a struct file pointer (ki_filp), so casting the slot's address to it
	 * reads the slot with one guarded load instead of a helper call. */
	file = ((struct kiocb *)bpf_rdonly_cast(&fd_array[fd], bpf_core_type_id_kernel(struct kiocb)))
		       ->ki_filp;
#else
	bpf_probe_read_kernel(&file, sizeof(file), &fd_array[fd]);
#endif
	return file;
}

#ifdef IOLENS_DIRECT_LOADS
/* 6.2+: bpf_rdonly_cast() turns the struct file pointer into a typed one, so
 * its fields and its inode's are plain loads (the JIT guards each against
 * faults) instead of one bpf_probe_read_kernel() helper call per field: the
 * difference is most of the per-call cost of the syscall exit probe. */

static __always_inline bool iolens_file_info(struct file *file, struct iolens_file_info *info)
{
	struct inode *inode;
	struct file *f;

	if (!file)
		return false;
	f = bpf_rdonly_cast(file, bpf_core_type_id_kernel(struct file));
	inode = f->f_inode;
	if (!inode)
		return false;
	info->ino = inode->i_ino;
	info->size = inode->i_size;
	info->dev = inode->i_sb->s_dev;
	info->mode = inode->i_mode;
	info->pos = f->f_pos;
	info->f_flags = f->f_flags;
	return true;
}
#else
static __always_inline bool iolens_file_info(struct file *file, struct iolens_file_info *info)
{
	struct inode *inode;

	if (!file)
		return false;
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode)
		return false;
	info->ino = BPF_CORE_READ(inode, i_ino);
	info->size = BPF_CORE_READ(inode, i_size);
	info->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	info->mode = BPF_CORE_READ(inode, i_mode);
	info->pos = BPF_CORE_READ(file, f_pos);
	info->f_flags = BPF_CORE_READ(file, f_flags);
	return true;
}
#endif

static __always_inline bool iolens_is_regular(__u32 mode)
{
	return (mode & IOLENS_S_IFMT) == IOLENS_S_IFREG;
}

static __always_inline bool iolens_is_dir(__u32 mode)
{
	return (mode & IOLENS_S_IFMT) == IOLENS_S_IFDIR;
}

/* Scratch for building a file record: too big for the BPF stack. The slack
 * absorbs the verifier's view of the last path component read. */
struct iolens_file_scratch {
	struct iolens_file_rec rec;
	char slack[256];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct iolens_file_scratch);
	__uint(max_entries, 1);
} iolens_file_scratch_map SEC(".maps");

/* Without bpf_loop the walk is unrolled, and verification time grows steeply
 * with its length (48 steps: 2.3 s here; 16 steps: 0.09 s), so old kernels
 * get a shorter walk and deeper paths are marked truncated. */
#define IOLENS_PATH_DEPTH_UNROLLED 16

struct iolens_path_walk {
	struct dentry *dentry;
	struct vfsmount *vfsmnt;
	struct mount *mnt;
	__u32 off;
	bool complete;
};

/* One step up the tree: appends the current component, or crosses to the
 * parent mount. Returns 1 when the walk is over. */
static __always_inline long iolens_path_step(struct iolens_path_walk *w, struct iolens_file_rec *rec)
{
	/* Copy out of w first: BPF_CORE_READ would relocate w's own fields too. */
	struct dentry *dentry = w->dentry;
	struct vfsmount *vfsmnt = w->vfsmnt;
	struct mount *mnt = w->mnt;
	struct dentry *mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
	struct dentry *parent = BPF_CORE_READ(dentry, d_parent);

	if (dentry == mnt_root || dentry == parent) {
		struct mount *mnt_parent;

		if (dentry != mnt_root) { /* a detached or pseudo file system */
			w->complete = true;
			return 1;
		}
		mnt_parent = BPF_CORE_READ(mnt, mnt_parent);
		if (mnt == mnt_parent) { /* the root of the mount tree */
			w->complete = true;
			return 1;
		}
		w->dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = mnt_parent;
		w->vfsmnt =
			(struct vfsmount *)((char *)mnt_parent + bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	/* Room for another NAME_MAX component; keeps off below IOLENS_PATH_BYTES
	 * so the masked length in the record can never wrap to 0. */
	if (w->off >= IOLENS_PATH_BYTES - 256)
		return 1;
	const unsigned char *name = BPF_CORE_READ(dentry, d_name.name);
	long n = bpf_probe_read_kernel_str(&rec->path[w->off & (IOLENS_PATH_BYTES - 1)], 256, name);
	if (n <= 0)
		return 1;
	w->off += n;
	w->dentry = parent;
	return 0;
}

#ifndef IOLENS_LEGACY
static long iolens_path_step_cb(__u32 index, void *ctx)
{
	__u32 zero = 0;
	struct iolens_file_scratch *s = bpf_map_lookup_elem(&iolens_file_scratch_map, &zero);

	if (!s)
		return 1;
	return iolens_path_step(ctx, &s->rec);
}
#endif

/*
 * Write the path of file into rec->path as NUL-terminated components, leaf
 * first. Crosses mount points through struct mount (the vfsmount is embedded
 * in it; bpf_core_field_offset gives its position on the running kernel).
 * bpf_d_path would be simpler but is not allowed from tracepoints.
 * rec must be the record in iolens_file_scratch_map.
 */
static __always_inline void iolens_file_path(struct file *file, struct iolens_file_rec *rec)
{
	struct iolens_path_walk w = {};

	w.dentry = BPF_CORE_READ(file, f_path.dentry);
	w.vfsmnt = BPF_CORE_READ(file, f_path.mnt);
	w.mnt = (struct mount *)((char *)w.vfsmnt - bpf_core_field_offset(struct mount, mnt));
#ifndef IOLENS_LEGACY
	/* The legacy build (before 5.11) must not even contain the callback: kernels
	 * before 5.13 do not know callback references (BPF_PSEUDO_FUNC) and reject
	 * the object ("number of funcs in func_info doesn't match"). */
	if (iolens_have_bpf_loop()) {
		/* 5.17+: the step is verified once, whatever the depth. */
		bpf_loop(IOLENS_PATH_DEPTH, iolens_path_step_cb, &w, 0);
	} else
#endif
	{
		for (int i = 0; i < IOLENS_PATH_DEPTH_UNROLLED; i++)
			if (iolens_path_step(&w, rec))
				break;
	}
	if (!w.complete) {
		rec->flags |= IOLENS_FILE_TRUNCATED;
		iolens_count(IOLENS_CNT_PATH_TRUNC);
	}
	rec->path_len = w.off;
}

#define IOLENS_MAX_IOVECS 16

/* Total bytes described by an iovec array in user memory (first IOLENS_MAX_IOVECS): the
 * vector syscalls, AIO's PREADV/PWRITEV and io_uring's READV/WRITEV. */
static __always_inline __u64 iov_total(__u64 uptr, __u64 count, __u8 *flags)
{
	__u64 total = 0;

	if (count > IOLENS_MAX_IOVECS) {
		*flags |= IOLENS_SC_IOV_TRUNC;
		count = IOLENS_MAX_IOVECS;
	}
	for (int i = 0; i < IOLENS_MAX_IOVECS; i++) {
		struct iovec iov;

		if (i >= count)
			break;
		if (bpf_probe_read_user(&iov, sizeof(iov), (void *)(uptr + i * sizeof(iov))))
			break;
		total += iov.iov_len;
	}
	return total;
}

/* A file record for file (its identity in info, its path walked now): what an
 * open announces. */
static __always_inline void emit_file_record(struct file *file, __u32 tgid, struct iolens_file_info *info,
                                             __u64 now)
{
	__u32 zero = 0;
	struct iolens_file_scratch *s = bpf_map_lookup_elem(&iolens_file_scratch_map, &zero);
	__u64 size;

	if (!s)
		return;
	s->rec.hdr.type = IOLENS_REC_FILE;
	s->rec.flags = 0;
	s->rec.pid = tgid;
	s->rec.dev = info->dev;
	s->rec.ino = info->ino;
	s->rec.mode = info->mode;
	s->rec.size = info->size;
	s->rec.ts_ns = now;
	iolens_file_path(file, &s->rec);
	size = offsetof(struct iolens_file_rec, path) + (s->rec.path_len & (IOLENS_PATH_BYTES - 1));
	s->rec.hdr.size = size;
	if (size > sizeof(s->rec))
		return;
	iolens_output(&s->rec, size, false);
}

#endif /* IOLENS_FILE_BPF_H */
