"""Epoch and step markers for iolens (docs/markers.md).

iolens learns a training job's structure from the job itself: the traced
process calls access(2) on a path under ``/.iolens/``, a directory that does
not exist, so the call fails at once with ENOENT and has no other effect.
iolens sees the path in its stat-class syscall probe and turns it into a
marker:

    /.iolens/epoch/N   epoch N starts (and the previous epoch ends)
    /.iolens/step/N    step N starts
    /.iolens/end       training ends

Usage::

    import iolens_markers as mk
    for epoch in range(epochs):
        mk.epoch(epoch)
        for step, batch in enumerate(loader):
            mk.step(step)
            ...
    mk.end()

The functions never raise and cost one failing syscall each (about a
microsecond), with or without iolens attached. No dependencies: copy this
file next to the training script or put tools/markers on PYTHONPATH.
os.access() makes one faccessat (or faccessat2) syscall; both are
in iolens's stat class, so a marker also counts as one failed stat call.
"""

import os

__all__ = ["PREFIX", "epoch", "step", "end", "mark"]

PREFIX = "/.iolens/"


def mark(name):
    """Announce PREFIX + name (e.g. "epoch/3"); never raises."""
    try:
        os.access(PREFIX + str(name), os.F_OK)
    except Exception:  # a marker must never break a training job
        pass


def epoch(n):
    """Epoch n starts (and the previous one ends)."""
    mark("epoch/%d" % int(n))


def step(n):
    """Step n starts."""
    mark("step/%d" % int(n))


def end():
    """Training ends."""
    mark("end")
