#!/usr/bin/env python3
"""Outside check: compares iolens's per-process, per-class figures with strace's
count of the same execution, exactly.

    iolens record --json report.json -- strace -f -yy -qq -s 16 -o trace.txt CMD...
    tools/workload/strace_compare.py report.json trace.txt

strace and iolens watch one run: iolens traces strace and everything it starts,
strace traces CMD and its descendants (ptrace changes no syscall a tracee
makes). Compared, per traced process (by tgid) and per class: calls, errors,
bytes and requested bytes (iolens's `processes[].ops`), counted from the trace
by the rules of strace_counts.py (which are iolens's, docs/capture.md).
-s 16 matters: strace prints at most that many iovecs of a readv/writev, and
iolens sums the first 16 (docs/capture.md); with -s 0 it prints none.

Which processes: those strace traced (the pids in the trace, each thread
folded into its process through the clone(CLONE_THREAD) that made it). The
process iolens launched is strace itself: its own calls (reading /proc,
writing the trace) are not the job's and are left out, and so are the other
processes iolens saw that never appear in the trace (strace's own helper
forks, which make no file calls); any such process with a counted call is
listed as a note.

One call is legitimately iolens's alone: the first traced process is
strace's forked child, which closes strace's -o output file before it execs
the command (strace's startup_child); strace traces from that execve on. So
that process's close calls are expected to be the trace's plus exactly one
(with strace 6.1, the only call the child makes between fork and exec; the
report's file entry for the trace file shows its two closes, strace's and
the child's).

Exit status 0 when every figure agrees, 1 with one line per difference
(pid, class, field, strace, iolens).
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strace_counts as sc  # noqa: E402

PID_LINE = re.compile(r"^(?P<pid>\d+) +(?P<body>.*)$")
FIELDS = (("calls", "calls"), ("errors", "errors"), ("bytes", "bytes"), ("requested", "requested_bytes"))


def join_halves(head, rest):
    """'read(3</f>, ' + '"..."..., 100) = 100' -> one call line."""
    head, rest = head.rstrip(), rest.lstrip()
    if head.endswith("(") or rest.startswith((")", ",")):
        return head + rest
    return head + (" " if head.endswith(",") else ", ") + rest


def joined_lines(path):
    """(tid, line) for each call of an `strace -f -o` file, its unfinished and
    resumed halves joined; signals and exits left out."""
    pending = {}
    for raw in open(path, errors="replace"):
        m = PID_LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        tid, body = int(m.group("pid")), m.group("body")
        if body.startswith(("+++", "---")):
            continue
        if body.endswith("<unfinished ...>"):
            pending[tid] = body[: -len("<unfinished ...>")].rstrip()
            continue
        r = re.match(r"^<\.\.\. [a-z0-9_]+ resumed>(.*)$", body)
        if r:
            head = pending.pop(tid, None)
            if head is None:
                continue
            body = join_halves(head, r.group(1))
        yield tid, body


def strace_figures(path):
    """({tgid: {class: Counter}}, the first traced pid) from an `strace -f` trace."""
    tgid = {}
    first = None
    stats = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    buckets = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for tid, line in joined_lines(path):
        first = tid if first is None else first
        owner = tgid.setdefault(tid, tid)
        m = sc.LINE.match(line)
        if not m:
            continue
        name = m.group("name")
        ret = sc.parse_ret(m)
        if name in ("clone", "clone3") and ret is not None and ret > 0:
            tgid[ret] = owner if "CLONE_THREAD" in m.group("args") else ret
        if ret is None:
            continue
        sc.count_call(stats[owner], buckets[owner], name, sc.split_args(m.group("args")), ret, m.group("rest"))
    if first is not None:
        stats[first]["close"]["calls"] += 1  # strace's child closing the -o file before its execve
    return stats, first


def compare(report, traced):
    """Lines of differences and lines of notes."""
    diffs, notes = [], []
    launched = set(report["capture"].get("pids", []))
    seen = set()
    for p in report["processes"]:
        pid = p["pid"]
        ops = p.get("ops", {})
        if pid not in traced:
            busy = {c: o["calls"] for c, o in ops.items() if o["calls"]}
            if busy:
                who = "strace itself" if pid in launched else "not in the trace"
                notes.append(f"pid {pid} ({p.get('comm', '')}, {who}) left out: {busy}")
            continue
        seen.add(pid)
        for cls in sc.CLASSES:
            s = traced[pid].get(cls, collections.Counter())
            o = ops.get(cls, {})
            for sk, ik in FIELDS:
                if s[sk] != o.get(ik, 0):
                    diffs.append(f"pid {pid} ({p.get('comm', '')}) {cls} {ik}: strace {s[sk]}, iolens {o.get(ik, 0)}")
    for pid in sorted(set(traced) - seen):
        if any(s["calls"] for s in traced[pid].values()):
            diffs.append(f"pid {pid}: in the trace, not in the report")
    return diffs, notes


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: strace_compare.py <iolens report.json> <strace -f -yy -o trace>")
    report = json.load(open(sys.argv[1]))
    traced, _ = strace_figures(sys.argv[2])
    diffs, notes = compare(report, traced)
    for pid in sorted(traced):
        total = {c: s["calls"] for c, s in traced[pid].items() if s["calls"]}
        print(f"pid {pid}: {total}")
    for n in notes:
        print("note: " + n)
    for d in diffs:
        print("DIFF " + d)
    print(f"{len(traced)} traced processes, {len(diffs)} differences")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
