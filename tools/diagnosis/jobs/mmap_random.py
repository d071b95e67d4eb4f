#!/usr/bin/python3
"""Random access through a memory map (a numpy.memmap data set): --touches
random 4 KiB records of a big file, read one at a time by --workers loader processes. --advice random calls
madvise(MADV_RANDOM) first (the fix: no read-around per fault). Prints
diag_elapsed_s=."""

import argparse
import mmap
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import lcg, run_loader  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--touches", type=int, default=3000)
    ap.add_argument("--advice", choices=["normal", "random"], default="normal")
    ap.add_argument("--workers", type=int, default=2, help="loader processes (0: the main process reads)")
    ap.add_argument("--compute-ms", type=float, default=0.0, help="main's CPU per record")
    args = ap.parse_args()
    import numpy as np

    arr = np.memmap(args.file, dtype=np.uint8, mode="r")
    if args.advice == "random":
        arr._mmap.madvise(mmap.MADV_RANDOM)
    records = arr.size // 4096
    rng = lcg(7)
    picks = [next(rng) % records for _ in range(args.touches)]

    def load(r):
        int(arr[r * 4096:(r + 1) * 4096].sum())

    print("diag_elapsed_s=%.6f" % run_loader(picks, load, args.workers, args.compute_ms / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
