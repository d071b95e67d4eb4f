/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Syscall numbers of the file syscalls iolens classifies, per architecture
 * (asm/unistd_64.h; not present in BTF). An absent syscall is -1 and never
 * matches. Append a block when adding an architecture.
 */
#ifndef IOLENS_SYSCALL_NR_BPF_H
#define IOLENS_SYSCALL_NR_BPF_H

#if defined(__TARGET_ARCH_x86)
#define NR_read 0
#define NR_write 1
#define NR_open 2
#define NR_close 3
#define NR_stat 4
#define NR_fstat 5
#define NR_lstat 6
#define NR_lseek 8
#define NR_mmap 9
#define NR_pread64 17
#define NR_pwrite64 18
#define NR_readv 19
#define NR_writev 20
#define NR_access 21
#define NR_sendfile 40
#define NR_execve 59
#define NR_fsync 74
#define NR_fdatasync 75
#define NR_creat 85
#define NR_io_getevents 208
#define NR_io_submit 209
#define NR_getdents64 217
#define NR_openat 257
#define NR_newfstatat 262
#define NR_faccessat 269
#define NR_splice 275
#define NR_sync_file_range 277
#define NR_preadv 295
#define NR_pwritev 296
#define NR_execveat 322
#define NR_copy_file_range 326
#define NR_preadv2 327
#define NR_io_pgetevents 333
#define NR_pwritev2 328
#define NR_statx 332
#define NR_openat2 437
#define NR_faccessat2 439
/* The six syscall arguments from the saved user registers. _BTF loads them
 * directly (regs is a BTF pointer in tp_btf programs: no helper calls); _CORE
 * goes through bpf_probe_read_kernel for untyped raw_tp. */
#define IOLENS_SYSCALL_ARGS_BTF(regs, a)                                                                     \
	do {                                                                                                 \
		(a)[0] = (regs)->di;                                                                         \
		(a)[1] = (regs)->si;                                                                         \
		(a)[2] = (regs)->dx;                                                                         \
		(a)[3] = (regs)->r10;                                                                        \
		(a)[4] = (regs)->r8;                                                                         \
		(a)[5] = (regs)->r9;                                                                         \
	} while (0)
#define IOLENS_SYSCALL_ARGS_CORE(regs, a)                                                                    \
	do {                                                                                                 \
		(a)[0] = BPF_CORE_READ(regs, di);                                                            \
		(a)[1] = BPF_CORE_READ(regs, si);                                                            \
		(a)[2] = BPF_CORE_READ(regs, dx);                                                            \
		(a)[3] = BPF_CORE_READ(regs, r10);                                                           \
		(a)[4] = BPF_CORE_READ(regs, r8);                                                            \
		(a)[5] = BPF_CORE_READ(regs, r9);                                                            \
	} while (0)
/* The user stack pointer at the syscall (record --stacks). */
#define IOLENS_USER_SP_BTF(regs) ((regs)->sp)
#define IOLENS_USER_SP_CORE(regs) BPF_CORE_READ(regs, sp)
/* ... and its instruction pointer (the instruction after the syscall). */
#define IOLENS_USER_IP_BTF(regs) ((regs)->ip)
#define IOLENS_USER_IP_CORE(regs) BPF_CORE_READ(regs, ip)
/* ... and its frame pointer register. */
#define IOLENS_USER_BP_BTF(regs) ((regs)->bp)
#define IOLENS_USER_BP_CORE(regs) BPF_CORE_READ(regs, bp)
#else
#error "iolens: add this architecture's syscall numbers"
#endif

#endif /* IOLENS_SYSCALL_NR_BPF_H */
