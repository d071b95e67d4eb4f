"""The tracers compared: how each wraps a command, and what it counted.

Each variant's result() returns (calls, lost, extra): calls is the number of
pread64 (floor, bpftrace, strace) or read-class calls (iolens) it saw, or None
when it does not count; lost is its lost-event count (None if it has no such
notion); extra holds anything worth reporting (iolens's capture.cost)."""

import json
import os
import re
import shutil

from .proc import BenchError

# The bpftrace one-liner the issue compares with: a tid-keyed start map on the
# classic pread64 tracepoints, filtered by the launched process, and hist().
BPFTRACE_PROG = (
    "tracepoint:syscalls:sys_enter_pread64 /pid == cpid/ { @start[tid] = nsecs; } "
    "tracepoint:syscalls:sys_exit_pread64 /@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }"
)


class Baseline:
    name = "baseline"
    traces = False

    def wrap(self, cmd, tmp):
        return list(cmd)

    def result(self, run, tmp):
        return None, None, {}


class Floor:
    name = "floor"
    traces = True

    def __init__(self, path):
        self.path = path

    def wrap(self, cmd, tmp):
        return [self.path, "-o", os.path.join(tmp, "floor.out"), "--"] + list(cmd)

    def result(self, run, tmp):
        with open(os.path.join(tmp, "floor.out")) as f:
            text = f.read()
        m = re.search(r"^count=(\d+) missed=(\d+)$", text, re.M)
        if not m:
            raise BenchError("floor: no count line in its output:\n" + text[-500:])
        return int(m.group(1)), int(m.group(2)), {}


class Bpftrace:
    name = "bpftrace"
    traces = True

    def __init__(self, path):
        self.path = path

    def wrap(self, cmd, tmp):
        # bpftrace splits -c on spaces (no quoting), so a word with a space
        # would be run as two.
        for word in cmd:
            if " " in str(word):
                raise BenchError("bpftrace -c cannot pass an argument with a space: %r" % word)
        return [self.path, "-q", "-f", "json", "-o", os.path.join(tmp, "bpftrace.json"),
                "-e", BPFTRACE_PROG, "-c", " ".join(map(str, cmd))]

    def result(self, run, tmp):
        calls = None
        with open(os.path.join(tmp, "bpftrace.json")) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                obj = json.loads(line)
                if obj.get("type") == "hist":
                    calls = sum(b.get("count", 0) for b in obj["data"].get("@ns", []))
        # A hist that never got a sample is not printed at all.
        return calls if calls is not None else 0, None, {}


class Strace:
    name = "strace"
    traces = True

    def __init__(self, path):
        self.path = path

    def wrap(self, cmd, tmp):
        return [self.path, "-f", "-c", "-o", os.path.join(tmp, "strace.out")] + list(cmd)

    def result(self, run, tmp):
        with open(os.path.join(tmp, "strace.out")) as f:
            text = f.read()
        # "% time  seconds  usecs/call  calls  [errors]  syscall"
        m = re.search(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?pread64\s*$", text, re.M)
        return (int(m.group(1)) if m else 0), None, {}


class Iolens:
    traces = True

    def __init__(self, label, path, flags=()):
        self.name = "iolens" if label == "iolens" else "iolens:" + label
        if flags:
            self.name += " " + " ".join(flags)
        self.label = label
        self.path = path
        self.flags = list(flags)

    def wrap(self, cmd, tmp):
        return [self.path, "record", "-f", "-o", os.path.join(tmp, "rec.iolens"),
                "--json", os.path.join(tmp, "rec.json")] + self.flags + ["--"] + list(cmd)

    def result(self, run, tmp):
        with open(os.path.join(tmp, "rec.json")) as f:
            rep = json.load(f)
        cap = rep.get("capture", {})
        # iolens's own cost accounting (capture.cost, docs/report-schema.md;
        # "overhead" was its working name), when the binary has it.
        extra = dict(cap.get("cost") or cap.get("overhead") or {})
        extra["events"] = cap.get("events")
        extra["kernel_counters"] = cap.get("kernel_counters")
        os.unlink(os.path.join(tmp, "rec.iolens"))  # recordings of long runs are large
        return rep["totals"]["read"]["calls"], cap.get("lost_events"), extra


def make(names, build, iolens_bins):
    """The variants to run, in a fixed order; iolens_bins is [(label, path)]."""
    out = []
    for n in names:
        if n == "baseline":
            out.append(Baseline())
        elif n == "floor":
            out.append(Floor(os.path.join(build, "iolens-bench-floor")))
        elif n == "bpftrace":
            p = shutil.which("bpftrace")
            if not p:
                raise BenchError("bpftrace is not installed (apt-get install bpftrace, or leave it out of --variants)")
            out.append(Bpftrace(p))
        elif n == "strace":
            p = shutil.which("strace")
            if not p:
                raise BenchError("strace is not installed (apt-get install strace, or leave it out of --variants)")
            out.append(Strace(p))
        elif n == "iolens":
            for label, path in iolens_bins:
                out.append(Iolens(label, path))
        elif n == "stacks":
            # record --stacks (docs/call-sites.md), beside the default: the
            # first iolens binary given.
            label, path = iolens_bins[0]
            out.append(Iolens(label, path, ["--stacks"]))
        else:
            raise BenchError("unknown variant %r (baseline, floor, bpftrace, strace, iolens, stacks)" % n)
    return out
