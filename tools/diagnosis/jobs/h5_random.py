#!/usr/bin/python3
"""An HDF5 data set (h5py) read one sample at a time at random indices
(sample-level shuffling inside one big file). --contiguous reads the same
samples as contiguous blocks of --block (shuffle shards, not samples). --make
creates the file, stored in chunks of --chunk-rows rows (a block-shuffled
reader's file has chunks of one block: one read per block). Prints
diag_elapsed_s=."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import lcg, run_loader  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--make", action="store_true")
    ap.add_argument("--samples", type=int, default=4096, help="rows in the file")
    ap.add_argument("--row", type=int, default=64 << 10, help="bytes per row")
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--contiguous", action="store_true")
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--chunk-rows", type=int, default=1, help="--make: rows per HDF5 chunk")
    ap.add_argument("--workers", type=int, default=2, help="loader processes (0: the main process reads)")
    ap.add_argument("--compute-ms", type=float, default=0.0, help="main's CPU per read")
    args = ap.parse_args()
    import h5py
    import numpy as np

    if args.make:
        with h5py.File(args.file, "w") as f:
            d = f.create_dataset("x", (args.samples, args.row), dtype="u1", chunks=(args.chunk_rows, args.row))
            for i in range(0, args.samples, 256):
                n = min(256, args.samples - i)
                d[i:i + n] = np.full((n, args.row), i % 251, dtype="u1")
        return 0
    with h5py.File(args.file, "r") as f:
        rows = f["x"].shape[0]
    rng = lcg(5)
    if args.contiguous:
        picks = [(next(rng) % (rows // args.block)) * args.block for _ in range(args.reads // args.block)]
        width = args.block
    else:
        picks = [next(rng) % rows for _ in range(args.reads)]
        width = 1
    opened = {}

    def load(start):
        if "d" not in opened:  # opened in the worker process, after the fork
            opened["d"] = h5py.File(args.file, "r", rdcc_nbytes=0)["x"]
        int(opened["d"][start:start + width].sum())

    scale = width  # compute per row, the same in both variants
    print("diag_elapsed_s=%.6f" % run_loader(picks, load, args.workers, scale * args.compute_ms / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
