#!/usr/bin/python3
"""Setup helper: make files cold (fadvise DONTNEED on each), touching no other
file's pages. evict.py PATH... ; a directory means its sample_* files;
--every N --offset K keeps only the K-th of every N (sorted), e.g. one rank's
share of a `ranks` data set (files i with i % N == K). --warm reads them
instead (into the cache). --module NAME (repeatable) adds every file of an
installed Python package's directory (found without importing it), e.g. to
make `import torch` read its modules from the disk again."""

import argparse
import importlib.util
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--module", action="append", default=[])
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--warm", action="store_true")
    args = ap.parse_args()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.startswith("sample_"))
        else:
            files.append(p)
    for name in args.module:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            sys.exit("evict.py: no package %s" % name)
        for top in spec.submodule_search_locations:
            for d, _, names in os.walk(top):
                files += sorted(os.path.join(d, n) for n in names if os.path.isfile(os.path.join(d, n)))
    for i, path in enumerate(files):
        if i % args.every != args.offset:
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            if args.warm:
                while os.read(fd, 1 << 20):
                    pass
            else:
                if not args.module:
                    os.fsync(fd)  # (a read-only package's files are clean)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
