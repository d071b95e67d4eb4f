// The HTML view: every string from the recording escaped, every section
// there, the figures' exact values in data-v, nothing fetched. (The browser
// test, tests/html/html_check.py, loads real pages in chromium.)
#include <gtest/gtest.h>

#include <string>

#include "report/html_renderer.h"

using namespace iolens::model;
using iolens::report::html_text;
using iolens::report::report_to_html;

namespace {

TEST(HtmlRender, TextIsEscapedAndPrintable) {
    EXPECT_EQ(html_text("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(html_text("x\x1b[31my"), "x\\x1b[31my");
    EXPECT_EQ(html_text(std::string("bad\xff", 4)), "bad\\xff");
    EXPECT_EQ(html_text("données"), "données");
}

Report hostile_report() {
    Report r;
    r.capture.command = {"python3", "<script>alert(1)</script>"};
    r.capture.duration_ns = 5'000'000'000;
    r.totals[IOLENS_OP_READ].calls = 3;
    r.totals[IOLENS_OP_READ].bytes = 12288;
    r.totals[IOLENS_OP_READ].size_bytes.add(4096, 3);
    r.totals[IOLENS_OP_READ].latency_ns.add(2000, 3);
    FileStats f;
    f.path = "/data/<img src=x onerror=alert(1)>\"'.bin";
    f.ops[IOLENS_OP_READ].bytes = 12288;
    f.ops[IOLENS_OP_READ].calls = 3;
    r.files.push_back(f);
    r.files_total = 1;
    ProcessStats p;
    p.info.pid = 42;
    p.info.cmdline = {"train.py", "</td></tr></table><script>x()</script>"};
    r.processes.push_back(p);
    Finding fd;
    fd.id = "small_reads";
    fd.title = "reads of <4 KiB>";
    fd.evidence.bytes("median_read_bytes", 4096);
    r.findings.push_back(fd);
    RankStats rk;
    rk.rank = 0;
    rk.pids = {42};
    r.ranks.push_back(rk);
    Timeline t;
    t.start_ns = 1;
    t.bin_ns = 1'000'000'000;
    t.bins = 5;
    t.ranks.push_back({0, {0, 12288, 0, 0, 0}, {0, 500, 0, 0, 0}, {0, 100, 0, 0, 0}});
    r.timeline = t;
    return r;
}

TEST(HtmlRender, EverySectionAndNoMarkupFromTheRecording) {
    const std::string h = report_to_html(hostile_report());
    for (const char* id : {"summary", "findings", "timeline", "histograms", "page-cache", "block", "ranks",
                           "files", "processes"})
        EXPECT_NE(h.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
    // The only script is the page's own; the recording's markup is text.
    EXPECT_EQ(h.find("<script>alert"), std::string::npos);
    EXPECT_EQ(h.find("<img"), std::string::npos);
    EXPECT_EQ(h.find("</td></tr></table><script>x"), std::string::npos);
    EXPECT_NE(h.find("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;.bin"), std::string::npos);
    EXPECT_NE(h.find("reads of &lt;4 KiB&gt;"), std::string::npos);
    size_t scripts = 0;
    for (size_t at = h.find("<script"); at != std::string::npos; at = h.find("<script", at + 1)) ++scripts;
    EXPECT_EQ(scripts, 1u);
    // Exact values beside the human ones.
    EXPECT_NE(h.find(R"(data-key="read_bytes")"), std::string::npos);
    EXPECT_NE(h.find(R"(data-v="12288">12.0 KiB)"), std::string::npos);
    EXPECT_NE(h.find(R"(data-rank="0" data-read-bytes="12288" data-io-ns="500" data-critical-ns="100")"),
              std::string::npos);
    EXPECT_NE(h.find(R"(<div class="finding info" data-id="small_reads")"), std::string::npos);
}

TEST(HtmlRender, WithoutTimelineOrProbesSaysSoAndFetchesNothing) {
    Report r;
    const std::string h = report_to_html(r);
    EXPECT_NE(h.find("No timeline"), std::string::npos);
    EXPECT_NE(h.find("no samples"), std::string::npos);
    EXPECT_NE(h.find("Not measured"), std::string::npos);
    // Nothing fetched (the browser test checks the loaded DOM too).
    for (const char* bad : {" src=", " href=", "http://", "https://", "url(", "@import"})
        EXPECT_EQ(h.find(bad), std::string::npos) << bad;
}

}  // namespace
