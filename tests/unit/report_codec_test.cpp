// model/report_codec.h: a report partial stores a report whole (issue #16).
#include <gtest/gtest.h>

#include "analysis/findings.h"
#include "analysis_fixtures.h"
#include "model/job_merge.h"
#include "model/report_codec.h"
#include "report/json_renderer.h"

namespace iolens::model {
namespace {

using namespace iolens::test;

// A report with every kind of table filled: ranks, epochs, files, devices,
// histograms dense and sparse, a timeline.
Report full_report() {
    Report r = clean_report();
    r.capture.hostname = "node-a";
    r.capture.job_id = "42";
    for (uint64_t v = 1; v < 40'000; v += 3) r.totals[IOLENS_OP_READ].latency_ns.add(v * 97);  // dense
    BlockDevice d;
    d.dev = (8u << 20) | 1;
    d.name = "vda";
    d.read.requests = 10;
    d.read.bytes = 10 * kMiB;
    d.read.latency_ns.add(100'000, 10);
    r.block_devices.push_back(d);
    Timeline tl;
    tl.start_ns = r.capture.start_mono_ns;
    tl.bin_ns = kS;
    tl.bins = 2;
    tl.ranks.push_back({0, {1, 2}, {3, 4}, {1, 2}});
    r.timeline = tl;
    r.limits.push_back("a limit");
    return r;
}

std::string json_without_findings(Report r) {
    r.findings.clear();
    return report::report_to_json_text(r);
}

TEST(ReportCodec, RoundTripsEveryTable) {
    const Report r = full_report();
    const std::string bytes = encode_partial(r);
    ASSERT_EQ(bytes.substr(0, 8), "IOLPART1");
    auto back = decode_partial(bytes);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(json_without_findings(*back), json_without_findings(r));
    EXPECT_EQ(back->totals[IOLENS_OP_READ].latency_ns, r.totals[IOLENS_OP_READ].latency_ns);
    EXPECT_EQ(back->block_devices.at(0).read.latency_ns, r.block_devices.at(0).read.latency_ns);
    ASSERT_TRUE(back->timeline);
    EXPECT_EQ(back->timeline->ranks.at(0).io_ns, (std::vector<uint64_t>{3, 4}));
    // The findings are run again on what it is merged into.
    EXPECT_TRUE(back->findings.empty());
    EXPECT_EQ(analysis::analyze(*back).size(), analysis::analyze(r).size());
}

// Partials merge as the reports they store do.
TEST(ReportCodec, PartialsMergeAsTheirReports) {
    auto b = full_report();
    b.capture.hostname = "node-b";
    b.capture.start_mono_ns += 1000 * kS;
    b.capture.anchor_start_monotonic_ns = b.capture.start_mono_ns;
    for (auto& k : b.ranks) k.rank += 2;
    for (auto& e : b.epochs)
        for (auto& er : e.ranks) er.rank += 2;
    auto a = full_report();
    a.capture.anchor_start_monotonic_ns = a.capture.start_mono_ns;
    std::vector<std::pair<std::string, Report>> direct{{"a", a}, {"b", b}}, via;
    via.emplace_back("a", *decode_partial(encode_partial(a)));
    via.emplace_back("b", *decode_partial(encode_partial(b)));
    auto m1 = merge_reports(std::move(direct));
    auto m2 = merge_reports(std::move(via));
    ASSERT_TRUE(m1 && m2);
    EXPECT_EQ(json_without_findings(*m2), json_without_findings(*m1));
}

TEST(ReportCodec, DamagedPartialsAreErrorsNotCrashes) {
    const std::string bytes = encode_partial(full_report());
    EXPECT_FALSE(decode_partial("not a partial"));
    EXPECT_FALSE(decode_partial("IOLPART1"));
    // Every truncation is an error.
    for (size_t n = 8; n < bytes.size(); n += std::max<size_t>(1, bytes.size() / 97))
        EXPECT_FALSE(decode_partial(std::string_view(bytes).substr(0, n))) << n;
    // Flipped bytes: an error or a report, never a crash.
    for (size_t i = 8; i < bytes.size(); i += std::max<size_t>(1, bytes.size() / 211)) {
        std::string b = bytes;
        b[i] = static_cast<char>(b[i] ^ 0x5a);
        (void)decode_partial(b);
    }
    // Another version is named.
    nlohmann::json j = {{"version", 99}, {"report", nlohmann::json::object()}};
    std::string other(kPartialMagic);
    nlohmann::json::to_cbor(j, other);
    const auto r = decode_partial(other);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("version 99"), std::string::npos) << r.error().message;
}

std::string partial_of(const nlohmann::json& j) {
    std::string out(kPartialMagic);
    nlohmann::json::to_cbor(j, out);
    return out;
}

// Found by review: 100,000 nested one-element arrays took the stack of
// nlohmann's recursive reader. The nesting is bounded before it recurses.
TEST(ReportCodec, DeepNestingIsAnErrorNotAStackOverflow) {
    std::string bytes(kPartialMagic);
    bytes += "\xa2\x67version\x01\x66report";  // {"version": 1, "report": [[[[...
    bytes.append(200'000, '\x81');
    bytes += '\x00';
    const auto r = decode_partial(bytes);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("nested"), std::string::npos) << r.error().message;
}

// The HTML report indexes the timeline by rank and bin: a timeline that
// does not fit its report is refused, not rendered out of bounds.
TEST(ReportCodec, TimelinesThatDoNotFitTheirReportAreRefused) {
    auto r = full_report();
    r.timeline->ranks.resize(r.ranks.size() + 1, r.timeline->ranks.front());
    EXPECT_FALSE(decode_partial(encode_partial(r)));
    r = full_report();
    r.timeline->bins = 3;  // rows of 2
    EXPECT_FALSE(decode_partial(encode_partial(r)));
    r = full_report();
    r.timeline->bin_ns = 0;
    EXPECT_FALSE(decode_partial(encode_partial(r)));
}

// One byte ({}) per FileStats of 3.5 KB: a crafted partial must not take
// the machine's memory.
TEST(ReportCodec, TablesTooLargeForAnyRecordingAreRefused) {
    nlohmann::json files = nlohmann::json::array();
    for (int i = 0; i < 1'300'000; ++i) files.push_back(nlohmann::json::object());
    const auto r = decode_partial(partial_of({{"version", 1}, {"report", {{"files", std::move(files)}}}}));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("4 GiB"), std::string::npos) << r.error().message;
}

TEST(ReportCodec, HistogramStatesAreValidated) {
    Histogram h;
    for (uint64_t v : {1, 5, 900, 70'000}) h.add(v);
    auto s = h.state();
    auto back = Histogram::from_state(s);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, h);
    auto bad = s;
    bad.count += 1;  // counts do not add up
    EXPECT_FALSE(Histogram::from_state(bad));
    bad = s;
    bad.fine.back().first = Histogram::kFine;  // out of range
    EXPECT_FALSE(Histogram::from_state(bad));
    bad = s;
    std::swap(bad.fine.front(), bad.fine.back());  // out of order
    EXPECT_FALSE(Histogram::from_state(bad));
    EXPECT_TRUE(Histogram::from_state({}));
}

}  // namespace
}  // namespace iolens::model
