#!/usr/bin/python3
"""Checks `iolens export --format perfetto` by decoding it with a real
protobuf decoder (protoc --decode, Debian's protobuf-compiler) against
tests/export/perfetto_subset.proto (Perfetto's field numbers).

  perfetto_check.py IOLENS SYNTH DIR[:DIR...]

For each recording (every *.iolens in the DIRs: the golden ones and
tests/export/recordings, fio through io_uring and libaio; and a synthetic
job), checks that:
  - the file decodes as a perfetto.protos.Trace and uses no field the subset
    lacks (protoc prints those as bare numbers);
  - there is one process track per process of the report and one thread
    track per thread that has events (the Chrome export's threads), each
    thread under its process's track;
  - slices begin and end in pairs, on every track, properly nested;
  - the calls (slices of category posix/copy, named by interned names
    resolved per packet sequence) are the Chrome export's, name for name, and
    so are the async requests, epochs and off-CPU waits;
  - the clock snapshot carries the recording's MONOTONIC start and its
    REALTIME anchor.
"""
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    return p


def parse_text(text):
    """protoc's text format -> nested dicts of lists."""
    root = collections.defaultdict(list)
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith("{"):
            node = collections.defaultdict(list)
            stack[-1][line[:-1].strip()].append(node)
            stack.append(node)
            continue
        key, _, value = line.partition(": ")
        if re.fullmatch(r"\d+", key):
            fail(f"field number {key} is not in the subset proto: {line}")
        if value.startswith('"'):
            value = json.loads(value) if "\\" not in value else value.strip('"')
        stack[-1][key].append(value)
    return root


def one(node, key, default=None):
    v = node.get(key)
    return v[0] if v else default


