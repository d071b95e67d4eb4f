#include "report/findings_renderer.h"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <string_view>

#include "report/text_format.h"

namespace iolens::report {

using nlohmann::json;

json findings_to_json(const std::vector<model::Finding>& findings) {
    json out = json::array();
    for (const auto& f : findings)
        out.push_back({{"id", f.id},
                       {"severity", f.severity},
                       {"title", f.title},
                       {"evidence", f.evidence.is_null() ? json::object() : f.evidence},
                       {"recommendation", f.recommendation}});
    return out;
}

namespace detail {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Identifiers (rank 3, pid 1234, epoch 2) print as plain integers.
bool is_identifier(std::string_view key) {
    return key == "pid" || ends_with(key, "rank") || ends_with(key, "epoch") ||
           ends_with(key, "_index");
}

// Evidence keys carry their unit as a suffix (docs/findings.md):
// *_ns, *_bytes, *_share / *hit_ratio (fractions), *_max_over_mean (ratios).
std::string label_of(std::string_view key) {
    for (std::string_view unit : {"_ns", "_bytes"})
        if (ends_with(key, unit) && key.size() > unit.size()) {
            key.remove_suffix(unit.size());
            break;
        }
    std::string label(key);
    for (char& ch : label)
        if (ch == '_') ch = ' ';
    return label;
}

std::string value_of(std::string_view key, const json& v) {
    if (v.is_null()) return "n/a";
    if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() || v.get<int64_t>() >= 0) {
            const uint64_t u = v.get<uint64_t>();
            if (ends_with(key, "_ns")) return human_ns(u);
            if (ends_with(key, "_bytes")) return human_bytes(u);
            if (is_identifier(key)) return std::to_string(u);
            return human_count(u);
        }
        return std::to_string(v.get<int64_t>());
    }
    const double d = v.get<double>();
    if (ends_with(key, "_share") || ends_with(key, "hit_ratio")) return percent(d);
    if (ends_with(key, "_max_over_mean")) return fmt::format("{:.2f}x", d);
    return fmt::format("{:.3g}", d);
}

const char* severity_color(const std::string& severity) {
    if (severity == "high") return kAlert;
    if (severity == "warn") return kWarn;
    return nullptr;
}

}  // namespace

void findings_section(Ctx& c, const model::Report& r) {
    if (r.findings.empty()) {
        section_title(c, "Findings");
        c.out << "  no findings: no rule's threshold was crossed (docs/findings.md)\n";
        return;
    }
    section_title(c, "Findings", fmt::format("({}, most severe first)", r.findings.size()));
    const std::string indent(9, ' ');  // under the title, past "  [HIGH] "
    for (const auto& f : r.findings) {
        std::string tag = f.severity;
        for (char& ch : tag) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        tag = "[" + tag + "]";
        // The tag is ASCII and at most 6 columns: pad to 7 to align titles.
        const std::string first = "  " + pad_right(tag, 7);
        auto title = wrap(f.id + ": " + f.title, c.width, first, indent);
        if (const char* sgr = severity_color(f.severity); sgr && !title.empty())
            title[0] = "  " + c.paint(sgr, pad_right(tag, 6)) + title[0].substr(8);
        print_lines(c, title);

        std::string evidence;
        bool nested = false;
        if (f.evidence.is_object()) {
            for (const auto& [key, v] : f.evidence.items()) {
                if (v.is_structured()) {
                    nested = true;
                    continue;
                }
                evidence += (evidence.empty() ? "" : ", ") + label_of(key) + " " + value_of(key, v);
            }
        }
        if (nested) evidence += evidence.empty() ? "details in the JSON report" : "; details in the JSON report";
        if (!evidence.empty()) print_lines(c, wrap(evidence, c.width, indent + "evidence: ", indent));
        if (!f.recommendation.empty())
            print_lines(c, wrap(f.recommendation, c.width, indent + "fix: ", indent));
    }
}

}  // namespace detail

}  // namespace iolens::report
