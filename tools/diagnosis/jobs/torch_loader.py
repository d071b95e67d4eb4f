#!/usr/bin/python3
"""A real PyTorch DataLoader job over raw sample files (make-dataset's
sample_*.bin): each sample is read whole by the Dataset's __getitem__ into a
uint8 tensor; the training step is --compute-ms of CPU per batch in the main
process. Prints diag_elapsed_s= (the loop). A cold data set is the caller's
(evict.py before the job): the job never drops its own pages.

    torch_loader.py --dir D --workers 0 --epochs 1
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import spin  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--prefetch", type=int, default=2, help="prefetch_factor (with workers)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--compute-ms", type=float, default=5.0)
    ap.add_argument("--read-size", type=int, default=1 << 20)
    ap.add_argument("--header-reads", type=int, default=0,
                    help="tiny reads of --header-size bytes before each sample's body (an index parsed piece by piece)")
    ap.add_argument("--header-size", type=int, default=64)
    args = ap.parse_args()

    import torch
    from torch.utils.data import DataLoader, Dataset

    files = sorted(os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.startswith("sample_"))

    class Samples(Dataset):
        def __len__(self):
            return len(files)

        def __getitem__(self, i):
            path = files[i]
            chunks = []
            with open(path, "rb", buffering=0) as f:
                for _ in range(args.header_reads):
                    f.read(args.header_size)
                while True:
                    b = f.read(args.read_size)
                    if not b:
                        break
                    chunks.append(b)
            data = b"".join(chunks)
            return torch.frombuffer(bytearray(data[:4096]), dtype=torch.uint8)

    torch.manual_seed(0)
    torch.set_num_threads(1)
    kw = {"num_workers": args.workers, "batch_size": args.batch_size, "shuffle": True}
    if args.workers > 0:
        kw.update(prefetch_factor=args.prefetch, persistent_workers=True)
    loader = DataLoader(Samples(), **kw)
    total = 0
    t0 = time.monotonic()
    for _ in range(args.epochs):
        for batch in loader:
            total += int(batch[:, 0].sum())
            spin(args.compute_ms / 1000)
    print("diag_elapsed_s=%.6f" % (time.monotonic() - t0))  # the training loop, imports excluded
    return 0


if __name__ == "__main__":
    sys.exit(main())