def check(iolens, rec, work):
    name = os.path.basename(rec).replace(".iolens", "")
    pf = os.path.join(work, name + ".pftrace")
    cj = os.path.join(work, name + ".json")
    rj = os.path.join(work, name + ".report.json")
    run([iolens, "export", "--format", "perfetto", "-o", pf, rec])
    run([iolens, "export", "--format", "chrome", "-o", cj, rec])
    run([iolens, "report", "--color", "never", "--json", rj, rec])
    with open(pf, "rb") as f:
        p = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I", HERE,
                            os.path.join(HERE, "perfetto_subset.proto")],
                           stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail(f"{pf}: protoc --decode failed: {p.stderr.decode()[:500]}")
        return
    trace = parse_text(p.stdout.decode("utf-8", "replace"))
    report = json.load(open(rj))
    chrome = json.load(open(cj))["traceEvents"]
    packets = trace["packet"]

    # Tracks.
    tracks = {}
    process_tracks, thread_tracks = {}, {}
    for pk in packets:
        for td in pk.get("track_descriptor", []):
            uuid = int(one(td, "uuid"))
            if uuid in tracks:
                fail(f"{pf}: track {uuid} described twice")
            tracks[uuid] = td
            if "process" in td:
                process_tracks[int(one(td["process"][0], "pid"))] = uuid
            if "thread" in td:
                t = td["thread"][0]
                thread_tracks[(int(one(t, "pid")), int(one(t, "tid")))] = uuid
    pids = {pr["pid"] for pr in report["processes"]}
    if set(process_tracks) != pids:
        fail(f"{pf}: process tracks {sorted(process_tracks)} are not the report's processes {sorted(pids)}")
    chrome_threads = {(e["pid"], e["tid"]) for e in chrome
                      if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] in pids}
    if set(thread_tracks) != chrome_threads:
        fail(f"{pf}: thread tracks {len(thread_tracks)} are not the Chrome export's threads {len(chrome_threads)}")
    for (pid, tid), uuid in thread_tracks.items():
        if int(one(tracks[uuid], "parent_uuid", 0)) != process_tracks.get(pid):
            fail(f"{pf}: thread {tid} is not under its process {pid}")

    # Clock.
    # The trace's own snapshot (with REALTIME); each thread sequence has one
    # more for its incremental clock, checked below.
    snaps = [pk["clock_snapshot"][0] for pk in packets if "clock_snapshot" in pk
             and any(one(c, "clock_id") == "1" for c in pk["clock_snapshot"][0]["clocks"])]
    if len(snaps) != 1:
        fail(f"{pf}: {len(snaps)} clock snapshots with REALTIME")
    else:
        clocks = {one(c, "clock_id"): int(one(c, "timestamp")) for c in snaps[0]["clocks"]}
        cap = report["capture"]
        if clocks.get("3") != cap["start_mono_ns"] or clocks.get("1") != cap["start_unix_ns"]:
            fail(f"{pf}: clock snapshot {clocks} is not the capture's start {cap['start_mono_ns']}, "
                 f"{cap['start_unix_ns']}")

    # Events, with interning, defaults and clocks resolved per sequence.
    seq_state = {}
    open_slices = collections.defaultdict(list)
    intervals = collections.defaultdict(list)
    begins = collections.Counter()
    ends = 0
    counters = 0
    posix_dur = 0
    posix_starts = []
    for pk in packets:
        seq = one(pk, "trusted_packet_sequence_id")
        flags = int(one(pk, "sequence_flags", 0))
        if flags & 1:
            seq_state[seq] = {"names": {}, "cats": {}, "track": None, "clock": None, "inc": None}
        st = seq_state.get(seq)
        for cs in pk.get("clock_snapshot", []):
            for c in cs["clocks"]:
                if one(c, "clock_id") == "64":
                    if one(c, "is_incremental") != "true" or st is None:
                        fail(f"{pf}: clock 64 is not an incremental clock of a started sequence")
                    else:
                        st["inc"] = int(one(c, "timestamp"))
        for d in pk.get("trace_packet_defaults", []):
            if st is None:
                fail(f"{pf}: defaults on sequence {seq} before its state was cleared")
                continue
            st["clock"] = one(d, "timestamp_clock_id")
            for ted in d.get("track_event_defaults", []):
                st["track"] = int(one(ted, "track_uuid"))
        for idata in pk.get("interned_data", []):
            if st is None:
                fail(f"{pf}: interned data on sequence {seq} before its state was cleared")
                continue
            for n in idata.get("event_names", []):
                st["names"][one(n, "iid")] = one(n, "name")
            for n in idata.get("event_categories", []):
                st["cats"][one(n, "iid")] = one(n, "name")
        if "track_event" not in pk:
            continue
        if st is None:
            fail(f"{pf}: sequence {seq} used before its incremental state was cleared")
            return
        if not flags & 2:
            fail(f"{pf}: a track event without SEQ_NEEDS_INCREMENTAL_STATE")
        clock = one(pk, "timestamp_clock_id", st["clock"])
        ts = int(one(pk, "timestamp"))
        if clock == "64":
            st["inc"] += ts
            ts = st["inc"]
        elif clock != "3":
            fail(f"{pf}: a timestamp on clock {clock}")
        te = pk["track_event"][0]
        track = int(one(te, "track_uuid", st["track"] or 0))
        if track not in tracks:
            fail(f"{pf}: an event on undescribed track {track}")
        typ = one(te, "type")
        if typ == "TYPE_SLICE_BEGIN":
            name = one(te, "name") or st["names"].get(one(te, "name_iid"))
            cat = st["cats"].get(one(te, "category_iids")) if "category_iids" in te else "posix"
            if name is None or cat is None:
                fail(f"{pf}: a slice whose name or category iid is not interned on its sequence")
            begins[(cat, name)] += 1
            open_slices[track].append((ts, cat))
        elif typ == "TYPE_SLICE_END":
            ends += 1
            if not open_slices[track]:
                fail(f"{pf}: a slice end without a begin on track {track}")
            else:
                start, cat = open_slices[track].pop()
                if ts < start:
                    fail(f"{pf}: a slice ends before it begins on track {track}")
                intervals[track].append((start, ts))
                if cat in ("posix", "copy"):
                    posix_dur += ts - start
                    posix_starts.append(start)
        elif typ == "TYPE_COUNTER":
            counters += 1
            if "counter" not in tracks.get(track, {}):
                fail(f"{pf}: a counter value on a track that is no counter track")
    if any(open_slices.values()):
        fail(f"{pf}: slices left open")
    # In time order, as the trace processor nests them: every two slices of
    # a track are disjoint or one holds the other.
    for track, spans in intervals.items():
        stack = []
        for start, end in sorted(spans, key=lambda x: (x[0], -x[1])):
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1]:
                fail(f"{pf}: overlapping slices that do not nest on track {track} ({tracks[track].get('name')})")
                break
            stack.append(end)
    if sum(begins.values()) != ends:
        fail(f"{pf}: {sum(begins.values())} slice begins, {ends} ends")

    want = collections.Counter()
    for e in chrome:
        if e["ph"] == "X" and e["cat"] in ("posix", "copy"):
            want[(e["cat"], e["name"])] += 1
        elif e["ph"] == "X" and e["cat"] == "epoch":
            want[("epoch", e["name"])] += 1
        elif e["ph"] == "X" and e["cat"] == "sched":
            want[("sched", e["name"])] += 1
        elif e["ph"] == "b":
            want[(e["cat"], e["name"])] += 1
    if begins != want:
        diff = {k: (begins.get(k), want.get(k)) for k in set(begins) | set(want) if begins.get(k) != want.get(k)}
        fail(f"{pf}: slices (perfetto, chrome) differ: {diff}")
    # Times: the calls' durations add up to the Chrome export's (exact
    # nanoseconds there as decimals of microseconds).
    chrome_dur = sum(round(e["dur"] * 1000) for e in chrome if e["ph"] == "X" and e["cat"] in ("posix", "copy"))
    if posix_dur != chrome_dur:
        fail(f"{pf}: the calls last {posix_dur} ns in all, {chrome_dur} ns in the Chrome export")
    # Start times, realtime: to within a microsecond (JSON floats).
    cap = report["capture"]
    ours = sorted(t - cap["start_mono_ns"] + cap["start_unix_ns"] for t in posix_starts)
    theirs = sorted(e["ts"] * 1000 for e in chrome if e["ph"] == "X" and e["cat"] in ("posix", "copy"))
    off = [abs(a - b) for a, b in zip(ours, theirs) if abs(a - b) > 1000]
    if len(ours) != len(theirs) or off:
        fail(f"{pf}: call start times differ from the Chrome export's ({len(off)} by more than 1 us)")
    chrome_counters = sum(1 for e in chrome if e["ph"] == "C")
    if counters != chrome_counters:
        fail(f"{pf}: {counters} counter values, the Chrome export has {chrome_counters}")
    calls = sum(n for (cat, _), n in begins.items() if cat in ("posix", "copy", "aio", "io_uring"))
    total = sum(o["calls"] for o in report["totals"].values())
    if calls != total:
        fail(f"{pf}: {calls} call slices, the report has {total} calls")
    print(f"{pf}: {len(packets)} packets, {len(process_tracks)} processes, {len(thread_tracks)} threads, "
          f"{calls} calls, {ends} slices, {counters} counter values")


def main():
    iolens, synth, golden = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as work:
        recs = sorted(r for d in golden.split(":") for r in glob.glob(os.path.join(d, "*.iolens")))
        s = os.path.join(work, "synth.iolens")
        run([synth, "-o", s, "--events", "30k", "--files", "200", "--ranks", "2", "--epochs", "3", "--workers", "2",
             "--markers"])
        recs.append(s)
        for rec in recs:
            check(iolens, rec, work)
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
