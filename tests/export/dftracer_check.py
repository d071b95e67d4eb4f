#!/usr/bin/python3
"""Checks `iolens export --format dftracer` against what DFAnalyzer does with it.

  dftracer_check.py fields IOLENS SYNTH DIR[:DIR...]
      every line against the fields DFAnalyzer's loader requires
      (LLNL/dfanalyzer dfanalyzer/dftracer.py: load_objects, io_function;
      docs/export.md lists them), for .pfw and .pfw.gz
  dftracer_check.py dask IOLENS SYNTH DIR[:DIR...]
      loads the export with Dask (dask.bag -> dataframe, Debian's
      python3-dask), the way DFAnalyzer does, and checks that calls and bytes
      per file, per process and per epoch, and the reads' page-cache hit and
      miss bytes per file, equal `iolens report --json`'s

Recordings: every *.iolens in the DIRs (the golden ones, and
tests/export/recordings: fio through io_uring and libaio, real captures with
async requests) and two synthetic jobs (marked and inferred epochs, several
ranks) from iolens-synth-recording.
No DFAnalyzer code is used: its loading rules are re-implemented here.
"""
import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile
import zlib

# DFAnalyzer's POSIX_IO_CAT_MAPPING, the read and write names (what it sizes).
READ_NAMES = {"read", "pread", "pread64", "readv", "preadv", "fread"}
WRITE_NAMES = {"write", "pwrite", "pwrite64", "writev", "pwritev", "fwrite"}
SIZED_CATS = {"POSIX", "STDIO"}
X_KEYS = ["id", "name", "cat", "pid", "tid", "ts", "dur", "ph", "args"]
M_KEYS = ["id", "name", "cat", "pid", "tid", "ph", "args"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return p


def recordings(iolens, synth, golden, work):
    recs = sorted(r for d in golden.split(":") for r in glob.glob(os.path.join(d, "*.iolens")))
    for name, extra in [("synth-markers", ["--ranks", "2", "--markers"]),
                        ("synth-inferred", ["--ranks", "2", "--seed", "7"])]:
        path = os.path.join(work, name + ".iolens")
        run([synth, "-o", path, "--events", "30k", "--files", "200", "--epochs", "3", "--workers", "2"] + extra)
        recs.append(path)
    return recs


def export(iolens, rec, out):
    run([iolens, "export", "--format", "dftracer", "-o", out, rec])
    return out


def lines_of(path):
    if path.endswith(".gz"):
        data = open(path, "rb").read()
        d = zlib.decompressobj(31)
        text = d.decompress(data)
        if d.unused_data or not d.eof:
            fail(f"{path}: not one single gzip member (Perfetto reads only the first)")
        return text.decode("utf-8").splitlines()
    return open(path, encoding="utf-8").read().splitlines()


def check_fields(path):
    lines = lines_of(path)
    if not lines or lines[0] != "[" or lines[-1] != "]":
        fail(f"{path}: does not start with a '[' line and end with a ']' line")
        return
    hh = None
    fh = set()
    ids = []
    used_fhash = set()
    for n, line in enumerate(lines[1:-1], 2):
        where = f"{path}:{n}"
        if line.endswith(","):
            fail(f"{where}: a comma after the object (DFTracer lines have none)")
        # DFAnalyzer: non-ASCII becomes '#', then json.loads(strict=False).
        ev = json.loads("".join(c if ord(c) < 128 else "#" for c in line), strict=False)
        for key in ("ph", "name", "cat", "pid", "tid", "id", "args"):
            if key not in ev:
                fail(f"{where}: no {key!r}")
        ids.append(ev["id"])
        args = ev["args"]
        if "hhash" not in args or not isinstance(args["hhash"], int) or args["hhash"] < 0:
            fail(f"{where}: args.hhash is not an unsigned integer")
        if ev["ph"] == "M":
            if list(ev) != M_KEYS:
                fail(f"{where}: keys {list(ev)} not in DFTracer's order {M_KEYS}")
            if "name" not in args or "value" not in args:
                fail(f"{where}: metadata without args.name and args.value")
            if ev["name"] == "HH":
                hh = args["value"]
            elif ev["name"] == "FH":
                if args["value"] in fh:
                    fail(f"{where}: FH {args['value']} twice")
                fh.add(args["value"])
            continue
        if list(ev) != X_KEYS:
            fail(f"{where}: keys {list(ev)} not in DFTracer's order {X_KEYS}")
        if ev["ph"] != "X":
            fail(f"{where}: ph {ev['ph']!r}: only X and M are written")
        for key in ("ts", "dur"):
            if not isinstance(ev.get(key), int) or ev[key] < 0:
                fail(f"{where}: {key} is not a non-negative integer (microseconds)")
        if ev["ts"] < 10**15:
            fail(f"{where}: ts {ev['ts']} is not realtime microseconds")
        if args.get("hhash") != hh:
            fail(f"{where}: hhash {args.get('hhash')} is not the HH line's {hh}")
        if ev["cat"] == "POSIX":
            if ev["name"] in ("pread64", "pwrite64", "preadv2", "pwritev2"):
                fail(f"{where}: {ev['name']} is not a name DFAnalyzer sizes")
            if "ret" not in args:
                fail(f"{where}: POSIX event without args.ret")
            if "fhash" in args:
                if not isinstance(args["fhash"], int):
                    fail(f"{where}: fhash is not an integer")
                used_fhash.add(args["fhash"])
                if args["fhash"] not in fh:
                    fail(f"{where}: fhash {args['fhash']} before (or without) its FH line")
        elif ev["cat"] != "iolens_epoch":
            fail(f"{where}: unexpected cat {ev['cat']!r}")
    if hh is None:
        fail(f"{path}: no HH line")
    if ids != sorted(set(ids)):
        fail(f"{path}: ids are not unique and increasing")
    if used_fhash != fh:
        fail(f"{path}: FH lines for files no event uses")
    print(f"fields: {path}: {len(lines) - 2} lines, {len(fh)} files")


# --- dask ------------------------------------------------------------------

def load_objects(line):
    """DFAnalyzer's per-line loading (dftracer.py load_objects + io_function),
    plus the iolens epoch argument as an extra column."""
    if not line or line[0] in "[]" or line == "\n":
        return []
    ev = json.loads("".join(c if ord(c) < 128 else "#" for c in line), strict=False)
    d = {"type": 0, "name": ev["name"], "cat": ev.get("cat", "").lower(), "pid": ev.get("pid", 0),
         "tid": ev.get("tid", 0), "ts": 0, "dur": 0, "fhash": "", "hash": "", "size": 0, "epoch": -1,
         "pc_hit": 0, "pc_miss": 0}
    args = ev.get("args", {})
    if ev["ph"] == "M":
        if ev["name"] in ("FH", "HH", "SH", "PR"):
            d["type"] = {"FH": 1, "HH": 2, "SH": 3, "PR": 5}[ev["name"]]
            d["name"] = args["name"]
            d["hash"] = str(args["value"])
        else:
            d["type"] = 4
        return [d]
    if "dur" in ev:
        d["ts"] = int(ev["ts"])
        d["dur"] = int(ev["dur"])
    if "fhash" in args:
        d["fhash"] = str(args["fhash"])
    if "size_sum" in args:
        d["size"] = int(args["size_sum"])
    elif ev.get("cat") in SIZED_CATS and ev["name"] in READ_NAMES | WRITE_NAMES:
        if int(args.get("ret", 0)) > 0:
            d["size"] = int(args["ret"])
    d["epoch"] = int(args.get("epoch", -1))
    d["pc_hit"] = int(args.get("pc_hit_bytes", 0))
    d["pc_miss"] = int(args.get("pc_miss_bytes", 0))
    return [d]


def dask_frames(path):
    import dask.bag as db
    import pandas as pd
    meta = {"type": "int64", "name": "object", "cat": "object", "pid": "int64", "tid": "int64", "ts": "int64",
            "dur": "int64", "fhash": "object", "hash": "object", "size": "int64", "epoch": "int64",
            "pc_hit": "int64", "pc_miss": "int64"}
    bag = db.read_text(path, blocksize=None).map(load_objects).flatten()
    df = bag.to_dataframe(meta=meta)
    events = df[(df["type"] == 0) & (df["cat"] == "posix")]
    files = df[df["type"] == 1][["name", "hash"]].compute().rename(columns={"name": "file", "hash": "fhash"})
    per_file = events[events["fhash"] != ""].groupby("fhash").agg({"size": "sum", "name": "count"}).compute()
    per_file = per_file.reset_index().merge(files, on="fhash", how="left")
    if per_file["file"].isna().any():
        fail(f"{path}: events whose fhash has no FH line")
    per_file = per_file.groupby("file").agg({"size": "sum", "name": "sum"})
    # The page-cache split of the reads, per file.
    per_file_cache = events[events["fhash"] != ""].groupby("fhash").agg({"pc_hit": "sum", "pc_miss": "sum"}).compute()
    per_file_cache = per_file_cache.reset_index().merge(files, on="fhash", how="left").groupby("file").sum(
        numeric_only=True)
    per_pid = events.groupby("pid").agg({"size": "sum", "name": "count"}).compute()
    per_epoch = events[events["epoch"] >= 0].groupby("epoch").agg({"size": "sum", "name": "count"}).compute()
    return per_file, per_pid, per_epoch, per_file_cache, int(events["name"].count().compute())


def report_tables(rep):
    def calls(ops):
        return sum(o["calls"] for o in ops.values())

    def rw(ops):
        return ops["read"]["bytes"] + ops["write"]["bytes"]

    files, pids, epochs, cache = {}, {}, {}, {}
    for f in rep["files"]:
        c = files.setdefault(f["path"], [0, 0])
        c[0] += calls(f["ops"])
        c[1] += rw(f["ops"])
        h = cache.setdefault(f["path"], [0, 0])
        h[0] += f["page_cache"]["hit_bytes"]
        h[1] += f["page_cache"]["miss_bytes"]
    for p in rep["processes"]:
        c = pids.setdefault(p["pid"], [0, 0])
        c[0] += calls(p["ops"])
        c[1] += rw(p["ops"])
    for e in rep["epochs"]:
        epochs[e["index"]] = [calls(e["ops"]), rw(e["ops"])]
    return files, pids, epochs, cache, calls(rep["totals"])


def compare(what, path, ours, theirs):
    got = {k: [int(r["name"]), int(r["size"])] for k, r in ours.iterrows()}
    want = {k: v for k, v in theirs.items() if v[0] > 0}
    if got != want:
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
        fail(f"{path}: calls and bytes per {what} differ (export, report): {dict(list(diff.items())[:5])}")
    return len(want)


def check_dask(iolens, rec, work, suffix):
    base = os.path.join(work, os.path.basename(rec).replace(".iolens", ""))
    out = export(iolens, rec, base + suffix)
    rj = base + ".json"
    if not os.path.exists(rj):
        run([iolens, "report", "--color", "never", "--json", rj, rec], ok=(0, 3))
    rep = json.load(open(rj))
    if rep["files_omitted"]:
        fail(f"{rec}: the report left files out; raise --max-files")
    per_file, per_pid, per_epoch, per_file_cache, total = dask_frames(out)
    files, pids, epochs, cache, report_total = report_tables(rep)
    nf = compare("file", out, per_file, files)
    npid = compare("process", out, per_pid, pids)
    ne = compare("epoch", out, per_epoch, epochs)
    got = {k: [int(r["pc_hit"]), int(r["pc_miss"])] for k, r in per_file_cache.iterrows() if r["pc_hit"] or r["pc_miss"]}
    want = {k: v for k, v in cache.items() if v[0] or v[1]}
    if got != want:
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
        fail(f"{out}: page-cache hit and miss bytes per file differ (export, report): {dict(list(diff.items())[:5])}")
    if total != report_total:
        fail(f"{out}: {total} POSIX events, the report has {report_total} calls")
    print(f"dask: {out}: {total} calls; {nf} files, {npid} processes, {ne} epochs equal the report's; "
          f"page-cache bytes of {len(want)} files too")


def main():
    mode, iolens, synth, golden = sys.argv[1:5]
    with tempfile.TemporaryDirectory() as work:
        recs = recordings(iolens, synth, golden, work)
        for rec in recs:
            if mode == "fields":
                for suffix in (".pfw", ".pfw.gz"):
                    out = os.path.join(work, os.path.basename(rec) + suffix)
                    check_fields(export(iolens, rec, out))
            elif mode == "dask":
                check_dask(iolens, rec, work, ".pfw")
            else:
                raise SystemExit("usage: dftracer_check.py fields|dask IOLENS SYNTH DIR[:DIR...]")
        if mode == "dask":
            check_dask(iolens, recs[-1], work, ".pfw.gz")
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
