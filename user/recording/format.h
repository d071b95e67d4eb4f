#pragma once
// Internal to the recording module: explicit little-endian encoding of the file
// and chunk headers (never struct dumps, whose padding and byte order are
// implicit).
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>

#include <zlib.h>

#include "recording/crc32c.h"

namespace iolens::recording::detail {

inline void put_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_le64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t get_le32(const uint8_t* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
    return v;
}
inline uint64_t get_le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
}

// Byte offsets inside the 64-byte file header.
inline constexpr size_t kOffMagic = 0;
inline constexpr size_t kOffVersion = 8;
inline constexpr size_t kOffHeaderSize = 12;
inline constexpr size_t kOffRequired = 16;
inline constexpr size_t kOffOptional = 24;
// Bytes 32..63 are reserved and written as zero.

// Byte offsets inside the 16-byte chunk header.
inline constexpr size_t kOffChunkMagic = 0;
inline constexpr size_t kOffChunkType = 4;
inline constexpr size_t kOffChunkSize = 8;
inline constexpr size_t kOffChunkCrc = 12;

// Largest header_size a format-1 reader accepts (bytes past 64 are skipped).
inline constexpr uint32_t kMaxHeaderSize = 64 * 1024;

// The checksum of a chunk: its type and size fields (as stored,
// little-endian) and then its payload. Covering type and size means a damaged
// type cannot turn a RECORDS chunk into an "unknown" one that readers would
// silently skip. Format 2 uses CRC-32C (crc32c.h: in hardware on x86-64);
// format 1 used zlib's CRC-32 (the IEEE polynomial), still read. Payloads are
// capped at kMaxChunkPayload, so the length fits zlib's uInt.
inline uint32_t chunk_crc(uint32_t format_version, uint32_t type, const void* data, size_t size) {
    uint8_t fields[8];
    put_le32(fields, type);
    put_le32(fields + 4, static_cast<uint32_t>(size));
    if (format_version >= 2) return crc32c(crc32c(0, fields, sizeof(fields)), data, size);
    uLong crc = ::crc32(0L, fields, sizeof(fields));
    if (size == 0)  // zlib's crc32 returns 0 for a null buffer, whatever crc was
        return static_cast<uint32_t>(crc);
    return static_cast<uint32_t>(::crc32(crc, static_cast<const Bytef*>(data), static_cast<uInt>(size)));
}

}  // namespace iolens::recording::detail
