"""A PyTorch job for record --stacks (tests/privileged/call_sites_test.cpp):
its reads are grouped by the library that made them.

  torch_job.py DIR
    DIR/pil/*.jpg  32 JPEGs read by a DataLoader with 2 workers, through PIL
    DIR/tv/*.jpg   16 JPEGs read with torchvision.io.read_file (C++)
    DIR/ckpt.pt    a 1 MiB checkpoint read with torch.load
Prints one JSON line: the bytes of each group of files.
"""
import json
import os
import sys

import numpy as np
import torch
import torchvision.io
from PIL import Image
from torch.utils.data import DataLoader, Dataset

d = sys.argv[1]
rng = np.random.default_rng(0)
sizes = {"pil": 0, "tv": 0}
for group, n in (("pil", 32), ("tv", 16)):
    os.makedirs(os.path.join(d, group), exist_ok=True)
    for i in range(n):
        p = os.path.join(d, group, "img%03d.jpg" % i)
        Image.fromarray((rng.random((96, 96, 3)) * 255).astype("uint8")).save(p, quality=90)
        sizes[group] += os.path.getsize(p)
ckpt = os.path.join(d, "ckpt.pt")
torch.save(torch.zeros(512, 512), ckpt)
sizes["ckpt"] = os.path.getsize(ckpt)


class Images(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, i):
        img = Image.open(os.path.join(d, "pil", "img%03d.jpg" % i)).convert("RGB")
        return torch.from_numpy(np.asarray(img).copy())


for batch in DataLoader(Images(), batch_size=8, num_workers=2):
    pass
for i in range(16):
    torchvision.io.decode_jpeg(torchvision.io.read_file(os.path.join(d, "tv", "img%03d.jpg" % i)))
torch.load(ckpt)
print(json.dumps(sizes))
