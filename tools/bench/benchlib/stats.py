"""Medians, added cost and ratios from the raw per-round samples, and the
issue's targets judged on them. Nothing here measures anything."""

import statistics

# Issue #14's targets (issue #5's were 1.5x the floor, 0.5x bpftrace, 2%
# slower and a report of 10M events in 3 s).
MAX_VS_FLOOR = 1.25     # (a): iolens added ns/call <= 1.25x the floor probe's
MAX_VS_BPFTRACE = 0.4   # (a): ... and <= 0.4x bpftrace's
MAX_VS_ONE_THREAD = 1.25  # (b), (e): added ns/call <= 1.25x (a)'s
MAX_JOB_SLOWDOWN = {"c": 2.0, "d": 1.0}  # % slower than baseline
MAX_RECORDER_CPU_PCT = 2.0  # (a), (d): the recorder's CPU, % of the job's
MAX_REPORT_S = 2.0      # iolens report of 10M events (pread loop)
MAX_REPORT_RSS_MIB = 256
MAX_MANY_FILES_REPORT_S = 3.0  # iolens report of the synthetic 10M-event, 200k-file job
MAX_MANY_FILES_REPORT_RSS_MIB = 256
MAX_ATTACH_S = 0.5


def median(xs):
    return statistics.median(xs) if xs else None


class Row:
    """One (workload, variant): its samples and what they come to."""

    def __init__(self, workload, variant, samples, base_median):
        self.workload = workload
        self.variant = variant
        self.metric = [s["metric"] for s in samples]
        self.med = median(self.metric)
        self.spread = (min(self.metric), max(self.metric)) if self.metric else (None, None)
        self.cpu_s = median([s["cpu_s"] for s in samples])
        self.max_rss_kib = max(s["max_rss_kib"] for s in samples) if samples else None
        self.calls = [s["calls"] for s in samples]
        self.lost = [s["lost"] for s in samples]
        self.overhead = [s["extra"] for s in samples]
        self.added = self.med - base_median if self.med is not None and base_median is not None else None
        # Job CPU per call (per-call workloads whose binary prints it).
        cpu = [s.get("cpu_metric") for s in samples]
        self.cpu_med = median(cpu) if cpu and all(c is not None for c in cpu) else None
        self.cpu_added = None
        self.slowdown_pct = 100.0 * self.added / base_median if self.added is not None and base_median else None

    def counts_exact(self, expected):
        """True when every round counted exactly the expected calls and lost nothing."""
        if expected is None or any(c is None for c in self.calls):
            return None
        return all(c == expected for c in self.calls) and all((l or 0) == 0 for l in self.lost)


def rows(workload, variants, samples):
    """samples: {variant name: [sample dict, ...]} for one workload."""
    base = median([s["metric"] for s in samples.get("baseline", [])])
    out = [Row(workload, v, samples.get(v, []), base) for v in variants if samples.get(v)]
    base_cpu = next((r.cpu_med for r in out if r.variant == "baseline"), None)
    for r in out:
        if r.cpu_med is not None and base_cpu is not None:
            r.cpu_added = r.cpu_med - base_cpu
    return out


def paired_slowdowns(base, me):
    """The % by which me was slower than the baseline in each round: the two
    ran side by side within a round (interleaved), so the machine's drift
    between rounds cancels out of each pair. base, me: Rows of one workload,
    their samples in round order."""
    return [100.0 * (m - b) / b for b, m in zip(base.metric, me.metric) if b]


def median_interval(xs, confidence=0.95):
    """A distribution-free interval for the median of xs: the k-th smallest
    and k-th largest values, k the largest with P(Binomial(n, 1/2) < k) <=
    (1 - confidence) / 2. Returns (low, high, achieved confidence); with too
    few values for the confidence asked, the whole range and what it gives
    (5 values: 94%)."""
    from math import comb
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None, None, None
    tail = 0.0  # P(Binomial(n, 1/2) < k)
    k = 0
    while k < n // 2:
        nxt = tail + comb(n, k) / 2.0 ** n
        if nxt > (1 - confidence) / 2:
            break
        tail, k = nxt, k + 1
    k = max(k, 1)
    below = sum(comb(n, i) for i in range(k)) / 2.0 ** n
    return xs[k - 1], xs[n - k], 1 - 2 * below


MIN_VERDICT_CONFIDENCE = 0.9  # 5 rounds give 94%, 4 only 88%


def judge_slowdown(base, me, limit, confidence=0.95):
    """Issue #14's way to judge a job's slowdown: the median of the paired
    rounds' slowdowns, with a distribution-free interval for it. met when the
    whole interval is at or under limit, missed when all of it is over, None
    (inconclusive: more rounds needed) when it straddles the limit or when
    too few rounds give the interval less than MIN_VERDICT_CONFIDENCE.
    Returns (median, (low, high, confidence), (min, max), verdict)."""
    d = paired_slowdowns(base, me)
    if not d:
        return None, (None, None, None), (None, None), None
    lo, hi, conf = median_interval(d, confidence)
    verdict = True if hi <= limit else (False if lo > limit else None)
    if conf < MIN_VERDICT_CONFIDENCE:
        verdict = None
    return median(d), (lo, hi, conf), (min(d), max(d)), verdict


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def overhead_shares(row):
    """Median shares of the job's CPU time from iolens's own accounting
    (capture.cost), when the binary has it: (bpf %, recorder %)."""
    bpf, rec = [], []
    for o in row.overhead:
        job = o.get("job_cpu_ns")
        if not job:
            continue
        if o.get("bpf_run_ns") is not None:
            bpf.append(100.0 * o["bpf_run_ns"] / job)
        if o.get("recorder_cpu_ns") is not None:
            rec.append(100.0 * o["recorder_cpu_ns"] / job)
    return median(bpf), median(rec)


def overhead_value(row, key):
    vals = [o[key] for o in row.overhead if o.get(key) is not None]
    return median(vals)
