"""Shared pieces of the diagnosis jobs: a CPU-bound "training step" (a GPU
step keeps the main thread busy, it does not sleep: a sleeping main thread
would be an input wait to iolens), cold reads and argument helpers."""

import os
import time


def spin(seconds):
    """Busy-wait for `seconds` of this thread's CPU time: the training step's
    compute. CPU time, not wall time, so that on a loaded machine the step
    slows down as the loader workers do, and the overlap the job was built
    with stays."""
    end = time.thread_time() + seconds
    x = 0
    while time.thread_time() < end:  # a syscall: look at the clock every 200 rounds
        for _ in range(200):
            x += 1
    return x


def size_arg(text):
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = text.lower()
    return int(t[:-1]) * mult[t[-1]] if t[-1] in mult else int(t)


def lcg(seed):
    """A deterministic stream of pseudo-random 64-bit numbers (no numpy needed)."""
    x = seed & 0xFFFFFFFFFFFFFFFF
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        yield x >> 11


def run_loader(items, load, workers, compute_s):
    """A DataLoader in miniature: `workers` forked processes call load(item)
    on their share (a contiguous block of the list each, in order) and send
    one byte per loaded item over a pipe (the pipe lets a worker run ahead); the main process takes the items in
    order and spends compute_s of CPU on each. workers=0 loads in the main
    process. Returns the loop's elapsed seconds."""
    t0 = time.monotonic()
    if workers == 0:
        for item in items:
            load(item)
            spin(compute_s)
        return time.monotonic() - t0
    pipes, pids = [], []
    bounds = [len(items) * k // workers for k in range(workers + 1)]
    owner = [k for k in range(workers) for _ in range(bounds[k], bounds[k + 1])]
    for k in range(workers):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            for item in items[bounds[k]:bounds[k + 1]]:
                load(item)
                os.write(w, b"x")
            os._exit(0)
        os.close(w)
        pipes.append(r)
        pids.append(pid)
    for i in range(len(items)):
        if os.read(pipes[owner[i]], 1) != b"x":
            raise SystemExit("a loader worker died")
        spin(compute_s)
    for r, pid in zip(pipes, pids):
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise SystemExit("a loader worker failed")
    return time.monotonic() - t0
