"""Running one measured command: wall time, CPU time and peak RSS of the whole
process tree, its stdout, and a clear error when it fails."""

import os
import subprocess
import tempfile
import time


class BenchError(Exception):
    """A run that cannot be used: the message says what failed and why."""


class Run:
    """What one command did. cpu_s and max_rss_kib come from /usr/bin/time, so
    they cover the tracer and every process it waited for (the traced job);
    max_rss_kib is the largest single process's peak, not a sum."""

    def __init__(self, start_ns, wall_s, user_s, sys_s, max_rss_kib, stdout, stderr):
        self.start_ns = start_ns  # CLOCK_MONOTONIC just before the launch
        self.wall_s = wall_s
        self.user_s = user_s
        self.sys_s = sys_s
        self.cpu_s = user_s + sys_s
        self.max_rss_kib = max_rss_kib
        self.stdout = stdout
        self.stderr = stderr


def run(cmd, label, cwd=None, timeout=3600):
    """Runs cmd (a list) under /usr/bin/time; raises BenchError on a non-zero
    exit. stdout is a pipe, never a file: the workload generator counts a write
    to a regular file as file I/O (docs/workload.md)."""
    fd, timefile = tempfile.mkstemp(prefix="iolens-bench-time-")
    os.close(fd)
    try:
        full = ["/usr/bin/time", "-q", "-f", "%e %U %S %M", "-o", timefile] + [str(c) for c in cmd]
        start_ns = time.monotonic_ns()
        t0 = time.monotonic()
        p = subprocess.run(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        wall = time.monotonic() - t0
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode != 0:
            tail = "\n".join(err.strip().splitlines()[-8:])
            raise BenchError("%s failed (exit %d): %s\n%s" % (label, p.returncode, " ".join(map(str, cmd)), tail))
        with open(timefile) as f:
            fields = f.read().split()
        if len(fields) < 4:
            raise BenchError("%s: /usr/bin/time wrote no resource usage (%r)" % (label, fields))
        _, user, sys_, rss = fields[-4:]
        return Run(start_ns, wall, float(user), float(sys_), int(rss), out, err)
    except subprocess.TimeoutExpired:
        raise BenchError("%s did not finish within %d s: %s" % (label, timeout, " ".join(map(str, cmd))))
    finally:
        os.unlink(timefile)


def require(path, what):
    if not os.access(path, os.X_OK):
        raise BenchError("%s not found or not executable: %s" % (what, path))
    return path
