#!/usr/bin/python3
"""A training loop that re-opens and re-reads one small file (a config or a
label map) at every step. --cache reads it once and keeps it (the fix).
Prints diag_elapsed_s=."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import spin  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", required=True)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--compute-ms", type=float, default=0.1)
    ap.add_argument("--cache", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.file):
        with open(args.file, "w") as f:
            json.dump({"label_%d" % i: i for i in range(200)}, f)
    t0 = time.monotonic()
    cached = None
    total = 0
    for _ in range(args.steps):
        if cached is None or not args.cache:
            os.stat(args.file)
            with open(args.file) as f:
                cached = json.load(f)
        total += len(cached)
        spin(args.compute_ms / 1000)
    print("diag_elapsed_s=%.6f" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
