#!/usr/bin/python3
"""A training loop that logs one line per step to a file (the logging
module, a FileHandler: one small write() per record, no fsync). Nothing here
costs time: the right report has no finding."""

import argparse
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import spin  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--compute-ms", type=float, default=0.2)
    args = ap.parse_args()
    log = logging.getLogger("train")
    log.addHandler(logging.FileHandler(args.log))
    log.setLevel(logging.INFO)
    for step in range(args.steps):
        spin(args.compute_ms / 1000)
        log.info("step %d loss %.4f lr %.5f", step, 1.0 / (step + 1), 0.001)
    return 0


if __name__ == "__main__":
    sys.exit(main())
