// libFuzzer target: the input is a sequence of chunks without their framing,
// which this target adds (a valid file header, chunk magics, sizes and
// checksums), so mutations of a payload reach the replay, the model, the
// findings and the renderers instead of failing a CRC. Input layout:
//
//   byte 0        options: bit 0 format 1 (zlib CRC-32) instead of 2;
//                 bits 1-2 max_files (10000, 0, 1, 3); bit 3 colour;
//                 bit 4 --rank-env RANK; bit 5 no DL attribution;
//                 bit 6 reorder window of 4 calls; bit 7 width 40
//   then pieces:  u8 type, u24 little-endian length, that many bytes (cut
//                 short at the end of the input). Type 0 is raw bytes, put
//                 in the file unframed (damage to resynchronise over); any
//                 other type becomes a chunk of that type (1 META,
//                 2 RECORDS, 3 PROCESS, 4 END, 5 ENV, others unknown).
//
// tools/fuzz/make-corpus.py turns recordings into this layout.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.h"
#include "recording/format.h"
#include "recording/recording.h"

namespace {

using namespace iolens::recording;

void put_header(std::vector<uint8_t>& file, uint32_t version) {
    uint8_t h[kFileHeaderSize] = {};
    std::memcpy(h + detail::kOffMagic, kMagic, sizeof(kMagic));
    detail::put_le32(h + detail::kOffVersion, version);
    detail::put_le32(h + detail::kOffHeaderSize, kFileHeaderSize);
    detail::put_le64(h + detail::kOffRequired, kFeatureRecordsV1);
    detail::put_le64(h + detail::kOffOptional, 0);
    file.insert(file.end(), h, h + sizeof h);
}

void put_chunk(std::vector<uint8_t>& file, uint32_t version, uint32_t type, const uint8_t* data,
               size_t size) {
    uint8_t h[kChunkHeaderSize];
    detail::put_le32(h + detail::kOffChunkMagic, kChunkMagic);
    detail::put_le32(h + detail::kOffChunkType, type);
    detail::put_le32(h + detail::kOffChunkSize, static_cast<uint32_t>(size));
    detail::put_le32(h + detail::kOffChunkCrc, detail::chunk_crc(version, type, data, size));
    file.insert(file.end(), h, h + sizeof h);
    file.insert(file.end(), data, data + size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const uint8_t flags = data[0];
    const uint32_t version = (flags & 1) ? 1 : kFormatVersion;
    iolens::fuzz::RunOptions options;
    static constexpr size_t kMaxFiles[] = {10000, 0, 1, 3};
    options.builder.max_files = kMaxFiles[(flags >> 1) & 3];
    options.color = flags & 8;
    if (flags & 16) options.builder.rank_env_override = "RANK";
    options.builder.dl_attribution = !(flags & 32);
    if (flags & 64) options.builder.reorder_calls = 4;
    options.width = (flags & 128) ? 40 : 80;
    options.top_n = (flags & 128) ? 2 : 10;

    std::vector<uint8_t> file;
    file.reserve(size + 1024);
    put_header(file, version);
    for (size_t at = 1; at < size;) {
        const uint8_t type = data[at++];
        size_t len = 0;
        for (int i = 0; i < 3 && at < size; ++i) len |= static_cast<size_t>(data[at++]) << (8 * i);
        len = std::min(len, size - at);
        if (type == 0)
            file.insert(file.end(), data + at, data + at + len);
        else
            put_chunk(file, version, type, data + at, len);
        at += len;
    }
    iolens::fuzz::run_recording(file, options);
    return 0;
}
