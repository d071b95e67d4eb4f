"""The benchmark's workloads (issue #5's (a)-(d)): their commands, one-time
set-up, and the figure each is judged by.

kind "per_call": the metric is ns per pread64 from the workload's own timing
of its loop (process start-up and tracer attach/detach excluded).
kind "job": the metric is the job's own elapsed time in seconds (from its
--report line), compared with the baseline as % slower."""

import os
import re
import subprocess

from .proc import BenchError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch; not the first python3 on PATH


class Workload:
    def __init__(self, key, name, kind, title):
        self.key = key
        self.name = name
        self.kind = kind
        self.title = title
        self.expected_reads = None  # exact pread64 count, where the workload defines one

    def cpu_metric(self, stdout):
        return None

    def metric(self, stdout):
        m = None
        for m in re.finditer(self.pattern, stdout, re.M):
            pass  # the last match: the workload's line, not anything a tracer printed earlier
        if not m:
            raise BenchError("%s: no '%s' line in the workload's output" % (self.name, self.pattern))
        return self.scale(m.group(1))


class PreadLoop(Workload):
    pattern = r"^threads=\d+ .*ns_per_op=([\d.]+)$"

    def __init__(self, key, threads, count, build, tmp):
        super().__init__(key, "pread-%dt" % threads, "per_call",
                         "%d thread%s x %d cached 4 KiB pread64" % (threads, "" if threads == 1 else "s", count))
        self.file = os.path.join(tmp, "pread.dat")
        self.workload = os.path.join(build, "iolens-workload")
        self.cmd = [self.workload, "pread-loop", "--file", self.file, "--count", str(count),
                    "--threads", str(threads), "--report"]
        self.expected_reads = threads * count

    def scale(self, v):
        return float(v)

    def cpu_metric(self, stdout):
        """The loop's CPU ns per call (all threads, user + system), or None
        from a workload binary that does not print it. The probes run in the
        calling thread, so this is what they add, without the time the job
        waits for a CPU on a busy machine."""
        m = None
        for m in re.finditer(r"^threads=\d+ .*cpu_ns_per_op=([\d.]+) ", stdout, re.M):
            pass
        return float(m.group(1)) if m else None

    def setup(self):
        # make-file leaves the file cached and clean: every timed pread is a hit.
        _setup([self.workload, "make-file", "--file", self.file, "--size", "4096"])


class Dl(Workload):
    pattern = r"^epochs=\d+ .*elapsed_ns=(\d+)"

    def __init__(self, key, build, tmp, files, size, epochs):
        super().__init__(key, "dl", "job", "dl: %d files x %d KiB, %d epochs, 2 workers" % (files, size // 1024, epochs))
        self.workload = os.path.join(build, "iolens-workload")
        self.dir = os.path.join(tmp, "dl-%d-%d" % (files, size))
        self.files, self.size = files, size
        self.cmd = [self.workload, "dl", "--dir", self.dir, "--files", str(files), "--size", str(size),
                    "--epochs", str(epochs), "--workers", "2", "--report"]

    def scale(self, v):
        return int(v) / 1e9

    def setup(self):
        if not os.path.isdir(self.dir):
            _setup([self.workload, "make-dataset", "--dir", self.dir, "--files", str(self.files),
                    "--size", str(self.size)])
        # One untimed run reads the dataset into the page cache, so every
        # measured run starts from the same (warm) state.
        _setup(self.cmd)


class Torch(Workload):
    pattern = r"^torch_job .*elapsed_ns=(\d+)"

    def __init__(self, key, tmp, images, epochs):
        super().__init__(key, "torch", "job",
                         "PyTorch ImageFolder DataLoader: %d JPEGs, %d epochs, num_workers=2" % (images, epochs))
        self.data = os.path.join(tmp, "torch-%d" % images)
        self.cmd = [PYTHON, os.path.join(REPO, "tools", "workload", "torch_job.py"), "--data", self.data,
                    "--images", str(images), "--epochs", str(epochs), "--workers", "2", "--report"]

    def scale(self, v):
        return int(v) / 1e9

    def setup(self):
        if not os.access(PYTHON, os.X_OK):
            raise BenchError("%s not found: the torch workload needs Debian's python3-torch" % PYTHON)
        # Generates the ImageFolder on first use and warms the cache and the
        # interpreter's imports.
        _setup(self.cmd)


def _setup(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise BenchError("set-up failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                               p.stderr.decode("utf-8", "replace")[-800:]))


def make(keys, build, tmp, quick):
    """keys: subset of "abcde". quick shrinks every workload for development runs."""
    count = 200_000 if quick else 2_000_000
    out = []
    for k in keys:
        if k == "a":
            out.append(PreadLoop("a", 1, count, build, tmp))
        elif k == "b":
            out.append(PreadLoop("b", 2, count, build, tmp))
        elif k == "e":
            out.append(PreadLoop("e", 4, count, build, tmp))
        elif k == "c":
            out.append(Dl("c", build, tmp, files=400 if quick else 2000, size=128 * 1024, epochs=2 if quick else 3))
        elif k == "d":
            out.append(Torch("d", tmp, images=256 if quick else 1000, epochs=1 if quick else 2))
        else:
            raise BenchError("unknown workload %r (a, b, c, d, e)" % k)
    return out
