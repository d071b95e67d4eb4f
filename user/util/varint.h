#pragma once
// LEB128 varints and zigzag, for the compact logs (model/call_log.h,
// model/dl_log.h, model/epochs.h): 7 bits a byte, the high bit set on all
// but the last. The caller leaves room for kMaxVarintBytes.
#include <cstdint>

namespace iolens::util {

inline constexpr unsigned kMaxVarintBytes = 10;

inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    return p;
}

inline const uint8_t* get_varint(const uint8_t* p, uint64_t& v) {
    v = 0;
    for (int shift = 0;; shift += 7) {
        const uint8_t b = *p++;
        v |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) return p;
    }
}

// The bytes put_varint takes for v.
inline unsigned varint_bytes(uint64_t v) {
    unsigned n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

// A signed difference (mod 2^64) as a small unsigned number: 0, -1, 1, -2, ...
inline uint64_t zigzag(uint64_t delta) {
    const auto d = static_cast<int64_t>(delta);
    return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}
inline uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

}  // namespace iolens::util
