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
                       {"severity", model::severity_name(f.severity)},
                       {"title", f.title},
                       {"evidence", f.evidence.to_json()},
                       {"recommendation", f.recommendation}});
    return out;
}

namespace detail {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

uint64_t as_u64(const json& v) {
    return v.is_number_unsigned() || v.get<int64_t>() >= 0 ? v.get<uint64_t>() : 0;
}

}  // namespace

// Evidence keys carry their unit as a suffix (docs/findings.md): the label
// leaves it out ("read time 12 ms", not "read time ns 12 ms").
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

std::string value_of(const model::EvidenceValue& e) {
    const json& v = e.value;
    if (v.is_null()) return "n/a";
    if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_number()) return "";
    const bool negative = v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0;
    switch (e.unit) {
        case model::Unit::Bytes:
            return negative ? std::to_string(v.get<int64_t>()) : human_bytes(as_u64(v));
        case model::Unit::Nanoseconds:
            return negative ? std::to_string(v.get<int64_t>()) : human_ns(as_u64(v));
        case model::Unit::Count:
            return negative ? std::to_string(v.get<int64_t>()) : human_count(as_u64(v));
        case model::Unit::Identifier:
            return std::to_string(v.get<int64_t>());
        case model::Unit::Share:
            return percent(v.get<double>());
        case model::Unit::Ratio:
            return fmt::format("{:.2f}x", v.get<double>());
        case model::Unit::Number:
        case model::Unit::Text:
        case model::Unit::Details:
            break;
    }
    return plain_number(v.get<double>());
}

namespace {

const char* severity_color(model::Severity severity) {
    if (severity == model::Severity::High) return kAlert;
    if (severity == model::Severity::Warn) return kWarn;
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
        std::string tag = model::severity_name(f.severity);
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
        for (const auto& [key, v] : f.evidence.items()) {
            if (v.unit == model::Unit::Details || v.value.is_structured()) {
                nested = true;
                continue;
            }
            evidence += (evidence.empty() ? "" : ", ") + label_of(key) + " " + value_of(v);
        }
        if (nested)
            evidence += evidence.empty() ? "details in the JSON report" : "; details in the JSON report";
        if (!evidence.empty()) print_lines(c, wrap(evidence, c.width, indent + "evidence: ", indent));
        if (!f.recommendation.empty())
            print_lines(c, wrap(f.recommendation, c.width, indent + "fix: ", indent));
    }
}

}  // namespace detail

}  // namespace iolens::report
