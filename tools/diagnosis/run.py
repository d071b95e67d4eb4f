#!/usr/bin/python3
"""The labelled diagnosis suite of iolens (issue #19; docs/diagnosis.md).

Each case of cases.json is a small deterministic job with a label: the
finding that must come first in iolens's report ("none" for a clean job) and
the findings that must not appear. The runner records every case with
`iolens record --json`, compares the findings with the labels, runs each
case's "fixed" twin (the recommendation applied) and times case and twin side
by side (alternated, median of --rounds), then prints a confusion table (case
x top finding), precision and recall per rule, and exits 1 when a case that is
not marked pending is wrong.

    tools/diagnosis/run.py --iolens build/iolens --workload build/iolens-workload
    tools/diagnosis/run.py ... --case small_reads --case checkpoint_stall
    tools/diagnosis/run.py ... --write-docs docs/diagnosis.md   # regenerate the doc

Runs as root (iolens record loads BPF; some cases use a memory cgroup).
Python 3 standard library only; the jobs use Debian's torch, numpy and h5py.
"""

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch / -numpy / -h5py
CGROUP_V1 = "/sys/fs/cgroup/memory"

# Every rule id of docs/findings.md, in that table's order: the columns of the
# confusion table. A case label may only use these and "none".
RULES = ["small_reads", "random_access", "io_stall", "rank_imbalance", "dataset_exceeds_cache", "self_eviction",
         "metadata_heavy", "many_small_files", "readahead_waste", "mmap_random", "startup_io", "checkpoint_stall", "shallow_async"]
NONE = "none"

# A twin is "measurably faster" when its median time is at most this share of
# the case's and its slowest round is faster than the case's fastest round.
FASTER_RATIO = 0.95


