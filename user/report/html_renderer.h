#pragma once
// The HTML view of a Report (iolens report --html FILE): one self-contained
// page (inline CSS, SVG and a few lines of JavaScript; nothing fetched at view
// time) with the summary and findings on top, a per-rank timeline
// (Report::timeline), read-size and latency histograms, the page-cache hit
// ratio per epoch, block latency per device, and the files, processes and
// ranks as sortable tables. Formatting only: every figure is the model's.
//
// Every figure a test may check carries its exact value in a data-v
// attribute beside the human text (docs/html-report.md lists them); every
// string from the recording is made printable() and HTML-escaped.
#include <string>
#include <string_view>

#include "model/report.h"

namespace iolens::report {

// Bins of the timeline the HTML report asks the model for
// (model::BuilderOptions::timeline_bins).
inline constexpr size_t kHtmlTimelineBins = 200;

std::string report_to_html(const model::Report& report);

// s made printable (util/text.h) and escaped for HTML text and attribute values.
std::string html_text(std::string_view s);

}  // namespace iolens::report
