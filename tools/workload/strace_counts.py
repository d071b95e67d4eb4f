#!/usr/bin/env python3
"""Count file syscalls per process and class from an strace run, the way iolens
classifies them, to check the numbers in docs/workload.md.

    strace -ff -y -s 0 -qq -o /tmp/st/t -e trace=%file,%desc,%memory \\
        iolens-workload known --dir /tmp/k
    tools/workload/strace_counts.py /tmp/st/t

-ff writes one file per process (prefix.PID), so no call is split into
"unfinished"/"resumed" halves; -y prints the path behind every fd, which is how
regular files are told from pipes and ttys.

Rules (iolens's): read, write, seek, mmap and sync count only on regular files
(mmap only when not MAP_ANONYMOUS); open, close, stat and readdir count always.
"requested" is the count argument, the iovec total, the mmap length or the
getdents64 buffer size. Buckets are log2 of the bytes returned (0 and 1 fall in
bucket 0), over successful calls.
"""
import collections
import glob
import os
import re
import sys

CLASSES = {
    "read": ["read", "pread64", "readv", "preadv", "preadv2"],
    "write": ["write", "pwrite64", "writev", "pwritev", "pwritev2"],
    "open": ["open", "openat", "openat2", "creat"],
    "close": ["close"],
    "stat": ["stat", "lstat", "fstat", "newfstatat", "statx", "access", "faccessat", "faccessat2"],
    "seek": ["lseek"],
    "mmap": ["mmap"],
    "readdir": ["getdents64"],
    "sync": ["fsync", "fdatasync", "sync_file_range"],
}
CLASS_OF = {sc: c for c, scs in CLASSES.items() for sc in scs}
REGULAR_ONLY = {"read", "write", "seek", "mmap", "sync"}
VECTORED = {"readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2"}

LINE = re.compile(r"^(?P<name>[a-z0-9_]+)\((?P<args>.*)\) += (?P<ret>-?\d+|0x[0-9a-f]+)(?P<rest>.*)$")


def split_args(text):
    """Top-level comma split that respects quotes, brackets and <...> fd paths."""
    out, cur, depth, in_str, esc = [], [], 0, False, False
    for ch in text:
        if in_str:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def fd_path(arg):
    m = re.match(r"^-?\d+<(.*)>$", arg)
    return m.group(1) if m else None


def is_regular(path):
    return path is not None and path.startswith("/") and not path.startswith("/dev/")


def bucket(v):
    return max(v, 1).bit_length() - 1


def analyse(path):
    stats = collections.defaultdict(lambda: collections.Counter())
    buckets = collections.defaultdict(collections.Counter)
    comm = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("execve(") and line.endswith("= 0"):
            comm = os.path.basename(split_args(line[len("execve("):])[0].strip('"'))
        m = LINE.match(line)
        if not m:
            continue
        name = m.group("name")
        cls = CLASS_OF.get(name)
        if cls is None:
            continue
        args = split_args(m.group("args"))
        ret = int(m.group("ret"), 0)
        if cls in REGULAR_ONLY:
            fd_arg = args[4] if name == "mmap" else args[0]
            if name == "mmap" and "MAP_ANONYMOUS" in args[3]:
                continue
            if not is_regular(fd_path(fd_arg)):
                continue
        if name in VECTORED:
            requested = sum(int(x) for x in re.findall(r"iov_len=(\d+)", args[1]))
        elif cls in ("read", "write", "readdir"):
            requested = int(args[2])
        elif name == "mmap":
            requested = int(args[1])
        else:
            requested = 0
        s = stats[cls]
        s["calls"] += 1
        s[name] += 1
        s["requested"] += requested
        if ret < 0 and m.group("rest").strip().startswith("E"):
            s["errors"] += 1
            s["err:" + m.group("rest").split()[0]] += 1
        elif cls in ("read", "write", "readdir"):
            s["bytes"] += ret
            buckets[cls][bucket(ret)] += 1
        elif cls == "mmap":
            s["bytes"] += requested
    return comm, stats, buckets


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: strace_counts.py <strace -ff -o prefix>")
    for path in sorted(glob.glob(sys.argv[1] + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
        pid = path.rsplit(".", 1)[1]
        comm, stats, buckets = analyse(path)
        print(f"pid {pid}" + (f" (exec {comm})" if comm else ""))
        for cls in CLASSES:
            s = stats.get(cls)
            if not s:
                continue
            detail = ", ".join(f"{k}={v}" for k, v in sorted(s.items())
                               if k not in ("calls", "errors", "bytes", "requested"))
            print(f"  {cls:8s} calls={s['calls']} errors={s['errors']} bytes={s['bytes']} "
                  f"requested={s['requested']}  [{detail}]")
            if cls in buckets:
                b = ", ".join(f"2^{i}:{n}" for i, n in sorted(buckets[cls].items()))
                print(f"  {'':8s} buckets(returned) {b}")


if __name__ == "__main__":
    main()
