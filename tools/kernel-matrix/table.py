#!/usr/bin/env python3
"""Turns the kernel matrix's per-kernel results into one table.

usage: table.py RESULTS_DIR NAME[=LABEL] ... [--doc FILE --readme FILE --command CMD --seconds N]

RESULTS_DIR/NAME/ holds what one kernel produced: selftest.json (the
`iolens self-test --json` verdict), check.txt, and status (one line: "ok" or
why the run did not complete). Prints the markdown table on stdout; with
--doc, writes docs/kernel-matrix.md; with --readme, replaces the table between
the kernel-matrix markers in README.md.
"""
import argparse
import datetime
import json
import os
import sys

FAMILIES = ["process", "syscalls", "pagecache", "blocking", "block", "io_uring"]
BEGIN = "<!-- kernel-matrix-table:begin -->"
END = "<!-- kernel-matrix-table:end -->"


HINT = ": run `iolens check` to see what this kernel lacks"


def cell(text):
    # The hint is for a terminal user; in the table it is noise.
    return str(text).replace(HINT, "").replace("|", "\\|").replace("\n", " ")


def hook_kind(hook):
    """'tp_btf/sys_enter,tp_btf/sys_exit [direct]' -> 'tp_btf, direct build'."""
    build = ""
    if hook.endswith("]") and " [" in hook:
        hook, build = hook[:-1].rsplit(" [", 1)
        build = ", " + build + " build"
    kinds = sorted({h.split("/")[0] for h in hook.split(",") if h})
    return ("+".join(kinds) or "?") + build


def load(results, name):
    d = os.path.join(results, name)
    r = {"name": name}
    try:
        with open(os.path.join(d, "status")) as f:
            r["status"] = f.read().strip()
    except OSError:
        r["status"] = "no result"
    for key, fname in (("selftest", "selftest.json"), ("raw", "selftest-raw.json")):
        try:
            with open(os.path.join(d, fname)) as f:
                r[key] = json.load(f)
        except (OSError, ValueError):
            r[key] = None
    return r


def family_cell(r, family):
    st = r["selftest"]
    if st is None:
        return "no result"
    for p in st.get("probes", []):
        if p["family"] == family:
            if p["attached"]:
                degraded = [d for d in p["reason"].split("; ")[1:] if d.startswith("no ")]
                extra = (" (" + "; ".join(degraded) + ")") if degraded else ""
                return hook_kind(p["hook"]) + extra
            return "unavailable: " + p["reason"]
    # No attach statuses: the recording never started; say what the plan was.
    for p in st.get("plan", []):
        if p["family"] == family:
            if p["available"]:
                return "planned " + hook_kind(p["hook"]) + ", not loaded (record failed)"
            return "unavailable: " + p["reason"]
    return "?"


def verdict_cell(r, key="selftest"):
    if r["status"] != "ok":
        return "**not run**: " + r["status"]
    st = r[key]
    if st is None:
        return "**no verdict** (selftest.json missing)"
    c = st["counts"]
    word = "**PASS**" if st["verdict"] == "pass" else "**FAIL**"
    text = "%s (%d passed, %d failed, %d unavailable)" % (word, c["pass"], c["fail"], c["unavailable"])
    if st.get("record_error"):
        text += ": " + st["record_error"]
    else:
        failed = ["%s (expected %s, got %s%s)" % (c["name"], c["expected"], c["got"],
                                                 ": " + c["reason"] if c["reason"] else "")
                  for c in st["checks"] if c["verdict"] == "FAIL"]
        if failed:
            text += ": " + "; ".join(failed)
    return text


def table(rows, labels):
    out = ["| | " + " | ".join(labels) + " |", "|---" * (len(rows) + 1) + "|"]
    out.append("| kernel | " + " | ".join(cell(r["selftest"]["kernel"] if r["selftest"] else "?") for r in rows) + " |")
    for fam in FAMILIES:
        out.append("| " + fam + " | " + " | ".join(cell(family_cell(r, fam)) for r in rows) + " |")
    out.append("| self-test | " + " | ".join(cell(verdict_cell(r)) for r in rows) + " |")
    out.append("| self-test, raw_tp forced | " + " | ".join(cell(verdict_cell(r, "raw")) for r in rows) + " |")
    return "\n".join(out)


def failed_checks(rows, labels):
    lines = []
    runs = (("selftest", ""), ("raw", " (raw_tp forced)"))
    for (r, label), (key, run) in ((rl, k) for rl in zip(rows, labels) for k in runs):
        st = r[key]
        if not st:
            continue
        for c in st["checks"]:
            if c["verdict"] == "PASS":
                continue
            got = (" (expected %s, got %s)" % (c["expected"], c["got"])) if c["expected"] else ""
            why = (": " + c["reason"]) if c["reason"] else ""
            lines.append("- %s%s: %s: %s%s%s" % (label, run, c["name"], c["verdict"], got, why))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--doc")
    ap.add_argument("--readme")
    ap.add_argument("--command", default="tools/kernel-matrix/run")
    ap.add_argument("--seconds", type=int)
    a = ap.parse_args()
    names = [k.split("=", 1)[0] for k in a.kernels]
    labels = [k.split("=", 1)[-1] for k in a.kernels]
    rows = [load(a.results, n) for n in names]
    t = table(rows, labels)
    print(t)
    notes = failed_checks(rows, labels)
    if notes:
        print("\nchecks that did not pass:")
        print("\n".join(notes))
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    took = (", %d s" % a.seconds) if a.seconds is not None else ""
    stamp = "_Last run: %s%s, `%s`._" % (when, took, a.command)
    if a.doc:
        body = stamp + "\n\n" + t + "\n"
        if notes:
            body += "\nChecks that did not pass (UNAVAILABLE is not a failure):\n\n" + "\n".join(notes) + "\n"
        replace_block(a.doc, body)
    if a.readme:
        replace_block(a.readme, stamp + " Details: [docs/kernel-matrix.md](docs/kernel-matrix.md).\n\n" + t + "\n")


def replace_block(path, body):
    """Replaces what lies between the kernel-matrix markers in path."""
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit("table.py: %s has no %s ... %s markers" % (path, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path + ".tmp", "w") as f:
        f.write(head + BEGIN + "\n" + body + END + tail)
    os.replace(path + ".tmp", path)

if __name__ == "__main__":
    main()