class Failure(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- cases


def load_cases(path):
    with open(path) as f:
        cases = json.load(f)["cases"]
    names = set()
    for c in cases:
        for key in ("name", "what", "command", "expect"):
            if key not in c:
                raise SystemExit("case %r: missing %r" % (c.get("name"), key))
        if c["name"] in names:
            raise SystemExit("case %r: duplicate name" % c["name"])
        names.add(c["name"])
        for rid in [c["expect"]] + c.get("forbid", []):
            if rid != NONE and rid not in RULES:
                raise SystemExit("case %r: unknown rule id %r" % (c["name"], rid))
    return cases


def check_rule_ids():
    """RULES must be the ids of docs/findings.md's rule table, in its order."""
    ids = []
    with open(os.path.join(SRC, "docs", "findings.md")) as f:
        in_rules = False
        for line in f:
            if line.startswith("## "):
                in_rules = line.strip() == "## Rules"
            elif in_rules and line.startswith("| `"):
                ids.append(line.split("`")[1])
    if ids != RULES:
        raise SystemExit("run.py RULES %s differ from docs/findings.md's rules %s" % (RULES, ids))


def expand(value, env):
    """{var} substitution in a string or in every element of a list."""
    if isinstance(value, list):
        return [expand(v, env) for v in value]
    return value.format(**env)


def case_env(args, case):
    work = os.path.join(args.workdir, case["name"])
    data = os.path.join(args.workdir, "data")
    return {"wl": args.workload, "py": PYTHON, "jobs": os.path.join(HERE, "jobs"), "src": SRC,
            "w": work, "data": data}


def run_shell(cmd, what):
    r = subprocess.run(["/bin/sh", "-ec", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure("%s failed (exit %d): %s\n%s" % (what, r.returncode, cmd, (r.stderr or r.stdout)[-2000:]))


# ------------------------------------------------------- memory cgroup


def remove_cgroup(path):
    """Removes a cgroup the runner made. A job left in it (its run timed out:
    only the direct child was killed) is killed first, so that no process
    keeps running throttled or limited and the group can go."""
    for _ in range(50):
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                for pid in f.read().split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except OSError:
                        pass
        except OSError:
            pass
        try:
            os.rmdir(path)
            return
        except OSError:
            time.sleep(0.1)


class MemoryCgroup:
    """A v1 memory cgroup (this machine's layout) or a cgroup2 directory with
    memory.max; the job joins it through a /bin/sh wrapper."""

    def __init__(self, limit_bytes, name):
        self.path = None
        for root, limit_file in ((CGROUP_V1, "memory.limit_in_bytes"), ("/sys/fs/cgroup", "memory.max"),
                                 ("/sys/fs/cgroup/unified", "memory.max")):
            if not os.path.exists(os.path.join(root, limit_file if root == CGROUP_V1 else "cgroup.controllers")):
                continue
            path = os.path.join(root, "iolens-diag-%s-%d" % (name, os.getpid()))
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
            except OSError:
                continue
            try:
                with open(os.path.join(path, limit_file), "w") as f:
                    f.write(str(limit_bytes))
            except OSError:
                os.rmdir(path)
                continue
            self.path = path
            break
        if self.path is None:
            raise Failure("no memory cgroup to limit the job's page cache (v1 %s or cgroup2 with memory)"
                          % CGROUP_V1)

    def wrap(self, argv):
        script = 'echo $$ > %s/cgroup.procs && exec "$@"' % shlex.quote(self.path)
        return ["/bin/sh", "-c", script, "sh"] + argv

    def remove(self):
        remove_cgroup(self.path)


# ------------------------------------------------- slow storage cgroup


def whole_disk_of(path):
    """major:minor of the disk holding path (a partition's parent disk: the
    throttle applies to a request queue)."""
    st = os.stat(path)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    sys_dir = os.path.realpath("/sys/dev/block/" + dev)
    if not os.path.isdir(sys_dir):
        raise Failure("%s is on device %s, which is not a block device (overlay, tmpfs?): no storage to "
                      "throttle for a slow path" % (path, dev))
    if os.path.exists(os.path.join(sys_dir, "partition")):
        with open(os.path.join(os.path.dirname(sys_dir), "dev")) as f:
            dev = f.read().strip()
    return dev


class SlowStorage:
    """A cgroup whose reads of the data set's disk are throttled to read_bps
    bytes and/or read_iops requests a second: v1 blkio
    (blkio.throttle.read_{bps,iops}_device, this machine's layout) or a
    cgroup2 directory with the io controller (io.max rbps/riops). The IOPS
    limit stands for a device's cost per request (a disk's seek, a network
    file system's round trip), which this VM's virtual disk does not have. A
    process joins it itself ({slow_cg}: the ranks workload's --slow-cgroup),
    or the whole job through wrap()."""

    def __init__(self, read_bps, read_iops, data_dir, name):
        dev = whole_disk_of(data_dir)
        self.path = None
        tried = []
        for root, kind in (("/sys/fs/cgroup/blkio", "v1"), ("/sys/fs/cgroup", "v2"),
                           ("/sys/fs/cgroup/unified", "v2")):
            if kind == "v1" and not os.path.exists(os.path.join(root, "blkio.throttle.read_bps_device")):
                continue
            if kind == "v2":
                try:
                    with open(os.path.join(root, "cgroup.controllers")) as f:
                        if "io" not in f.read().split():
                            continue
                    with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
                        f.write("+io")
                except OSError as e:
                    tried.append("%s: %s" % (root, e))
                    continue
            path = os.path.join(root, "iolens-diag-slow-%s-%d" % (name, os.getpid()))
            try:
                os.makedirs(path, exist_ok=True)
                if kind == "v1":
                    for limit, leaf in ((read_bps, "bps"), (read_iops, "iops")):
                        if limit:
                            with open(os.path.join(path, "blkio.throttle.read_%s_device" % leaf), "w") as f:
                                f.write("%s %d" % (dev, limit))
                else:
                    limits = ["rbps=%d" % read_bps] if read_bps else []
                    limits += ["riops=%d" % read_iops] if read_iops else []
                    with open(os.path.join(path, "io.max"), "w") as f:
                        f.write("%s %s" % (dev, " ".join(limits)))
            except OSError as e:
                tried.append("%s: %s" % (path, e))
                try:
                    os.rmdir(path)
                except OSError:
                    pass
                continue
            self.path = path
            break
        if self.path is None:
            raise Failure("no cgroup can throttle reads of device %s (v1 blkio or cgroup2 io): %s"
                          % (dev, "; ".join(tried) or "neither is mounted"))

    def wrap(self, argv):
        script = 'echo $$ > %s/cgroup.procs && exec "$@"' % shlex.quote(self.path)
        return ["/bin/sh", "-c", script, "sh"] + argv

    def remove(self):
        remove_cgroup(self.path)


def parse_size(text):
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = str(text).lower()
    return int(t[:-1]) * mult[t[-1]] if t[-1] in mult else int(t)


# ------------------------------------------------------------ one run


def variant(case, which):
    """The case's own job, or its twin with the case's fields as defaults."""
    if which == "case":
        return case
    twin = dict(case)
    twin.update(case["twin"])
    return twin


def one_run(args, case, which, record_to=None):
    """Setup, then the job (recorded when record_to is a path prefix).
    Returns (seconds, report or None)."""
    v = variant(case, which)
    env = case_env(args, case)
    for cmd in v.get("setup", []):
        run_shell(expand(cmd, env), "%s %s setup" % (case["name"], which))
    slow = None
    if v.get("slow_read_bps") or v.get("slow_read_iops"):
        slow = SlowStorage(parse_size(v.get("slow_read_bps", 0)), int(v.get("slow_read_iops", 0)), env["data"],
                           case["name"])
        env["slow_cg"] = slow.path
    try:
        argv = expand(v["command"], env)
        cg = MemoryCgroup(parse_size(v["memory_limit"]), case["name"]) if v.get("memory_limit") else None
        if cg and slow and not cg.path.startswith(CGROUP_V1) and not slow.path.startswith("/sys/fs/cgroup/blkio"):
            cg.remove()
            # One cgroup2 hierarchy: a process is in one group, so joining the
            # second would leave the first (and its limit) silently.
            raise Failure("%s: memory_limit and a slow storage limit on cgroup v2 need one group with both "
                          "(not supported by this runner yet)" % case["name"])
    except BaseException:
        if slow:
            slow.remove()
        raise
    try:
        job = cg.wrap(argv) if cg else argv
        # A job that does not join the slow cgroup itself ({slow_cg}) runs in it.
        if slow and not any("{slow_cg}" in a for a in v["command"]):
            job = slow.wrap(job)
        if record_to:
            job = [args.iolens, "record", "-f", "-o", record_to + ".iolens", "--json", record_to + ".json",
                   "--color", "never", "--"] + job
        t0 = time.monotonic()
        r = subprocess.run(job, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           cwd=env["w"], timeout=args.job_timeout)
        seconds = time.monotonic() - t0
    finally:
        if cg:
            cg.remove()
        if slow:
            slow.remove()
    if r.returncode != 0:
        raise Failure("%s %s exited %d: %s\n%s" % (case["name"], which, r.returncode, " ".join(job),
                                                  r.stderr[-2000:]))
    for line in r.stdout.splitlines():  # a job that times its own loop (imports excluded) says so
        if line.startswith("diag_elapsed_s="):
            seconds = float(line.split("=", 1)[1])
    if not record_to:
        return seconds, None
    with open(record_to + ".json") as f:
        report = json.load(f)
    return seconds, report


def io_seconds(report):
    """Time the job spent in file-I/O calls, summed over its threads."""
    return sum(op["time_ns"] for op in report["totals"].values()) / 1e9


def findings_of(report):
    return [(f["id"], f["severity"]) for f in report.get("findings", [])]


# ---------------------------------------------------------- one case


def ranked(case, found):
    """The findings that take part in the verdict: with allow_info, info
    findings (start-up facts that cost no time, e.g. a Python import storm)
    are left out."""
    return [f for f in found if not (case.get("allow_info") and f[1] == "info")]


def judge(case, found):
    """Problems with one run's findings against the case's labels."""
    problems = []
    judged = ranked(case, found)
    top = judged[0][0] if judged else NONE
    if top != case["expect"]:
        problems.append("first finding %s, expected %s" % (top, case["expect"]))
    elif case.get("expect_severity") and judged[0][1] != case["expect_severity"]:
        problems.append("%s has severity %s, expected %s" % (top, judged[0][1], case["expect_severity"]))
    bad = sorted({rid for rid, _ in found if rid in case.get("forbid", [])})
    if bad:
        problems.append("forbidden finding(s) present: %s" % ", ".join(bad))
    return problems


def run_case(args, case):
    env = case_env(args, case)
    shutil.rmtree(env["w"], ignore_errors=True)
    os.makedirs(env["w"])
    os.makedirs(env["data"], exist_ok=True)
    res = {"name": case["name"], "case": case, "problems": [], "found": [], "twin_found": None,
           "times": None, "ratio": None, "twin_note": ""}
    t_start = time.monotonic()
    try:
        for cmd in case.get("prepare", []):
            run_shell(expand(cmd, env), "%s prepare" % case["name"])
        _, rep = one_run(args, case, "case", os.path.join(env["w"], "case"))
        res["found"] = findings_of(rep)
        res["io_s"] = io_seconds(rep)
        res["problems"] += judge(case, res["found"])
        if case.get("twin") and not args.no_twins:
            run_twin(args, case, res, env)
    except (Failure, subprocess.TimeoutExpired) as e:
        res["problems"].append("error: %s" % e)
        res["error"] = True
    res["seconds"] = time.monotonic() - t_start
    res["status"] = status_of(case, res)
    return res


def run_twin(args, case, res, env):
    _, rep = one_run(args, case, "twin", os.path.join(env["w"], "twin"))
    res["twin_found"] = findings_of(rep)
    res["twin_io_s"] = io_seconds(rep)
    if case["expect"] in {rid for rid, _ in res["twin_found"]}:
        res["problems"].append("the fixed twin still has %s" % case["expect"])
    # Side by side: case, twin, case, twin, ... untraced; medians.
    times = {"case": [], "twin": []}
    for _ in range(case.get("rounds", args.rounds)):
        for which in ("case", "twin"):
            times[which].append(one_run(args, case, which)[0])
    res["times"] = times
    with open(os.path.join(env["w"], "times.json"), "w") as f:
        json.dump(times, f)
    judge_times(res)


def judge_times(res):
    times = res["times"]
    mc, mt = statistics.median(times["case"]), statistics.median(times["twin"])
    res["ratio"] = mt / mc if mc > 0 else None
    if not (res["ratio"] is not None and res["ratio"] <= FASTER_RATIO and max(times["twin"]) < min(times["case"])):
        res["twin_note"] = "not measurably faster"


def rejudge_case(args, case):
    """The case judged again from its stored recordings (`iolens report` with
    this --iolens: today's rules on the same captures) and stored times."""
    env = case_env(args, case)
    res = {"name": case["name"], "case": case, "problems": [], "found": [], "twin_found": None,
           "times": None, "ratio": None, "twin_note": "", "seconds": 0.0}
    reports = {}
    for which in ("case", "twin"):
        rec = os.path.join(env["w"], which + ".iolens")
        if not os.path.exists(rec):
            continue
        out = os.path.join(env["w"], which + ".rejudged.json")
        r = subprocess.run([args.iolens, "report", "-f", "--json", out, "--color", "never", rec],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode == 0:
            with open(out) as f:
                reports[which] = json.load(f)
    if "case" not in reports:
        res["problems"].append("error: no recording of this case in %s" % env["w"])
        res["error"] = True
    else:
        res["found"], res["io_s"] = findings_of(reports["case"]), io_seconds(reports["case"])
        res["problems"] += judge(case, res["found"])
    if "twin" in reports and case.get("twin"):
        res["twin_found"], res["twin_io_s"] = findings_of(reports["twin"]), io_seconds(reports["twin"])
        if case["expect"] in {rid for rid, _ in res["twin_found"]}:
            res["problems"].append("the fixed twin still has %s" % case["expect"])
        times_file = os.path.join(env["w"], "times.json")
        if os.path.exists(times_file):
            with open(times_file) as f:
                res["times"] = json.load(f)
            judge_times(res)
        else:
            res["twin_note"] = "not timed"
    res["status"] = status_of(case, res)
    return res


def status_of(case, res):
    if case.get("pending"):
        return "PENDING"
    if res["problems"]:
        return "FAIL"
    return "WARN" if res["twin_note"] else "PASS"


# ------------------------------------------------------------- tables


def top_of(res):
    judged = ranked(res["case"], res["found"])
    return judged[0][0] if judged else NONE


def confusion_rows(results):
    """One row per case: a cell per rule (and none). OK = expected and first;
    exp = expected but not first; TOP = first but not expected; x = a
    forbidden finding present; . = another finding present."""
    cols = RULES + [NONE]
    rows = []
    for r in results:
        c = r["case"]
        ids = {rid for rid, _ in r["found"]}
        top = top_of(r)
        cells = []
        for col in cols:
            if r.get("error"):
                cell = "ERR" if col == c["expect"] else ""
            elif col == top and col == c["expect"]:
                cell = "OK"
            elif col == c["expect"]:
                cell = "exp"
            elif col == top:
                cell = "TOP"
            elif col in c.get("forbid", []) and col in ids:
                cell = "x"
            elif col in ids:
                cell = "."
            else:
                cell = ""
            cells.append(cell)
        rows.append((r["name"], cells, r["status"]))
    return cols, rows


def precision_recall(results):
    """Per rule, over the cases (pending ones excluded): a case predicts the
    rule when it is the first finding; a forbidden rule that appears anywhere
    is a false positive too."""
    out = []
    counted = [r for r in results if r["status"] != "PENDING" and not r.get("error")]
    for rule in RULES + [NONE]:
        tp = fp = fn = 0
        for r in counted:
            c, top = r["case"], top_of(r)
            ids = {rid for rid, _ in r["found"]}
            if top == rule and c["expect"] == rule:
                tp += 1
            elif top == rule:
                fp += 1
            elif rule in c.get("forbid", []) and rule in ids:
                fp += 1
            if c["expect"] == rule and top != rule:
                fn += 1
        if tp + fp + fn == 0:
            continue
        prec = tp / (tp + fp) if tp + fp else None
        rec = tp / (tp + fn) if tp + fn else None
        out.append((rule, tp, fp, fn, prec, rec))
    return out


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def text_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def md_table(header, rows):
    esc = lambda x: str(x).replace("|", "\\|")
    out = ["| " + " | ".join(esc(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def result_rows(results):
    rows = []
    for r in results:
        c = r["case"]
        found = ", ".join("%s (%s)" % f for f in r["found"]) or "none"
        note = "; ".join(r["problems"])
        if r.get("first_try"):
            times = r["first_try"].count(" / ") + 1
            note = ("failed %s, passed when run again: %s" % ("once" if times == 1 else "%d times" % times,
                                                              r["first_try"])) + ("; " + note if note else "")
        if c.get("pending"):
            note = ("pending: %s" % c["pending"]) + ("; " + note if note else "; passes now")
        rows.append([r["name"], c["expect"], ", ".join(c.get("forbid", [])) or "-", found, r["status"], note])
    return rows


def twin_rows(results):
    rows = []
    for r in results:
        if r["twin_found"] is None:
            continue
        t = r["times"] or {}
        med = lambda k: "%.2f" % statistics.median(t[k]) if t.get(k) else "n/a"
        gone = "yes" if r["case"]["expect"] not in {rid for rid, _ in r["twin_found"]} else "NO"
        rows.append([r["name"], r["case"]["twin"].get("what", ""), gone, med("case"), med("twin"),
                     fmt_ratio(r["ratio"]), "%.2f" % r["io_s"], "%.2f" % r["twin_io_s"],
                     r["twin_note"] or "faster"])
    return rows


def pr_rows(results):
    f = lambda x: "-" if x is None else "%.2f" % x
    return [[rule, tp, fp, fn, f(p), f(rc)] for rule, tp, fp, fn, p, rc in precision_recall(results)]


RESULT_HEAD = ["case", "expected first", "must not appear", "findings (in order)", "result", "notes"]
TWIN_HEAD = ["case", "fix applied in the twin", "finding gone", "case s (median)", "twin s (median)",
             "twin/case", "case I/O s", "twin I/O s", "time"]
PR_HEAD = ["rule", "TP", "FP", "FN", "precision", "recall"]


def load_note():
    """The machine's load: the jobs' overlap of I/O and compute (and so some
    labels) assumes the CPUs are not oversubscribed."""
    load1 = os.getloadavg()[0]
    ncpu = os.cpu_count() or 1
    note = "load average %.1f on %d CPUs" % (load1, ncpu)
    if load1 > 2 * ncpu:
        note += " (oversubscribed: stall-sensitive cases and twin times are unreliable)"
    return note


def print_report(results, wall):
    cols, rows = confusion_rows(results)
    print("\nConfusion table (case x finding): OK expected and first, exp expected but not first,")
    print("TOP first but not expected, x forbidden and present, . present\n")
    print(text_table(["case"] + cols + ["result"], [[n] + cells + [s] for n, cells, s in rows]))
    print("\nResults\n")
    print(text_table(RESULT_HEAD, result_rows(results)))
    if any(r["twin_found"] is not None for r in results):
        print("\nFixed twins (untraced wall time, alternated rounds)\n")
        print(text_table(TWIN_HEAD, twin_rows(results)))
    print("\nPrecision and recall per rule (first findings; pending cases excluded)\n")
    print(text_table(PR_HEAD, pr_rows(results)))
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("PASS", "WARN", "PENDING", "FAIL")}
    print("\n%d cases: %d pass, %d pass with a timing warning, %d pending, %d fail; %.0f s; %s" %
          (len(results), counts["PASS"], counts["WARN"], counts["PENDING"], counts["FAIL"], wall, load_note()))


def write_docs(path, results, wall, args):
    with open(os.path.join(HERE, "diagnosis.md.in")) as f:
        head = f.read()
    cols, rows = confusion_rows(results)
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("PASS", "WARN", "PENDING", "FAIL")}
    uname = os.uname()
    parts = [head.rstrip("\n"), "",
             "## Results of the last run", "",
             ("Rejudged (`--rejudge`: the recordings of an earlier run, judged by this build's rules) "
              if args.rejudge else "") +
             "Generated by `tools/diagnosis/run.py --write-docs docs/diagnosis.md` on %s (Linux %s, %d CPUs), "
             "%s, %d timing rounds; the whole suite took %.0f s (%s at the end). %d cases: %d pass, %d "
             "pass with a timing warning, %d pending, %d fail." %
             (time.strftime("%Y-%m-%d", time.gmtime()), uname.release, os.cpu_count(),
              "twins run" if not args.no_twins else "twins not run", args.rounds, wall, load_note(),
              len(results), counts["PASS"], counts["WARN"], counts["PENDING"], counts["FAIL"]), "",
             md_table(RESULT_HEAD, result_rows(results)), "",
             "### Confusion table", "",
             "One row per case, one column per rule: **OK** the expected finding came first; **exp** it "
             "was expected first but was not; **TOP** it came first but was not expected; **x** a "
             "finding that must not appear did; **.** another finding that may appear. ERR: the case "
             "did not run.", "",
             md_table(["case"] + cols + ["result"], [[n] + cells + [s] for n, cells, s in rows]), "",
             "### Precision and recall per rule", "",
             "Over the cases that are not pending: a case predicts a rule when the rule is its first "
             "finding; a finding that must not appear counts as a false positive of its rule wherever it "
             "is in the list. `none` is the clean verdict (no finding at all).", "",
             md_table(PR_HEAD, pr_rows(results)), ""]
    if any(r["twin_found"] is not None for r in results):
        parts += ["### Fixed twins: before and after", "",
                  "Each twin applies its case's recommendation. Times are the wall time of the job alone "
                  "(untraced; setup excluded), case and twin alternated, median of the rounds. "
                  "\"not measurably faster\" (twin/case above %.2f, or the rounds overlap) is a warning, "
                  "not a failure: on a shared 2-core VM some fixes save less than the noise." % FASTER_RATIO,
                  "", md_table(TWIN_HEAD, twin_rows(results)), ""]
    with open(path, "w") as f:
        f.write("\n".join(parts))


# --------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iolens", default=os.path.join(SRC, "build", "iolens"))
    ap.add_argument("--workload", default=os.path.join(SRC, "build", "iolens-workload"))
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    ap.add_argument("--workdir", default="/var/tmp/iolens-diagnosis",
                    help="datasets and recordings (on a disk, not tmpfs: cases read through the page cache)")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds of case and twin (default 3)")
    ap.add_argument("--no-twins", action="store_true", help="skip the fixed twins and the timing")
    ap.add_argument("--job-timeout", type=float, default=120)
    ap.add_argument("--retry-failed", action="store_true",
                    help="run a case that failed once more (CI: the machine is shared and timing-sensitive "
                    "cases can lose to load); a pass on the retry is named in its notes, never hidden")
    ap.add_argument("--retries", type=int, default=1,
                    help="with --retry-failed: how many more runs a failed case gets (default 1)")
    ap.add_argument("--write-docs", metavar="PATH", help="write the results into PATH (docs/diagnosis.md)")
    ap.add_argument("--list", action="store_true", help="list the cases and their labels")
    ap.add_argument("--rejudge", action="store_true",
                    help="run nothing: judge the recordings a previous run left in --workdir again, with this "
                    "--iolens's rules (iolens report), and the times it stored")
    args = ap.parse_args()
    args.iolens, args.workload = os.path.abspath(args.iolens), os.path.abspath(args.workload)
    cases = load_cases(args.cases)
    check_rule_ids()
    if args.list:
        for c in cases:
            print("%-28s %-22s %s%s" % (c["name"], c["expect"], c["what"],
                                         "  [pending: %s]" % c["pending"] if c.get("pending") else ""))
        return 0
    if args.case:
        unknown = set(args.case) - {c["name"] for c in cases}
        if unknown:
            raise SystemExit("unknown case(s): %s" % ", ".join(sorted(unknown)))
        cases = [c for c in cases if c["name"] in args.case]
    if os.geteuid() != 0 and not args.rejudge:
        log("diagnosis suite: needs root (iolens record loads BPF)")
        return 77
    for tool in (args.iolens, args.workload):
        if not os.access(tool, os.X_OK):
            raise SystemExit("not executable: %s" % tool)
    os.makedirs(args.workdir, exist_ok=True)
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # the jobs leave no __pycache__ in the source tree
    t0 = time.monotonic()
    results = []
    for c in cases:
        log("== %s" % c["name"])
        r = rejudge_case(args, c) if args.rejudge else run_case(args, c)
        tries = []
        while r["status"] == "FAIL" and args.retry_failed and not args.rejudge and len(tries) < args.retries:
            log("   FAIL (%s): running it once more" % "; ".join(r["problems"]))
            tries.append(r)
            r = run_case(args, c)
            r["seconds"] += tries[-1]["seconds"]  # which holds the tries before it
        if tries and r["status"] != "FAIL":
            r["first_try"] = " / ".join("; ".join(t["problems"]) for t in tries)
        log("   %s in %.1f s%s" % (r["status"], r["seconds"], (": " + "; ".join(r["problems"])) if r["problems"]
                                    else ""))
        results.append(r)
    wall = time.monotonic() - t0
    print_report(results, wall)
    if args.write_docs:
        write_docs(args.write_docs, results, wall, args)
    return 1 if any(r["status"] == "FAIL" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
