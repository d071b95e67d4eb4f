"""The measurements that are not a traced workload: time to attach, and the
cost of `iolens report` on a recording of 10 million events."""

import json
import os
import re

from . import stats
from .proc import BenchError, run


def attach_times(variants, build, rounds, tmp):
    """{variant name: [seconds]}: launch of the tracer to the first instruction
    of the command it holds, from iolens-bench-clock's printed CLOCK_MONOTONIC.
    The baseline's figure is plain process start-up; subtract it to get the
    tracer's own share."""
    clock = os.path.join(build, "iolens-bench-clock")
    out = {v.name: [] for v in variants}
    for r in range(rounds):
        for v in _rotate(variants, r):
            res = run(v.wrap([clock], tmp), "attach/%s" % v.name)
            m = re.search(r"^mono_ns=(\d+)$", res.stdout, re.M)
            if not m:
                raise BenchError("attach/%s: iolens-bench-clock printed no time" % v.name)
            out[v.name].append((int(m.group(1)) - res.start_ns) / 1e9)
            v.result(res, tmp)  # consume (and check) what the tracer wrote
    return out


def report_cost(iolens, build, tmp, threads, count, reps):
    """Records pread-loop T x N (one event per read, plus a few) with one
    iolens binary, then times `iolens report` on it reps times.
    Returns a dict of figures; the recording is deleted afterwards."""
    workload = os.path.join(build, "iolens-workload")
    data = os.path.join(tmp, "pread.dat")
    rec = os.path.join(tmp, "report-cost.iolens")
    js = os.path.join(tmp, "report-cost.json")
    cmd = [iolens.path, "record", "-f", "-o", rec, "--json", js, "--",
           workload, "pread-loop", "--file", data, "--count", str(count), "--threads", str(threads)]
    try:
        r = run(cmd, "%s record (%d events)" % (iolens.name, threads * count))
        os.sync()  # the recording's write-back must not run into the reports timed below
        with open(js) as f:
            cap = json.load(f)["capture"]
        events = cap.get("events", 0)
        if events < threads * count:
            raise BenchError("%s: the recording holds %d events, expected at least %d" % (iolens.name, events, threads * count))
        walls, rss = [], []
        for _ in range(reps):
            rr = run([iolens.path, "report", rec], "%s report" % iolens.name)
            walls.append(rr.wall_s)
            rss.append(rr.max_rss_kib)
        return {
            "events": events,
            "lost_events": cap.get("lost_events"),
            "recording_bytes": os.path.getsize(rec),
            # The workload is a small static binary, so the tree's peak is the recorder's.
            "record_max_rss_kib": r.max_rss_kib,
            "record_wall_s": r.wall_s,
            "record_cost": cap.get("cost") or cap.get("overhead"),
            "report_wall_s": stats.median(walls),
            "report_max_rss_kib": max(rss),
        }
    finally:
        for p in (rec, js):
            if os.path.exists(p):
                os.unlink(p)


def many_files_recording(build, tmp, events, files):
    """The synthetic many-file recording (iolens-synth-recording: 2 ranks,
    4 workers each, 3 epochs), made once and kept in tmp like the datasets.
    Returns (path, events, files)."""
    synth = os.path.join(build, "iolens-synth-recording")
    rec = os.path.join(tmp, "synth-%s-%s.iolens" % (events, files))
    if not os.path.exists(rec):
        run([synth, "-o", rec + ".tmp", "-f", "--events", events, "--files", files], "synth-recording")
        os.replace(rec + ".tmp", rec)
        # A gigabyte just written: its write-back ran into the first reports
        # timed (4.2 s against 3.0 s a minute later, 2026-12-07).
        os.sync()
    scale = {"k": 1000, "m": 1000 ** 2}
    n = lambda s: int(s[:-1]) * scale[s[-1]] if s[-1] in scale else int(s)
    return rec, n(events), n(files)


def many_files_cost(binaries, rec, events, files, reps, tmp):
    """{binary name: figures}: `iolens report` of rec reps times per binary,
    to the terminal and with --json FILE, interleaved (binaries and modes take
    turns, so a slower machine phase hits each alike): median wall and CPU
    seconds, largest peak RSS."""
    js = os.path.join(tmp, "many-files.json")
    raw = {b.name: {"terminal": [], "json": []} for b in binaries}
    try:
        for r in range(reps):
            for b in _rotate(binaries, r):
                for mode in ("terminal", "json"):
                    cmd = [b.path, "report", rec] if mode == "terminal" else [b.path, "report", "--json", js, "-f", rec]
                    raw[b.name][mode].append(run(cmd, "%s report (%s)" % (b.name, mode)))
    finally:
        if os.path.exists(js):
            os.unlink(js)
    out = {}
    for name, modes in raw.items():
        out[name] = {"events": events, "files": files, "recording_bytes": os.path.getsize(rec)}
        for mode, rs in modes.items():
            out[name][mode] = {"wall_s": stats.median([x.wall_s for x in rs]),
                               "cpu_s": stats.median([x.cpu_s for x in rs]),
                               "max_rss_kib": max(x.max_rss_kib for x in rs)}
    return out


def _rotate(xs, r):
    """Round r starts at a different variant, so no variant always runs first
    (after a cold cache, or right after the slowest one)."""
    k = r % len(xs)
    return xs[k:] + xs[:k]
