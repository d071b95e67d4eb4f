// Recording reader: validates the file header, then walks the chunks with a
// large read buffer, stopping at the first truncated or corrupt one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "recording/format.h"
#include "recording/recording.h"

namespace iolens::recording {

using detail::errno_text;

namespace {

// Chunk headers and small chunks are read through the buffer; the rest of a
// RECORDS payload (1 MiB) goes straight into the chunk, not copied twice.
constexpr size_t kReadBufferSize = 64u << 10;

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

// Sequential reads through one large buffer; reads that are at least a buffer
// long go straight into the destination.
class BufferedReader {
public:
    explicit BufferedReader(int fd) : fd_(fd), buf_(new std::byte[kReadBufferSize]) {}

    // Reads up to n bytes into dst. Returns how many were read: fewer than n
    // only at end of file. On an I/O error returns -1 (see error()).
    int64_t read(void* dst_void, size_t n) {
        auto* dst = static_cast<std::byte*>(dst_void);
        size_t got = 0;
        while (got < n) {
            if (pos_ < len_) {
                size_t k = std::min(n - got, len_ - pos_);
                std::memcpy(dst + got, buf_.get() + pos_, k);
                pos_ += k;
                got += k;
            } else if (eof_) {
                break;
            } else if (n - got >= kReadBufferSize) {
                // Big reads (chunk payloads) go straight to their destination.
                ssize_t r = ::read(fd_, dst + got, n - got);
                if (r < 0 && errno == EINTR) continue;
                if (r < 0) return fail();
                if (r == 0) eof_ = true;
                got += static_cast<size_t>(r > 0 ? r : 0);
            } else if (!fill()) {
                return fail();
            }
        }
        return static_cast<int64_t>(got);
    }

    // Reads and discards up to n bytes; returns how many, or -1 as read() does.
    int64_t skip(size_t n) {
        size_t done = 0;
        while (done < n) {
            if (pos_ < len_) {
                size_t k = std::min(n - done, len_ - pos_);
                pos_ += k;
                done += k;
            } else if (eof_) {
                break;
            } else if (!fill()) {
                return fail();
            }
        }
        return static_cast<int64_t>(done);
    }

    int error() const { return errno_; }

private:
    // Refills the empty buffer; false on an I/O error.
    bool fill() {
        for (;;) {
            ssize_t r = ::read(fd_, buf_.get(), kReadBufferSize);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return false;
            pos_ = 0;
            len_ = static_cast<size_t>(r);
            eof_ = r == 0;
            return true;
        }
    }
    int64_t fail() {
        errno_ = errno;
        return -1;
    }

    int fd_;
    std::unique_ptr<std::byte[]> buf_;
    size_t pos_ = 0;
    size_t len_ = 0;
    bool eof_ = false;
    int errno_ = 0;
};

std::string feature_bits_text(uint64_t bits) {
    std::string out;
    for (int i = 0; i < 64; ++i) {
        if (bits & (1ull << i)) {
            if (!out.empty()) out += ", ";
            out += std::to_string(i);
        }
    }
    return out;
}

std::string partial(const std::string& why) { return why + ": report is partial"; }

// Reads the whole file, handing each intact chunk to sink (which may move its
// payload out). sink returns false to stop.
Result<ReadOutcome> read_chunks(const std::string& path, const std::function<bool(Chunk&)>& sink) {
    // O_NONBLOCK so that opening a FIFO cannot hang waiting for a writer; it is
    // refused just below, and has no effect on a regular file.
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return make_error("cannot open " + path + ": " + errno_text(errno));

    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return make_error("cannot stat " + path + ": " + errno_text(errno));
    if (S_ISDIR(st.st_mode)) return make_error(path + " is a directory, not an iolens recording");
    if (!S_ISREG(st.st_mode)) {
        return make_error(path + " is not a regular file, so not an iolens recording");
    }
    int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);

    ReadOutcome out;
    out.file_size = static_cast<uint64_t>(st.st_size);
    if (st.st_size == 0) {
        return make_error(path + " is empty, not an iolens recording (was the recorder stopped "
                                 "before it wrote anything?)");
    }

    BufferedReader in(fd.get());
    uint8_t header[kFileHeaderSize];
    int64_t got = in.read(header, sizeof(header));
    if (got < 0) return make_error("cannot read " + path + ": " + errno_text(in.error()));
    if (got < static_cast<int64_t>(sizeof(kMagic)) ||
        std::memcmp(header + detail::kOffMagic, kMagic, sizeof(kMagic)) != 0) {
        return make_error(path + " is not an iolens recording (it does not start with IOLENSRC)");
    }
    if (got < static_cast<int64_t>(sizeof(header))) {
        return make_error(path + " is not an iolens recording (its header is cut short at " +
                          std::to_string(got) + " of " + std::to_string(kFileHeaderSize) + " bytes)");
    }
    out.format_version = detail::get_le32(header + detail::kOffVersion);
    uint32_t header_size = detail::get_le32(header + detail::kOffHeaderSize);
    out.required_features = detail::get_le64(header + detail::kOffRequired);
    out.optional_features = detail::get_le64(header + detail::kOffOptional);

