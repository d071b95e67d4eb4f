#pragma once
// Protocol-buffer wire encoding, by hand (no libprotobuf): varints, tags,
// length-delimited fields. A nested message's length is written as a
// 4-byte padded varint and patched once the message is complete (as
// protozero does), so messages are written in one pass into one buffer.
// Up to 2^28 - 1 bytes per nested message.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace iolens::exports::pb {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2 };

inline void varint(std::string& b, uint64_t v) {
    while (v >= 0x80) {
        b.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    b.push_back(static_cast<char>(v));
}
inline void tag(std::string& b, uint32_t field, WireType type) { varint(b, uint64_t{field} << 3 | type); }
inline void uint(std::string& b, uint32_t field, uint64_t v) {
    tag(b, field, kVarint);
    varint(b, v);
}
// int64 fields (not sint64): two's complement, ten bytes when negative.
inline void int64(std::string& b, uint32_t field, int64_t v) { uint(b, field, static_cast<uint64_t>(v)); }
inline void str(std::string& b, uint32_t field, std::string_view s) {
    tag(b, field, kBytes);
    varint(b, s.size());
    b.append(s);
}
inline void dbl(std::string& b, uint32_t field, double v) {
    tag(b, field, kFixed64);
    uint64_t u;
    std::memcpy(&u, &v, 8);
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<char>(u >> (8 * i)));
}

// Opens a nested message: returns where its length goes.
inline size_t begin(std::string& b, uint32_t field) {
    tag(b, field, kBytes);
    const size_t at = b.size();
    b.append("\x80\x80\x80\x00", 4);
    return at;
}
inline void end(std::string& b, size_t at) {
    const size_t n = b.size() - at - 4;
    b[at] = static_cast<char>((n & 0x7f) | 0x80);
    b[at + 1] = static_cast<char>(((n >> 7) & 0x7f) | 0x80);
    b[at + 2] = static_cast<char>(((n >> 14) & 0x7f) | 0x80);
    b[at + 3] = static_cast<char>((n >> 21) & 0x7f);
}

}  // namespace iolens::exports::pb
