#pragma once
// Reads the BPF ring buffer (BPF_MAP_TYPE_RINGBUF) through its memory
// mapping, like libbpf's ring_buffer, with one difference that matters for
// the traced job: the consumer position is published once per pass (and every
// kReleaseBytes within a long one), not after every record.
//
// Why: every bpf_ringbuf_reserve() in the kernel reads the consumer position
// to check for space. A consumer that writes it after each record keeps that
// cache line bouncing between the recorder's CPU and the traced thread's, and
// the traced thread pays a cross-CPU cache miss on every traced syscall
// (measured here: most of the exit probe's cost; see docs/benchmarks.md).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "util/result.h"

namespace iolens::capture {

class RingReader {
public:
    // Maps the ring buffer map `map_fd` (not owned; must outlive the reader).
    static Result<std::unique_ptr<RingReader>> open(int map_fd);
    ~RingReader();
    RingReader(const RingReader&) = delete;
    RingReader& operator=(const RingReader&) = delete;

    // Becomes readable (EPOLLIN) when the kernel wakes consumers.
    int poll_fd() const { return map_fd_; }

    // Calls on_record(data, size) for every record committed so far, in
    // order, skipping discarded ones, and stops at the first record still
    // being written. Returns the number of records passed on.
    using Callback = std::function<void(const void* data, size_t size)>;
    size_t consume(const Callback& on_record);

private:
    RingReader() = default;
    int map_fd_ = -1;
    uint64_t size_ = 0;                 // data area bytes (a power of two)
    uint64_t* consumer_pos_ = nullptr;  // first page, writable
    const uint64_t* producer_pos_ = nullptr;
    const uint8_t* data_ = nullptr;  // mapped twice in a row: records never wrap
    void* consumer_map_ = nullptr;
    void* producer_map_ = nullptr;
    size_t producer_map_len_ = 0;
};

}  // namespace iolens::capture
