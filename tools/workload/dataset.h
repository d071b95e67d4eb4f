// Deterministic file contents: the training dataset of `make-dataset`/`dl` and
// the data files of the other modes.
//
// A file's bytes are the little-endian output stream of splitmix64 seeded with
// the file's key, so any byte range can be produced (and checked) on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wl {

// D/sample_000042.bin: six digits, more only beyond a million samples.
std::string sample_path(const char* dir, uint64_t index);

// The content key of sample `index` in a dataset made with `seed`.
uint64_t sample_key(uint64_t seed, uint64_t index);

// Bytes [offset, offset + len) of the content stream of `key`.
void fill_content(uint64_t key, uint64_t offset, uint8_t* buf, size_t len);

// 64-bit FNV-1a: the "sample checksum" a DataLoader worker returns. Incremental,
// so it can be fed one read buffer at a time whatever the read size.
class Fnv1a {
public:
    void update(const uint8_t* p, size_t n) {
        for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001B3ull;
    }
    uint64_t value() const { return h_; }

private:
    uint64_t h_ = 0xCBF29CE484222325ull;
};

// Create (or truncate) `path` with `size` bytes of the content of `key`:
// one openat(O_WRONLY|O_CREAT|O_TRUNC), ceil(size / kCreateChunk) write(),
// one close(). `excl` adds O_EXCL (fail if the file appeared meanwhile).
inline constexpr size_t kCreateChunk = size_t{1} << 20;
void create_content_file(const char* path, uint64_t size, uint64_t key, bool excl);

// Write `size` bytes of the content of `key` to fd (open for writing, at
// position 0) with ceil(size / chunk) write() calls of `chunk` bytes (the last
// one shorter when chunk does not divide size). A short or failed write is
// fatal: it is reported, never retried, so the count stays exact.
void write_content(int fd, const char* path, uint64_t size, size_t chunk, uint64_t key);

// The content key of make-file --seed S (write-file uses seed 1, so both
// modes write the same bytes for the same size).
uint64_t file_key(uint64_t seed);

// The content key of the single files pread-loop and attach-target create.
inline constexpr uint64_t kSingleFileKey = 0x7072656164ull;  // "pread"

// For the modes that read one existing file: open `path` O_RDONLY with
// openat(). If it does not exist (that openat fails with ENOENT), create it
// with create_content_file(key) and open it again.
int open_or_create(const char* path, uint64_t size, uint64_t key);

}  // namespace wl
