#!/usr/bin/python3
"""A training loop that saves a checkpoint every --every steps: --size bytes
written in 1 MiB pieces, fsync, close. By default the main thread saves (a
blocking checkpoint); --async forks a child process that writes and fsyncs
while the loop goes on (the async checkpointing iolens recommends). Prints
diag_elapsed_s= (the loop, imports excluded)."""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import size_arg, spin  # noqa: E402


def save(path, size):
    piece = bytes(range(256)) * 4096
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        left = size
        while left > 0:
            left -= os.write(fd, piece[:min(left, len(piece))])
        os.fsync(fd)
    finally:
        os.close(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--size", type=size_arg, default=64 << 20)
    ap.add_argument("--compute-ms", type=float, default=10)
    ap.add_argument("--async", dest="async_", action="store_true")
    args = ap.parse_args()
    t0 = time.monotonic()
    child = None
    for step in range(1, args.steps + 1):
        spin(args.compute_ms / 1000)
        if step % args.every == 0:
            path = os.path.join(args.dir, "ckpt_%d.bin" % (step // args.every))
            if not args.async_:
                save(path, args.size)
                continue
            if child:
                os.waitpid(child, 0)  # one save in flight at a time
            child = os.fork()
            if child == 0:
                save(path, args.size)
                os._exit(0)
    elapsed = time.monotonic() - t0  # the loop; an async save still in flight finishes after
    if child:
        os.waitpid(child, 0)
    print("diag_elapsed_s=%.6f" % elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
