#pragma once
// CRC-32C (Castagnoli), the chunk checksum of recording format 2.
//
// Why CRC-32C rather than zlib's CRC-32: x86-64 computes it in hardware
// (SSE4.2 `crc32`, 8 bytes an instruction, three streams at once), about ten
// times faster than zlib's table-driven CRC-32, and `report` checksums every
// byte of a recording (1 GB for 10 million events). Other CPUs use the portable slicing-by-8
// code, which gives the same values.
#include <cstddef>
#include <cstdint>

namespace iolens::recording {

// The CRC-32C of data, continuing from crc (0 to start), zlib-style: the
// pre- and post-inversion are inside, so crc32c(crc32c(0, a), b) is the
// CRC-32C of a followed by b. crc32c(0, "123456789", 9) == 0xE3069283.
uint32_t crc32c(uint32_t crc, const void* data, size_t size);

// The portable code alone (tests compare it with the hardware path).
uint32_t crc32c_portable(uint32_t crc, const void* data, size_t size);

}  // namespace iolens::recording
