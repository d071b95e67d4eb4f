#pragma once
// A buffered byte stream into an already open file (an OutputFile's
// descriptor), optionally gzip-compressed as one single gzip member (the
// Perfetto trace processor reads only the first member of a multi-member
// file: docs/export.md). Writers append to buffer() and call maybe_flush();
// the first write error is kept and everything after it is dropped.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace iolens::exports {

class OutStream {
public:
    OutStream(int fd, bool gzip);
    ~OutStream();
    OutStream(const OutStream&) = delete;
    OutStream& operator=(const OutStream&) = delete;

    std::string& buffer() { return buf_; }
    void write(std::string_view s) {
        buf_.append(s);
        maybe_flush();
    }
    void maybe_flush() {
        if (buf_.size() >= kFlushBytes) flush();
    }
    // Writes out the buffer, ends the gzip member and reports the first
    // error. Nothing may be written after it.
    Result<void> finish();
    uint64_t bytes_in() const { return in_ + buf_.size(); }  // before compression
    uint64_t bytes_out() const { return out_; }              // in the file

private:
    static constexpr size_t kFlushBytes = 1 << 20;
    void flush();
    void write_fd(const char* p, size_t n);
    void deflate_out(bool finish);
    int fd_;
    bool gzip_;
    std::string buf_;
    uint64_t in_ = 0;
    uint64_t out_ = 0;
    std::string error_;
    struct Z;
    std::unique_ptr<Z> z_;
};

}  // namespace iolens::exports
