#!/usr/bin/env python3
"""Count file syscalls per process and class from an strace run, the way iolens
classifies them, to check the numbers in docs/workload.md.

    strace -ff -y -s 0 -qq -o /tmp/st/t -e trace=%file,%desc,%memory \\
        iolens-workload known --dir /tmp/k
    tools/workload/strace_counts.py /tmp/st/t

-ff writes one file per process (prefix.PID), so no call is split into
"unfinished"/"resumed" halves; -y prints the path behind every fd, which is how
regular files are told from pipes and ttys.

Rules (iolens's, docs/capture.md): read, write, seek and mmap count only on
regular files (mmap only when not MAP_ANONYMOUS), sync on regular files and
directories; open, close, stat and readdir count always. sendfile,
copy_file_range and splice count as a read of their source and a write of
their destination, each side only when it is a regular file. "requested" is
the count argument (a copy call's at most MAX_RW_COUNT), the iovec total, the
mmap length or the getdents64 buffer size. "bytes" is what read, write and
getdents64 returned; mmap moves none (its length is "requested"). Buckets are
log2 of the bytes returned (0 and 1 fall in bucket 0), over successful calls.

What a descriptor is comes from strace's -y/-yy annotation: "<char M:m>" or
"<block M:m>" after the path is a device, a name not starting with "/"
(pipe:[..], socket:[..], TCP:[..], anon_inode:..) is no file, an existing
directory (checked when the script runs) is a directory, anything else
starting with "/" is a regular file (a deleted file, "<path>(deleted)";
/memfd:..., shmem files, are regular too).
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
REGULAR_ONLY = {"read", "write", "seek", "mmap"}
VECTORED = {"readv", "writev", "preadv", "pwritev", "preadv2", "pwritev2"}
# Copy calls: (index of the source fd, index of the destination fd, index of the count).
COPIES = {"sendfile": (1, 0, 3), "copy_file_range": (0, 2, 4), "splice": (0, 2, 4)}
MAX_RW_COUNT = (1 << 31) - 4096

LINE = re.compile(r"^(?P<name>[a-z0-9_]+)\((?P<args>.*)\) += (?P<ret>-?\d+|0x[0-9a-f]+|\?)(?P<rest>.*)$")


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
        elif ch in ")]}>" and not (ch == ">" and cur and cur[-1] == "="):  # "[0] => [5000]"
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
    m = re.match(r"^-?\d+<(.*)>(\(deleted\))?$", arg)  # "3</memfd:m>(deleted)": -yy of a deleted file
    return m.group(1) if m else None


def fd_kind(path):
    """"regular", "dir", "device" or "other" for the path strace printed."""
    if path is None or not path.startswith("/"):
        return "other"
    if re.search(r"<(char|block) \d+:\d+>$", path):
        return "device"
    if os.path.isdir(path):
        return "dir"
    if os.path.exists(path) and not os.path.isfile(path):
        return "other"  # a FIFO or socket with a name
    return "regular"


def is_regular(path):
    return fd_kind(path) == "regular"


def bucket(v):
    return max(v, 1).bit_length() - 1


def parse_ret(m):
    """The return value, negative on an error; None for "= ?" (never returned)."""
    ret = m.group("ret")
    if ret == "?":
        rest = m.group("rest").split()
        return -1 if rest and rest[0].startswith("E") else None
    ret = int(ret, 8) if re.fullmatch(r"0\d+", ret) else int(ret, 0)  # umask prints octal
    if ret == -1 and m.group("rest").strip().startswith("E"):
        return -1
    return ret


def records(name, args):
    """(class, requested bytes) of each record iolens makes for one call, before
    looking at its result; empty when iolens counts none."""
    if name in COPIES:
        src, dst, cnt = COPIES[name]
        req = min(int(args[cnt]), MAX_RW_COUNT)
        return [(c, req) for c, i in (("read", src), ("write", dst)) if is_regular(fd_path(args[i]))]
    cls = CLASS_OF.get(name)
    if cls is None:
        return []
    if cls in REGULAR_ONLY:
        fd_arg = args[4] if name == "mmap" else args[0]
        if name == "mmap" and "MAP_ANONYMOUS" in args[3]:
            return []
        if not is_regular(fd_path(fd_arg)):
            return []
    if cls == "sync" and fd_kind(fd_path(args[0])) not in ("regular", "dir"):
        return []
    if name in VECTORED:
        return [(cls, sum(int(x) for x in re.findall(r"iov_len=(\d+)", args[1])))]
    if cls in ("read", "write", "readdir"):
        return [(cls, int(args[2]))]
    if name == "mmap":
        return [(cls, int(args[1]))]
    return [(cls, 0)]


def count_call(stats, buckets, name, args, ret, rest):
    """Adds one completed call to stats[class] (a Counter: calls, errors,
    bytes, requested, per-syscall and per-errno counts) and buckets[class]."""
    for cls, requested in records(name, args):
        s = stats[cls]
        s["calls"] += 1
        s[name] += 1
        if ret < 0:
            s["errors"] += 1
            s["err:" + (rest.split() or ["?"])[0]] += 1
        elif cls in ("read", "write", "readdir"):
            if name in VECTORED:
                requested = max(requested, ret)
            s["bytes"] += ret
            buckets[cls][bucket(ret)] += 1
        s["requested"] += requested


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
        ret = parse_ret(m)
        if ret is not None:
            count_call(stats, buckets, m.group("name"), split_args(m.group("args")), ret, m.group("rest"))
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
