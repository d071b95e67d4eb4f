#include "args.h"

#include "util.h"

#include <cstring>
#include <string>

namespace wl {

namespace {

const OptionSpec* lookup(std::initializer_list<OptionSpec> spec, std::string_view name) {
    for (const auto& s : spec)
        if (s.name == name) return &s;
    return nullptr;
}

}  // namespace

Args::Args(std::initializer_list<OptionSpec> spec, int argc, char** argv) {
    for (int i = 0; i < argc; ++i) {
        std::string_view word = argv[i];
        if (word.size() < 3 || word.substr(0, 2) != "--") fail_usage("unexpected argument '%s'", argv[i]);
        word.remove_prefix(2);
        const char* value = nullptr;
        if (const auto eq = word.find('='); eq != std::string_view::npos) {
            value = argv[i] + 2 + eq + 1;
            word = word.substr(0, eq);
        }
        const OptionSpec* s = lookup(spec, word);
        const std::string shown(word);
        if (!s) fail_usage("unknown option --%s", shown.c_str());
        if (find(word) || flag(word)) fail_usage("option --%s given twice", shown.c_str());
        if (s->takes_value) {
            if (!value) {
                if (i + 1 >= argc) fail_usage("option --%s needs a value", shown.c_str());
                value = argv[++i];
            }
        } else if (value) {
            fail_usage("option --%s takes no value", shown.c_str());
        }
        if (s->takes_value && *value == '\0')
            fail_usage("option --%s needs a non-empty value", shown.c_str());
        given_.emplace_back(word, value);  // a flag is stored with a null value
    }
}

const char* Args::find(std::string_view name) const {
    for (const auto& [n, v] : given_)
        if (n == name && v) return v;
    return nullptr;
}

bool Args::flag(std::string_view name) const {
    for (const auto& [n, v] : given_)
        if (n == name && !v) return true;
    return false;
}

const char* Args::text(std::string_view name) const {
    const char* v = find(name);
    if (!v) {
        const std::string shown(name);
        fail_usage("missing required option --%s", shown.c_str());
    }
    return v;
}

const char* Args::text_or(std::string_view name, const char* fallback) const {
    const char* v = find(name);
    return v ? v : fallback;
}

uint64_t Args::number(std::string_view name, uint64_t lo, uint64_t hi) const {
    return parse_number(name, text(name), lo, hi);
}

uint64_t Args::number_or(std::string_view name, uint64_t fallback, uint64_t lo, uint64_t hi) const {
    const char* v = find(name);
    return v ? parse_number(name, v, lo, hi) : fallback;
}

uint64_t Args::parse_number(std::string_view name, const char* text, uint64_t lo, uint64_t hi) const {
    const std::string shown(name);
    uint64_t value = 0;
    const char* p = text;
    if (*p < '0' || *p > '9') fail_usage("--%s: '%s' is not a number", shown.c_str(), text);
    for (; *p >= '0' && *p <= '9'; ++p) {
        if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, *p - '0', &value))
            fail_usage("--%s: '%s' is too large", shown.c_str(), text);
    }
    unsigned shift = 0;
    switch (*p) {
        case '\0':
            break;
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        default:
            fail_usage("--%s: '%s' is not a number", shown.c_str(), text);
    }
    if (shift != 0) {
        if (p[1] != '\0') fail_usage("--%s: '%s' is not a number", shown.c_str(), text);
        if (value > (UINT64_MAX >> shift)) fail_usage("--%s: '%s' is too large", shown.c_str(), text);
        value <<= shift;
    }
    if (value < lo || value > hi)
        fail_usage("--%s: %llu is out of range [%llu, %llu]", shown.c_str(),
                   static_cast<unsigned long long>(value), static_cast<unsigned long long>(lo),
                   static_cast<unsigned long long>(hi));
    return value;
}

}  // namespace wl
