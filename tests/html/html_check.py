#!/usr/bin/python3
"""`iolens report --html` in a real browser (Debian's chromium, headless).

For each recording (the golden ones, the fio captures, and a synthetic
two-rank job with epoch markers): `iolens report --json J --html H` writes
both reports; the page must fetch nothing (no element with a src or href, no
url() in its style), be 0600,
and chromium's DOM after loading it (--dump-dom, scripts run) must hold every
section with the JSON report's numbers: the summary cards, the findings (ids
in order), the per-rank timeline rows (their bins summed: read bytes, I/O
time, critical I/O time), the histograms' sample counts, the per-epoch hit
ratios, the block devices, and one table row per file, process and rank.
Then a copy with a test script appended clicks the file table's "read"
header in the browser, twice: the rows must come out sorted by read bytes,
descending, then ascending.

    html_check.py IOLENS SYNTH DIR[:DIR...]
    html_check.py --screenshot PNG IOLENS SYNTH   (the docs' screenshot)

Chromium runs as root here, which needs --no-sandbox. Timeouts are generous
(a 2-core VM shared with builds): nothing waits for a fixed time.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHROMIUM_TIMEOUT = 300


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_args(browser, profile):
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile]


def dump_dom(browser, page, profile):
    out = subprocess.run(browser_args(browser, profile) + ["--dump-dom", "file://" + page],
                         capture_output=True, timeout=CHROMIUM_TIMEOUT, check=True)
    return out.stdout.decode("utf-8")


class Dom(html.parser.HTMLParser):
    """Elements with their attributes and text, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []  # [tag, attrs dict, text, parent index chain]
        self.stack = []

    def handle_starttag(self, tag, attrs):
        el = [tag, dict(attrs), "", list(self.stack)]
        self.elements.append(el)
        if tag not in ("meta", "br", "img", "input", "link", "hr", "wbr"):  # HTML's void elements
            self.stack.append(len(self.elements) - 1)

    def handle_startendtag(self, tag, attrs):
        self.elements.append([tag, dict(attrs), "", list(self.stack)])

    def handle_endtag(self, tag):
        if tag not in (self.elements[i][0] for i in self.stack):
            return  # a stray end tag closes nothing
        while self.stack:
            i = self.stack.pop()
            if self.elements[i][0] == tag:
                break

    def handle_data(self, data):
        for i in self.stack:
            self.elements[i][2] += data

    def by_id(self, ident):
        for i, el in enumerate(self.elements):
            if el[1].get("id") == ident:
                return i, el
        raise AssertionError("no element with id " + ident)

    def within(self, root, tag=None, cls=None):
        out = []
        for el in self.elements:
            if root in el[3] and (tag is None or el[0] == tag) and \
                    (cls is None or cls in el[1].get("class", "").split()):
                out.append(el)
        return out


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def close(a, b):
    return abs(float(a) - float(b)) < 1e-5


