#include "model/finding.h"

namespace iolens::model {

namespace {
constexpr const char* kSeverityNames[] = {"high", "warn", "info"};
}  // namespace

const char* severity_name(Severity s) { return kSeverityNames[static_cast<int>(s)]; }

std::optional<Severity> severity_from_name(std::string_view name) {
    for (int i = 0; i < 3; ++i)
        if (name == kSeverityNames[i]) return static_cast<Severity>(i);
    return std::nullopt;
}

const nlohmann::json& Evidence::operator[](const std::string& key) const {
    static const nlohmann::json null;
    auto it = items_.find(key);
    return it == items_.end() ? null : it->second.value;
}

nlohmann::json Evidence::to_json() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, v] : items_) out[key] = v.value;
    return out;
}

}  // namespace iolens::model
