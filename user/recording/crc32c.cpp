#include "recording/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace iolens::recording {

namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // Castagnoli, reflected

// table[k][b]: the CRC of byte b followed by k zero bytes (slicing-by-8).
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t b = 0; b < 256; ++b) {
        uint32_t c = b;
        for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (kPoly & (0u - (c & 1u)));
        t[0][b] = c;
    }
    for (int k = 1; k < 8; ++k)
        for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    return t;
}
constexpr auto kTables = make_tables();

uint32_t update_portable(uint32_t c, const uint8_t* p, size_t n) {
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
        w ^= c;
        c = kTables[7][w & 0xff] ^ kTables[6][(w >> 8) & 0xff] ^ kTables[5][(w >> 16) & 0xff] ^
            kTables[4][(w >> 24) & 0xff] ^ kTables[3][(w >> 32) & 0xff] ^ kTables[2][(w >> 40) & 0xff] ^
            kTables[1][(w >> 48) & 0xff] ^ kTables[0][w >> 56];
    }
    for (; n > 0; --n) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t update_sse42_serial(uint32_t c, const uint8_t* p, size_t n) {
    uint64_t c64 = c;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        c64 = _mm_crc32_u64(c64, w);
    }
    c = static_cast<uint32_t>(c64);
    for (; n > 0; --n) c = _mm_crc32_u8(c, *p++);
    return c;
}

// The `crc32` instruction takes 3 cycles but can start one every cycle, so
// big buffers are done as three interleaved streams over consecutive blocks of
// kStride bytes, joined by shifting a stream's CRC over the kStride zero bytes
// that follow it (CRCs are linear: crc(A || B) = shift(crc(A), |B|) ^ crc(B),
// on the raw register).
constexpr size_t kStride = 4096;

// shift(c) for |B| = kStride, as four byte-indexed tables (built once).
struct Shift {
    uint32_t t[4][256];
};

__attribute__((target("sse4.2"))) Shift make_shift() {
    static const uint8_t zeros[kStride] = {};
    uint32_t bit[32];  // the shift of each single-bit register
    for (int i = 0; i < 32; ++i) bit[i] = update_sse42_serial(uint32_t{1} << i, zeros, kStride);
    Shift s{};
    for (int k = 0; k < 4; ++k)
        for (uint32_t b = 0; b < 256; ++b)
            for (int i = 0; i < 8; ++i)
                if (b & (1u << i)) s.t[k][b] ^= bit[8 * k + i];
    return s;
}

uint32_t shift(const Shift& s, uint32_t c) {
    return s.t[0][c & 0xff] ^ s.t[1][(c >> 8) & 0xff] ^ s.t[2][(c >> 16) & 0xff] ^ s.t[3][c >> 24];
}

__attribute__((target("sse4.2"))) uint32_t update_sse42(uint32_t c, const uint8_t* p, size_t n) {
    static const Shift by_stride = make_shift();
    for (; n >= 3 * kStride; n -= 3 * kStride, p += 3 * kStride) {
        uint64_t a = c, b = 0, d = 0;
        for (size_t i = 0; i < kStride; i += 8) {
            uint64_t wa, wb, wd;
            std::memcpy(&wa, p + i, 8);
            std::memcpy(&wb, p + kStride + i, 8);
            std::memcpy(&wd, p + 2 * kStride + i, 8);
            a = _mm_crc32_u64(a, wa);
            b = _mm_crc32_u64(b, wb);
            d = _mm_crc32_u64(d, wd);
        }
        c = shift(by_stride, shift(by_stride, static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
            static_cast<uint32_t>(d);
    }
    return update_sse42_serial(c, p, n);
}

bool have_sse42() {
    static const bool yes = __builtin_cpu_supports("sse4.2");
    return yes;
}
#endif

}  // namespace

uint32_t crc32c(uint32_t crc, const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
    if (have_sse42()) return ~update_sse42(~crc, p, size);
#endif
    return ~update_portable(~crc, p, size);
}

uint32_t crc32c_portable(uint32_t crc, const void* data, size_t size) {
    return ~update_portable(~crc, static_cast<const uint8_t*>(data), size);
}

}  // namespace iolens::recording