def check_page(dom, rep, name):
    ids = {el[1].get("id") for el in dom.elements}
    for section in ("summary", "findings", "timeline", "histograms", "page-cache", "block", "ranks", "files",
                    "processes"):
        expect(section in ids, f"{name}: no section {section}")
    root, _ = dom.by_id("summary")
    cards = {}
    for el in dom.within(root, "div", "card"):
        key = el[1]["data-key"]
        v = [x for x in dom.within(dom.elements.index(el), "div", "v")][0][1]["data-v"]
        cards[key] = v
    totals = rep["totals"]
    want = {
        "duration_ns": rep["capture"]["duration_ns"],
        "read_bytes": totals["read"]["bytes"],
        "read_calls": totals["read"]["calls"],
        "write_bytes": totals["write"]["bytes"],
        "write_calls": totals["write"]["calls"],
        "calls": sum(op["calls"] for op in totals.values()),
        "processes": len(rep["processes"]),
        "files_total": rep["files_total"],
        "ranks": len(rep["ranks"]),
        "epochs": len(rep["epochs"]),
        "lost_events": rep["capture"]["lost_events"],
        "read_p50_ns": totals["read"]["latency_ns"]["p50"] if totals["read"]["calls"] else 0,
    }
    for key, value in want.items():
        expect(key in cards, f"{name}: no summary card {key}")
        expect(int(cards[key]) == value, f"{name}: summary {key} is {cards[key]}, the JSON says {value}")
    pc = rep["page_cache"]
    if pc is not None and pc["hit_ratio"] is not None:
        expect(close(cards["hit_ratio"], pc["hit_ratio"]), f"{name}: hit ratio {cards['hit_ratio']} vs {pc}")
    else:
        expect(cards["hit_ratio"] == "", f"{name}: a hit ratio where the JSON has none")

    root, el = dom.by_id("findings")
    got = [f[1]["data-id"] for f in dom.within(root, "div", "finding")]
    expect(got == [f["id"] for f in rep["findings"]], f"{name}: findings {got} vs {rep['findings']}")
    expect(int(el[1]["data-count"]) == len(rep["findings"]), f"{name}: findings count")

    root, _ = dom.by_id("timeline")
    rows = dom.within(root, "g", "rank-row")
    if rep["split"] is not None:
        expect(len(rows) == len(rep["ranks"]), f"{name}: {len(rows)} timeline rows for {len(rep['ranks'])} ranks")
    for row, rank in zip(rows, rep["ranks"]):
        a = row[1]
        expect(int(a["data-rank"]) == rank["rank"], f"{name}: timeline rank {a['data-rank']}")
        expect(int(a["data-read-bytes"]) == rank["ops"]["read"]["bytes"], f"{name}: timeline read bytes of rank "
               f"{rank['rank']}: {a['data-read-bytes']} vs {rank['ops']['read']['bytes']}")
        expect(int(a["data-io-ns"]) == rank["io_time_ns"], f"{name}: timeline I/O time of rank {rank['rank']}")
        expect(int(a["data-critical-ns"]) == rank["critical_io_ns"], f"{name}: timeline critical I/O time")
        epochs = dom.within(dom.elements.index(row), "rect", "epoch")
        expect(len(epochs) == len(rep["epochs"]), f"{name}: {len(epochs)} epoch bands, {len(rep['epochs'])} epochs")

    for ident, op, key in (("hist-read-size", "read", "size_bytes"), ("hist-read-latency", "read", "latency_ns"),
                           ("hist-write-size", "write", "size_bytes"), ("hist-write-latency", "write", "latency_ns")):
        i, el = dom.by_id(ident)
        h = totals[op][key]
        expect(int(el[1]["data-count"]) == h["count"], f"{name}: {ident} count {el[1]['data-count']} vs {h['count']}")
        bars = dom.within(i, "rect", "bar")
        expect(sum(int(b[1]["data-count"]) for b in bars) == h["count"], f"{name}: {ident} bars do not add up")
        want_buckets = {b["lo"]: b["count"] for b in h["buckets"]}
        got_buckets = {int(b[1]["data-lo"]): int(b[1]["data-count"]) for b in bars if int(b[1]["data-count"])}
        expect(got_buckets == want_buckets, f"{name}: {ident} buckets {got_buckets} vs {want_buckets}")

    root, _ = dom.by_id("page-cache")
    if pc is not None and rep["epochs"]:
        bars = dom.within(root, "rect", "epoch-hit")
        expect(len(bars) == len(rep["epochs"]), f"{name}: {len(bars)} epoch hit bars")
        for bar, ep in zip(bars, rep["epochs"]):
            hr = ep["page_cache"]["hit_ratio"] if ep["page_cache"] else None
            expect(int(bar[1]["data-epoch"]) == ep["index"], f"{name}: epoch index")
            if hr is None:
                expect(bar[1]["data-v"] == "", f"{name}: epoch {ep['index']} hit ratio where the JSON has none")
            else:
                expect(close(bar[1]["data-v"], hr), f"{name}: epoch {ep['index']} hit ratio {bar[1]['data-v']} vs {hr}")

    root, _ = dom.by_id("block")
    if rep["block"] is not None:
        devs = rep["block"]["devices"]
        rows = [el for el in dom.within(root, "tr") if "data-device" in el[1]]
        expect([r[1]["data-device"] for r in rows] == [d["name"] for d in devs],
               f"{name}: block devices {[r[1]['data-device'] for r in rows]} vs {[d['name'] for d in devs]}")
        for row, d in zip(rows, devs):
            cells = [c for c in dom.within(dom.elements.index(row), "td")]
            expect(int(cells[1][1]["data-v"]) == d["read"]["requests"], f"{name}: block read requests")
            expect(int(cells[2][1]["data-v"]) == d["read"]["bytes"], f"{name}: block read bytes")
            expect(int(cells[6][1]["data-v"]) == d["write"]["bytes"], f"{name}: block write bytes")

    def table_rows(ident):
        i, _ = dom.by_id(ident)
        tbody = dom.within(i, "tbody")[0]
        return [el for el in dom.within(dom.elements.index(tbody), "tr")]

    frows = table_rows("file-table")
    expect(len(frows) == len(rep["files"]), f"{name}: {len(frows)} file rows, {len(rep['files'])} files")
    for row, f in zip(frows, rep["files"]):
        cells = dom.within(dom.elements.index(row), "td")
        expect(int(cells[1][1]["data-v"]) == f["ops"]["read"]["bytes"], f"{name}: file read bytes of {f['path']}")
        expect(int(cells[3][1]["data-v"]) == f["ops"]["write"]["bytes"], f"{name}: file write bytes")
    prows = table_rows("process-table")
    expect([int(r[1]["data-pid"]) for r in prows] == [p["pid"] for p in rep["processes"]], f"{name}: process rows")
    for row, p in zip(prows, rep["processes"]):
        cells = dom.within(dom.elements.index(row), "td")
        expect(int(cells[2][1]["data-v"]) == p["ops"]["read"]["bytes"], f"{name}: process read bytes")
    rrows = table_rows("rank-table")
    expect([int(r[1]["data-rank"]) for r in rrows] == [r["rank"] for r in rep["ranks"]], f"{name}: rank rows")


