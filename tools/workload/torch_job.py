#!/usr/bin/python3
"""A small real PyTorch training job for iolens's tests and demos.

Creates (if missing) an ImageFolder of N small JPEG images under --data, then
trains for E epochs over it with torchvision.datasets.ImageFolder + ToTensor
and a DataLoader(num_workers=2, shuffle=True): every epoch forks two worker
processes that open and decode the images. With --markers it announces epochs,
steps and the end through tools/markers/iolens_markers.py (docs/markers.md).
With --report it prints one line with its elapsed time (tools/bench).

Needs torch, torchvision and PIL (Debian: python3-torch, python3-torchvision,
python3-pil); downloads nothing. Prints nothing except errors (and the
--report line).

    /usr/bin/python3 tools/workload/torch_job.py --data /tmp/imgs --images 64 --epochs 2 --markers
"""

import time

# Taken before any import that touches the disk, so --report's elapsed time
# covers the job's whole file activity after interpreter start (the torch
# imports included), as a tracer sees it.
_START_NS = time.monotonic_ns()

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "markers"))

CLASSES = 4
SIDE = 32


def make_images(data, count):
    """data/class_K/img_NNNNNN.jpg, K = i % CLASSES; deterministic pixels.

    Skipped when data/.complete exists (written last), so an interrupted
    generation is redone rather than half used.
    """
    done = os.path.join(data, ".complete")
    if os.path.exists(done):
        return
    from PIL import Image

    for k in range(CLASSES):
        os.makedirs(os.path.join(data, "class_%d" % k), exist_ok=True)
    for i in range(count):
        px = bytes(((i * 31 + j * 7) & 0xFF) for j in range(SIDE * SIDE * 3))
        img = Image.frombytes("RGB", (SIDE, SIDE), px)
        img.save(os.path.join(data, "class_%d" % (i % CLASSES), "img_%06d.jpg" % i), format="JPEG", quality=90)
    with open(done, "w") as f:
        f.write("%d\n" % count)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="ImageFolder root (created if missing)")
    ap.add_argument("--images", type=int, default=64, help="images to generate if --data is new (default 64)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2, help="DataLoader num_workers (default 2)")
    ap.add_argument("--markers", action="store_true", help="call iolens_markers epoch/step/end")
    ap.add_argument("--report", action="store_true",
                    help="print 'torch_job epochs=E images=N elapsed_ns=T' at the end (the benchmark's timing)")
    args = ap.parse_args()
    if args.images < CLASSES:
        ap.error("--images must be at least %d (one per class)" % CLASSES)

    make_images(args.data, args.images)

    import torch
    from torch.utils.data import DataLoader
    from torchvision import datasets, transforms

    if args.markers:
        import iolens_markers as mk
    else:
        mk = None

    torch.manual_seed(0)
    torch.set_num_threads(1)
    ds = datasets.ImageFolder(args.data, transform=transforms.ToTensor())
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
    model = torch.nn.Linear(3 * SIDE * SIDE, CLASSES)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        if mk:
            mk.epoch(epoch)
        for images, labels in loader:
            if mk:
                mk.step(step)
            opt.zero_grad()
            loss = loss_fn(model(images.flatten(1)), labels)
            loss.backward()
            opt.step()
            step += 1
    if mk:
        mk.end()
    if args.report:
        print("torch_job epochs=%d images=%d elapsed_ns=%d" % (args.epochs, len(ds), time.monotonic_ns() - _START_NS),
              flush=True)


if __name__ == "__main__":
    main()
