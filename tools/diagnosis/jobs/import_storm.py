#!/usr/bin/python3
"""Start-up only: import torch and torchvision (thousands of opens and stats
of .py and .so files, all cached), then a short CPU-bound loop. The import is
start-up cost, not an input stall: at most an info finding."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import spin  # noqa: E402

import torch  # noqa: E402,F401
import torchvision  # noqa: E402,F401

spin(0.5)
