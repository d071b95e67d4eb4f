#!/usr/bin/python3
"""Random access by record within files: each sample is a random
--record-byte record of a random file of --dir, read with --read-byte
pread()s through one descriptor per file (opened once). With --reopen every
sample opens its file again (a Dataset that opens per __getitem__).
--fadvise-random advises POSIX_FADV_RANDOM on each file (the fix for wasted
readahead); --sequential reads as many records
front to back, file after file (the fix for
random access: shards read sequentially). Prints diag_elapsed_s=."""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import lcg, run_loader, size_arg  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--record", type=size_arg, default=64 << 10)
    ap.add_argument("--read", type=size_arg, default=64 << 10)
    ap.add_argument("--reopen", action="store_true")
    ap.add_argument("--fadvise-random", action="store_true")
    ap.add_argument("--sequential", action="store_true")
    ap.add_argument("--workers", type=int, default=2, help="loader processes (0: the main process reads)")
    ap.add_argument("--compute-ms", type=float, default=0.0, help="main's CPU per sample")
    args = ap.parse_args()
    files = sorted(os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.startswith("sample_"))
    size = os.path.getsize(files[0])
    per_file = size // args.record
    rng = lcg(11)
    if args.sequential:  # as many records, front to back, file after file
        picks = [(k // per_file % len(files), k % per_file) for k in range(args.samples)]
    else:
        picks = [(next(rng) % len(files), next(rng) % per_file) for _ in range(args.samples)]
    fds = {}

    def open_file(i):
        fd = os.open(files[i], os.O_RDONLY)
        if args.fadvise_random:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        return fd

    def load(pick):
        i, rec = pick
        fd = open_file(i) if args.reopen else fds.get(i) or fds.setdefault(i, open_file(i))
        off = rec * args.record
        for k in range(0, args.record, args.read):
            os.pread(fd, args.read, off + k)
        if args.reopen:
            os.close(fd)

    elapsed = run_loader(picks, load, args.workers, args.compute_ms / 1000)
    print("diag_elapsed_s=%.6f" % elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