# Clicks the file table's "read" header twice (descending, then ascending:
# the rows start in descending order of bytes moved, so only the second click
# shows the sort really reorders them) and writes the column after each.
SORT_PROBE = """<script>
(function(){var t=document.getElementById('file-table');
function probe(id){t.tHead.rows[0].cells[1].click();var p=document.createElement('pre');p.id=id;
p.textContent=Array.from(t.tBodies[0].rows).map(function(r){return r.cells[1].dataset.v;}).join(',');
document.body.appendChild(p);}
probe('sort-desc');probe('sort-asc');})();
</script></body>"""


def check_sort(browser, page, work, name, profile):
    text = open(page, encoding="utf-8").read()
    probe = os.path.join(work, name + "-sort.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", SORT_PROBE, 1))
    dom = Dom()
    dom.feed(dump_dom(browser, probe, profile))
    for ident, reverse in (("sort-desc", True), ("sort-asc", False)):
        _, el = dom.by_id(ident)
        values = [int(v) for v in el[2].split(",") if v]
        expect(len(values) == len(dom.within(dom.by_id("file-table")[0], "tr")) - 1, f"{name}: rows lost in sorting")
        expect(values == sorted(values, reverse=reverse),
               f"{name}: the file table did not sort by read bytes ({ident}): {values[:20]}")


def no_fetch(dom, page, name):
    """Nothing in the loaded page can fetch: no element with a src, href or
    xlink:href, no url() or @import in its styles; and the file is 0600."""
    for tag, attrs, text, _ in dom.elements:
        for a in ("src", "href", "xlink:href", "srcset", "action", "data"):
            expect(a not in attrs, f"{name}: <{tag}> has {a}={attrs.get(a)!r}: the page must fetch nothing")
        if tag == "style":
            for bad in ("url(", "@import"):
                expect(bad not in text, f"{name}: the style holds {bad}")
    expect(os.stat(page).st_mode & 0o777 == 0o600, f"{name}: the page is not 0600")


def recordings(dirs, synth, work):
    out = []
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".iolens"):
                out.append(os.path.join(d, f))
    rec = os.path.join(work, "synth-2ranks.iolens")
    subprocess.run([synth, "-o", rec, "--events", "60k", "--files", "400", "--ranks", "2", "--epochs", "3",
                    "--workers", "2", "--markers"], check=True, stdout=subprocess.DEVNULL)
    out.append(rec)
    return out


def report(iolens, rec, work, extra=()):
    name = os.path.basename(rec)[:-len(".iolens")]
    j = os.path.join(work, name + ".json")
    h = os.path.join(work, name + ".html")
    r = subprocess.run([iolens, "report", "--color", "never", "--json", j, "--html", h, *extra, rec],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    expect(r.returncode in (0, 3), f"{name}: iolens report exited {r.returncode}: {r.stderr.decode()}")
    return name, j, h


def main():
    if sys.argv[1] == "--screenshot":
        png, iolens, synth = sys.argv[2:5]
        browser = chromium()
        with tempfile.TemporaryDirectory() as work:
            rec = recordings([], synth, work)[0]
            _, _, h = report(iolens, rec, work, ["--max-files", "40"])
            subprocess.run(browser_args(browser, os.path.join(work, "profile")) +
                           ["--hide-scrollbars", "--window-size=1280,2000", "--screenshot=" + os.path.abspath(png),
                            "file://" + h], check=True, timeout=CHROMIUM_TIMEOUT, capture_output=True)
        return 0
    iolens, synth, dirs = sys.argv[1], sys.argv[2], sys.argv[3].split(":")
    browser = chromium()
    if not browser:
        print("html_check: no chromium (Debian's chromium: tools/install-deps.sh)", file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as work:
        profile = os.path.join(work, "profile")
        for rec in recordings(dirs, synth, work):
            name, j, h = report(iolens, rec, work)
            rep = json.load(open(j))
            dom = Dom()
            dom.feed(dump_dom(browser, h, profile))
            no_fetch(dom, h, name)
            check_page(dom, rep, name)
            if rep["files"]:
                check_sort(browser, h, work, name, profile)
            print(f"{name}: {os.path.getsize(h)} bytes, every section matches the JSON report")
        # An existing page is not replaced without -f (exit 2), and is with it.
        h = os.path.join(work, "exists.html")
        with open(h, "w") as f:
            f.write("keep")
        rec = os.path.join(dirs[0], sorted(os.listdir(dirs[0]))[0])
        r = subprocess.run([iolens, "report", "--html", h, rec], capture_output=True, timeout=600)
        expect(r.returncode == 2 and open(h).read() == "keep", f"an existing --html file was replaced: {r}")
        r = subprocess.run([iolens, "report", "-f", "--html", h, rec], capture_output=True, timeout=600)
        expect(r.returncode in (0, 3) and open(h).read().startswith("<!DOCTYPE html>"), "-f did not replace it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
