#include "util/json_text.h"

#include "util/text.h"

namespace iolens {

namespace {

constexpr char kHex[] = "0123456789abcdef";

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

nlohmann::json text_json(std::string_view s) {
    if (valid_utf8(s)) return std::string(s);
    std::string hex;
    hex.reserve(2 * s.size());
    for (unsigned char c : s) {
        hex += kHex[c >> 4];
        hex += kHex[c & 15];
    }
    return {{"bytes_hex", std::move(hex)}, {"text", utf8_escaped(s)}};
}

nlohmann::json texts_json(const std::vector<std::string>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : v) out.push_back(text_json(s));
    return out;
}

std::optional<std::string> text_from_json(const nlohmann::json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (!j.is_object()) return std::nullopt;
    auto it = j.find("bytes_hex");
    if (it == j.end() || !it->is_string()) return std::nullopt;
    const auto& hex = it->get_ref<const std::string&>();
    if (hex.size() % 2) return std::nullopt;
    std::string out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi << 4 | lo);
    }
    return out;
}

std::string json_dump(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace iolens