    if (out.format_version > kFormatVersion) {
        return make_error(path + " was written by a newer iolens (format " +
                          std::to_string(out.format_version) + "); this iolens reads formats 1 to " +
                          std::to_string(kFormatVersion) + ": upgrade iolens to read it");
    }
    if (out.format_version == 0) {
        return make_error(path + " is not a valid iolens recording (format version 0)");
    }
    if (header_size < kFileHeaderSize || header_size > detail::kMaxHeaderSize) {
        return make_error(path + " is not a valid iolens recording (corrupt header size " +
                          std::to_string(header_size) + ")");
    }
    if (uint64_t unknown = out.required_features & ~kKnownRequiredFeatures; unknown != 0) {
        return make_error(path + " needs features this iolens does not know (required feature bits " +
                          feature_bits_text(unknown) + "): upgrade iolens to read it");
    }
    // A longer header carries fields this reader does not need: skip them.
    if (header_size > kFileHeaderSize) {
        uint32_t rest = header_size - kFileHeaderSize;
        got = in.skip(rest);
        if (got < 0) return make_error("cannot read " + path + ": " + errno_text(in.error()));
        if (got < static_cast<int64_t>(rest)) {
            return make_error(path + " is not an iolens recording (its header is cut short)");
        }
    }

    uint64_t offset = header_size;
    bool end_seen = false;
    uint64_t after_end_at = 0;  // offset of the first chunk after END, if any
    Chunk chunk{ChunkType::Meta, {}};
    auto read_failed = [&] {
        out.problem = partial("cannot read " + path + " at byte " + std::to_string(offset) + ": " +
                              errno_text(in.error()));
    };
    auto truncated = [&] {
        out.problem = partial("recording is truncated at byte " + std::to_string(offset) +
                              " (recorder killed or disk full?)");
    };
    auto corrupt = [&](const std::string& why) {
        out.problem = partial("corrupt chunk at byte " + std::to_string(offset) + " (" + why + ")");
    };
    for (;;) {
        uint8_t ch[kChunkHeaderSize];
        got = in.read(ch, sizeof(ch));
        if (got < 0) {
            read_failed();
            break;
        }
        if (got == 0) break;  // clean end of file, at a chunk boundary
        if (got < static_cast<int64_t>(sizeof(ch))) {
            truncated();
            break;
        }
        if (detail::get_le32(ch + detail::kOffChunkMagic) != kChunkMagic) {
            corrupt("bad chunk magic");
            break;
        }
        uint32_t type = detail::get_le32(ch + detail::kOffChunkType);
        uint32_t size = detail::get_le32(ch + detail::kOffChunkSize);
        uint32_t crc = detail::get_le32(ch + detail::kOffChunkCrc);
        if (size > kMaxChunkPayload) {
            corrupt("payload size " + std::to_string(size) + " is over the " +
                    std::to_string(kMaxChunkPayload >> 20) + " MiB limit");
            break;
        }
        // Never allocate past the end of the file, even under the cap.
        if (offset + kChunkHeaderSize + size > out.file_size) {
            // The file may have grown since fstat (a live recording): re-check.
            struct stat now {};
            if (::fstat(fd.get(), &now) == 0) out.file_size = std::max<uint64_t>(out.file_size, now.st_size);
            if (offset + kChunkHeaderSize + size > out.file_size) {
                truncated();
                break;
            }
        }
        chunk.type = static_cast<ChunkType>(type);
        chunk.payload.resize(size);
        got = in.read(chunk.payload.data(), size);
        if (got < 0) {
            read_failed();
            break;
        }
        if (got < static_cast<int64_t>(size)) {
            truncated();
            break;
        }
        if (detail::chunk_crc(out.format_version, type, chunk.payload.data(), size) != crc) {
            corrupt("CRC mismatch");
            break;
        }
        if (end_seen && after_end_at == 0) after_end_at = offset;
        if (chunk.type == ChunkType::End) end_seen = true;
        offset += kChunkHeaderSize + size;
        out.bytes_read = offset;
        ++out.chunks_read;
        if (!sink(chunk)) {
            out.stopped = true;
            break;
        }
    }
    out.bytes_read = offset;
    out.file_size = std::max(out.file_size, out.bytes_read);
    if (out.problem.empty() && !out.stopped) {
        if (after_end_at != 0) {
            out.problem = "recording has chunks after its END chunk (at byte " +
                          std::to_string(after_end_at) + "); they were read, but the file may be damaged";
        } else if (end_seen) {
            out.complete = true;
        } else {
            out.problem = partial("recording has no END chunk (recorder killed?)");
        }
    }
    return out;
}

}  // namespace

Result<ReadOutcome> read_file(const std::string& path) {
    std::vector<Chunk> chunks;
    auto r = read_chunks(path, [&](Chunk& c) {
        chunks.push_back(Chunk{c.type, std::move(c.payload)});
        c.payload = {};
        return true;
    });
    if (!r) return r;
    r->chunks = std::move(chunks);
    return r;
}

Result<ReadOutcome> read_file_streaming(const std::string& path,
    const std::function<bool(const Chunk&)>& on_chunk) {
    return read_chunks(path, [&](Chunk& c) { return on_chunk(c); });
}

}  // namespace iolens::recording
