#pragma once
// A finding of the rule engine (user/analysis/) as the model carries it: its
// severity (a closed vocabulary, named once here) and its evidence, each
// figure with its unit, so that a renderer formats "read_time_ns" as a time
// because the rule said it is one, never by guessing from the key.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace iolens::model {

// Most severe first; the order findings are listed in.
enum class Severity { High = 0, Warn = 1, Info = 2 };
// "high", "warn", "info": the JSON values and the terminal's tags.
const char* severity_name(Severity s);
std::optional<Severity> severity_from_name(std::string_view name);

// What an evidence figure is, which decides how it is shown.
enum class Unit {
    Count,        // a number of things: "1,234"
    Bytes,        // "12.3 MiB"
    Nanoseconds,  // "850 ms"
    Share,        // a fraction shown as a percentage: 0.25 -> "25.0%"
    Ratio,        // a multiple: 1.5 -> "1.50x"
    Identifier,   // a pid, rank or epoch number: plain digits
    Number,       // any other real number
    Text,         // a string (a path, a metric's name)
    Details,      // an array or object: only in the JSON report
};

struct EvidenceValue {
    Unit unit = Unit::Count;
    nlohmann::json value;  // null when the figure is unknown (not measured)
};

// The numbers that triggered a finding, by key (keys follow docs/findings.md:
// *_ns, *_bytes, *_share, ...). Kept in key order, as the JSON object is.
class Evidence {
public:
    Evidence& count(const std::string& key, uint64_t v) { return put(key, Unit::Count, v); }
    Evidence& bytes(const std::string& key, uint64_t v) { return put(key, Unit::Bytes, v); }
    Evidence& ns(const std::string& key, uint64_t v) { return put(key, Unit::Nanoseconds, v); }
    Evidence& share(const std::string& key, double v) { return put(key, Unit::Share, v); }
    Evidence& ratio(const std::string& key, double v) { return put(key, Unit::Ratio, v); }
    Evidence& id(const std::string& key, int64_t v) { return put(key, Unit::Identifier, v); }
    Evidence& number(const std::string& key, double v) { return put(key, Unit::Number, v); }
    Evidence& text(const std::string& key, const std::string& v) { return put(key, Unit::Text, v); }
    Evidence& details(const std::string& key, nlohmann::json v) {
        return put(key, Unit::Details, std::move(v));
    }
    // A figure that may be unknown: null in JSON, "n/a" in the terminal.
    template <typename T>
    Evidence& maybe(const std::string& key, Unit unit, const std::optional<T>& v) {
        return put(key, unit, v ? nlohmann::json(*v) : nlohmann::json(nullptr));
    }

    const std::map<std::string, EvidenceValue>& items() const { return items_; }
    bool empty() const { return items_.empty(); }
    bool contains(const std::string& key) const { return items_.count(key) != 0; }
    // The value of key, or null.
    const nlohmann::json& operator[](const std::string& key) const;
    // {key: value, ...} as the JSON report has it.
    nlohmann::json to_json() const;

private:
    Evidence& put(const std::string& key, Unit unit, nlohmann::json v) {
        items_[key] = EvidenceValue{unit, std::move(v)};
        return *this;
    }
    std::map<std::string, EvidenceValue> items_;
};

// One bottleneck the rule engine found (user/analysis/).
struct Finding {
    std::string id;  // small_reads, random_access, io_stall, ...
    Severity severity = Severity::Info;
    std::string title;           // one line
    Evidence evidence;           // the numbers that triggered it
    std::string recommendation;  // the knob to turn
};

}  // namespace iolens::model
