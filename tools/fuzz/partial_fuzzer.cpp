// libFuzzer target: report partials (model/report_codec.h), the input that
// `iolens report *.part` reads. The input is a partial (with or without its
// IOLPART1 header: one is added when missing, so that mutations reach the
// CBOR and the report inside). A partial that decodes is merged with a copy
// of itself from another host (model::JobMerger), and both the partial's
// report and the merged one go through the findings and the terminal and
// JSON renderers. Errors are fine; a crash, leak, UB or hang is the finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include <spdlog/spdlog.h>

#include "analysis/findings.h"
#include "model/job_merge.h"
#include "model/report_codec.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

namespace {

void render(iolens::model::Report& r) {
    iolens::analysis::add_findings(r);
    std::ostringstream terminal;
    iolens::report::TerminalOptions t;
    iolens::report::render_terminal(r, terminal, t);
    const std::string json = iolens::report::report_to_json_text(r);
    if (terminal.str().empty() || json.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool quiet = (spdlog::set_level(spdlog::level::off), true);
    (void)quiet;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.compare(0, iolens::model::kPartialMagic.size(), iolens::model::kPartialMagic) != 0)
        bytes.insert(0, iolens::model::kPartialMagic);
    auto report = iolens::model::decode_partial(bytes);
    if (!report) return 0;
    auto other = *report;
    other.capture.hostname += "-b";
    for (auto& k : other.ranks) k.rank += 1'000'000;
    iolens::model::JobMerger merger({/*allow_mixed=*/true});
    if (merger.add("a.part", *report) && merger.add("b.part", std::move(other))) {
        auto merged = merger.finish();
        if (merged) render(*merged);
    }
    render(*report);
    return 0;
}
