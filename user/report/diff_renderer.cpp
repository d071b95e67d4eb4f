#include "report/diff_renderer.h"

#include <fmt/format.h>

#include <cmath>

#include "report/text_format.h"

namespace iolens::report {

namespace {

using analysis::Better;
using analysis::DiffRow;

std::string value_text(const std::optional<double>& v, const std::string& unit) {
    if (!v) return "-";
    const double x = *v;
    const auto u = static_cast<uint64_t>(x < 0 ? 0 : std::llround(x));
    if (unit == "ns") return human_ns(u);
    if (unit == "bytes") return human_bytes(u);
    if (unit == "bytes/s") return human_bytes(u) + "/s";
    if (unit == "share") return fmt::format("{:.1f}%", x * 100);
    return human_count(u);
}

std::string change_text(const DiffRow& r) {
    if (!r.a || !r.b || *r.a == *r.b) return "";
    if (r.unit == "share") return fmt::format("{:+.1f} pt", (*r.b - *r.a) * 100);
    if (!r.change) return *r.a == *r.b ? "" : "new";
    return fmt::format("{:+.1f}%", *r.change * 100);
}

std::string table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> width;
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i) {
            if (width.size() <= i) width.push_back(0);
            width[i] = std::max(width[i], display_width(r[i]));
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (size_t i = 0; i < r.size(); ++i) {
            const bool last = i + 1 == r.size();
            // Names left, figures right.
            line +=
                i == 0 ? r[i] + std::string(width[i] - display_width(r[i]), ' ') : pad_left(r[i], width[i]);
            if (!last) line += "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string histogram_text(const analysis::DiffHistogram& h) {
    std::vector<std::vector<std::string>> rows{{"  " + h.name, "A", "B"}};
    const auto bound = [&](uint64_t v) { return h.unit == "ns" ? human_ns(v) : human_bytes(v); };
    for (const auto& b : h.buckets)
        rows.push_back(
            {fmt::format("    [{}, {})", bound(b.lo), bound(b.hi)), human_count(b.a), human_count(b.b)});
    std::string s = table(rows);
    s += fmt::format("    p50 {} -> {}, p99 {} -> {} ({} -> {} calls)\n", bound(h.p50_a), bound(h.p50_b),
                     bound(h.p99_a), bound(h.p99_b), human_count(h.count_a), human_count(h.count_b));
    return s;
}

std::string list_text(const std::vector<std::string>& items, uint64_t total) {
    std::string s;
    for (const auto& i : items) s += "    " + printable(i) + "\n";
    if (total > items.size()) s += fmt::format("    ... and {} more\n", human_count(total - items.size()));
    return s;
}

}  // namespace

std::string diff_to_text(const analysis::ReportDiff& d) {
    std::string s = fmt::format("iolens diff: A = {}, B = {}\n", printable(d.a_label), printable(d.b_label));
    s += d.headline + "\n";
    for (const auto& n : d.notes) s += "note: " + printable(n) + "\n";
    std::string section;
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : d.rows) {
        if (r.section != section) {
            section = r.section;
            rows.push_back({"", "", "", "", ""});
            rows.push_back({section, "A", "B", "change", ""});
        }
        rows.push_back({"  " + r.name, value_text(r.a, r.unit), value_text(r.b, r.unit), change_text(r),
                        r.verdict == "same" ? "" : r.verdict});
    }
    s += table(rows);
    if (!d.histograms.empty()) s += "\ndistributions\n";
    for (const auto& h : d.histograms) s += histogram_text(h);
    s += fmt::format("\nfiles: {} in A, {} in B\n", human_count(d.files_a), human_count(d.files_b));
    if (d.files_added_total)
        s += fmt::format("  data files only in B ({}):\n", human_count(d.files_added_total));
    s += list_text(d.files_added, d.files_added_total);
    if (d.files_gone_total)
        s += fmt::format("  data files only in A ({}):\n", human_count(d.files_gone_total));
    s += list_text(d.files_gone, d.files_gone_total);
    s += "\nfindings\n";
    if (d.findings.empty()) s += "  none in either run\n";
    std::vector<std::vector<std::string>> fr;
    for (const auto& f : d.findings) {
        std::string sev = f.status == "resolved"         ? f.severity_a
                          : f.status == "new"            ? f.severity_b
                          : f.severity_a == f.severity_b ? f.severity_b
                                                         : f.severity_a + " -> " + f.severity_b;
        fr.push_back({"  " + f.status, f.id, sev, printable(f.title)});
    }
    if (!fr.empty()) {
        // Left-aligned columns: the title is text.
        std::vector<size_t> w(3, 0);
        for (const auto& r : fr)
            for (size_t i = 0; i < 3; ++i) w[i] = std::max(w[i], display_width(r[i]));
        for (const auto& r : fr) {
            std::string line;
            for (size_t i = 0; i < 3; ++i) line += r[i] + std::string(w[i] - display_width(r[i]) + 2, ' ');
            s += line + r[3] + "\n";
        }
    }
    return s;
}

nlohmann::json diff_to_json(const analysis::ReportDiff& d) {
    using nlohmann::json;
    const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json rows = json::array();
    for (const auto& r : d.rows)
        rows.push_back({{"section", r.section},
                        {"name", r.name},
                        {"unit", r.unit},
                        {"a", opt(r.a)},
                        {"b", opt(r.b)},
                        {"better", r.better == Better::Lower    ? "lower"
                                   : r.better == Better::Higher ? "higher"
                                                                : "neither"},
                        {"change", opt(r.change)},
                        {"verdict", r.verdict}});
    json hists = json::array();
    for (const auto& h : d.histograms) {
        json buckets = json::array();
        for (const auto& b : h.buckets)
            buckets.push_back({{"lo", b.lo}, {"hi", b.hi}, {"a", b.a}, {"b", b.b}});
        hists.push_back({{"name", h.name},
                         {"unit", h.unit},
                         {"buckets", buckets},
                         {"count", {{"a", h.count_a}, {"b", h.count_b}}},
                         {"p50", {{"a", h.p50_a}, {"b", h.p50_b}}},
                         {"p99", {{"a", h.p99_a}, {"b", h.p99_b}}}});
    }
    json findings = json::array();
    for (const auto& f : d.findings)
        findings.push_back({{"id", f.id},
                            {"status", f.status},
                            {"severity_a", f.severity_a.empty() ? json(nullptr) : json(f.severity_a)},
                            {"severity_b", f.severity_b.empty() ? json(nullptr) : json(f.severity_b)},
                            {"title", f.title}});
    return {{"schema", kDiffSchema},
            {"version", kDiffVersion},
            {"a", d.a_label},
            {"b", d.b_label},
            {"headline", d.headline},
            {"notes", d.notes},
            {"noise", d.noise},
            {"rows", rows},
            {"histograms", hists},
            {"files",
             {{"a", d.files_a},
              {"b", d.files_b},
              {"only_in_b", d.files_added},
              {"only_in_b_total", d.files_added_total},
              {"only_in_a", d.files_gone},
              {"only_in_a_total", d.files_gone_total}}},
            {"findings", findings}};
}

}  // namespace iolens::report
