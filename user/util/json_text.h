#pragma once
// JSON for text that comes from the traced job (command lines, file names,
// environment values): JSON strings must be UTF-8, and such text need not be.
// A valid UTF-8 string is written as a JSON string; any other as an object
// {"bytes_hex": "<every byte, in hex>", "text": "<the string with the bytes
// that are not UTF-8 as \xNN>"}: lossless, and still readable. Readers take
// both forms (text_from_json). docs/report-schema.md documents it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace iolens {

nlohmann::json text_json(std::string_view s);
nlohmann::json texts_json(const std::vector<std::string>& v);
// The bytes of a text_json value; nullopt when j is neither form.
std::optional<std::string> text_from_json(const nlohmann::json& j);

// j as text, never throwing: a string that is not UTF-8 despite the above
// has its bad bytes replaced (U+FFFD) rather than end the program.
std::string json_dump(const nlohmann::json& j, int indent = -1);

}  // namespace iolens
