// Recording reader: validates the file header, then walks the chunks with a
// large read buffer, stopping at the first truncated or corrupt one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "recording/format.h"
#include "recording/recording.h"
#include "util/errno_text.h"
#include "util/fd.h"

namespace iolens::recording {

namespace {

// Chunk headers and small chunks are read through the buffer; the rest of a
// RECORDS payload (1 MiB) goes straight into the chunk, not copied twice.
constexpr size_t kReadBufferSize = 64u << 10;

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

    // Continues reading at byte off of the file (the buffer is dropped).
    bool seek(uint64_t off) {
        pos_ = len_ = 0;
        eof_ = false;
        return ::lseek(fd_, static_cast<off_t>(off), SEEK_SET) == static_cast<off_t>(off);
    }

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

// Opens a recording for reading: a regular, non-empty file (never waits on a
// FIFO); the fd and the outcome's file_size.
Result<UniqueFd> open_recording(const std::string& path, ReadOutcome& out) {
    // O_NONBLOCK so that opening a FIFO cannot hang waiting for a writer; it is
    // refused just below, and has no effect on a regular file.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) return errno_error("cannot open " + path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat " + path);
    if (S_ISDIR(st.st_mode)) return make_error(path + " is a directory, not an iolens recording");
    if (!S_ISREG(st.st_mode)) {
        return make_error(path + " is not a regular file, so not an iolens recording");
    }
    int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
    out.file_size = static_cast<uint64_t>(st.st_size);
    if (st.st_size == 0) {
        return make_error(path +
                          " is empty, not an iolens recording (was the recorder stopped "
                          "before it wrote anything?)");
    }
    return fd;
}

// Reads and checks the file header; returns its size (where the chunks start).
Result<uint32_t> read_header(BufferedReader& in, const std::string& path, ReadOutcome& out) {
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

    // A format no iolens ever wrote is damage, not a newer iolens.
    if (out.format_version > kFormatVersion + 64) {
        return make_error(path + " is not a valid iolens recording (format " +
                          std::to_string(out.format_version) +
                          " is not one iolens writes: the header is damaged)");
    }
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
    return header_size;
}

// Walks the chunks after the header, one at a time. A damaged chunk is
// skipped: the walk resynchronises on the next chunk magic whose header and
// checksum hold (out.damaged_regions, out.skipped_bytes); a truncated last
// chunk ends it. out.problem says what happened.
class ChunkWalker {
public:
    ChunkWalker(BufferedReader& in, int fd, const std::string& path, ReadOutcome& out, uint64_t offset)
        : in_(in), fd_(fd), path_(path), out_(out), offset_(offset) {}

    // Reads the next intact chunk into chunk; false at the end of the file or
    // on a problem that ends the walk.
    bool next(Chunk& chunk);
    // Sets bytes_read, complete and the end-of-file problems.
    void finish(bool stopped);

private:
    enum class Step { Chunk, End, Damaged, Stop };
    Step read_chunk(Chunk& chunk, std::string& why);
    bool payload_fits(uint64_t at, uint32_t size);
    // The offset of the next intact chunk after a damaged one at offset_, or
    // 0 when there is none.
    uint64_t find_next_chunk();
    bool chunk_at(uint64_t at, std::vector<std::byte>& scratch);
    void damaged(const std::string& why);
    void read_failed() {
        out_.problem = partial("cannot read " + path_ + " at byte " + std::to_string(offset_) + ": " +
                               errno_text(in_.error()));
    }

    BufferedReader& in_;
    const int fd_;
    const std::string& path_;
    ReadOutcome& out_;
    uint64_t offset_;
    bool end_seen_ = false;
    uint64_t after_end_at_ = 0;  // offset of the first chunk after END, if any
    std::string first_damage_;   // what the first damaged region was
    bool truncated_ = false;
    // Bytes of candidate chunks checksummed while resynchronising: a crafted
    // file full of fake magics must not make the reader quadratic.
    uint64_t resync_budget_ = uint64_t{1} << 30;
};

// Never allocate past the end of the file, even under the cap.
bool ChunkWalker::payload_fits(uint64_t at, uint32_t size) {
    if (at + kChunkHeaderSize + size <= out_.file_size) return true;
    // The file may have grown since fstat (a live recording): re-check.
    struct stat now {};
    if (::fstat(fd_, &now) == 0) out_.file_size = std::max<uint64_t>(out_.file_size, now.st_size);
    return at + kChunkHeaderSize + size <= out_.file_size;
}

ChunkWalker::Step ChunkWalker::read_chunk(Chunk& chunk, std::string& why) {
    uint8_t ch[kChunkHeaderSize];
    int64_t got = in_.read(ch, sizeof(ch));
    if (got < 0) return read_failed(), Step::Stop;
    if (got == 0) return Step::End;  // clean end of file, at a chunk boundary
    if (got < static_cast<int64_t>(sizeof(ch))) return why = "truncated", Step::Damaged;
    if (detail::get_le32(ch + detail::kOffChunkMagic) != kChunkMagic)
        return why = "bad chunk magic", Step::Damaged;
    uint32_t type = detail::get_le32(ch + detail::kOffChunkType);
    uint32_t size = detail::get_le32(ch + detail::kOffChunkSize);
    uint32_t crc = detail::get_le32(ch + detail::kOffChunkCrc);
    if (size > kMaxChunkPayload) {
        why = "payload size " + std::to_string(size) + " is over the " +
              std::to_string(kMaxChunkPayload >> 20) + " MiB limit";
        return Step::Damaged;
    }
    if (!payload_fits(offset_, size)) return why = "truncated", Step::Damaged;
    chunk.type = static_cast<ChunkType>(type);
    chunk.payload.resize(size);
    got = in_.read(chunk.payload.data(), size);
    if (got < 0) return read_failed(), Step::Stop;
    if (got < static_cast<int64_t>(size)) return why = "truncated", Step::Damaged;
    if (detail::chunk_crc(out_.format_version, type, chunk.payload.data(), size) != crc)
        return why = "CRC mismatch", Step::Damaged;
    return Step::Chunk;
}

// Whether an intact chunk (magic, a size that fits, its checksum) starts at `at`.
bool ChunkWalker::chunk_at(uint64_t at, std::vector<std::byte>& scratch) {
    uint8_t ch[kChunkHeaderSize];
    if (::pread(fd_, ch, sizeof ch, static_cast<off_t>(at)) != static_cast<ssize_t>(sizeof ch)) return false;
    if (detail::get_le32(ch + detail::kOffChunkMagic) != kChunkMagic) return false;
    const uint32_t size = detail::get_le32(ch + detail::kOffChunkSize);
    if (size > kMaxChunkPayload || !payload_fits(at, size) || size > resync_budget_) return false;
    resync_budget_ -= size;
    scratch.resize(size);
    if (size && ::pread(fd_, scratch.data(), size, static_cast<off_t>(at + kChunkHeaderSize)) !=
                    static_cast<ssize_t>(size))
        return false;
    return detail::chunk_crc(out_.format_version, detail::get_le32(ch + detail::kOffChunkType),
                             scratch.data(), size) == detail::get_le32(ch + detail::kOffChunkCrc);
}

uint64_t ChunkWalker::find_next_chunk() {
    std::vector<uint8_t> block(kReadBufferSize + 3);
    std::vector<std::byte> scratch;
    for (uint64_t at = offset_ + 1; at + kChunkHeaderSize <= out_.file_size && resync_budget_;) {
        const ssize_t n = ::pread(fd_, block.data(), block.size(), static_cast<off_t>(at));
        if (n < 4) return 0;
        for (ssize_t i = 0; i + 4 <= n; ++i)
            if (detail::get_le32(block.data() + i) == kChunkMagic &&
                chunk_at(at + static_cast<uint64_t>(i), scratch))
                return at + static_cast<uint64_t>(i);
        at += static_cast<uint64_t>(n) - 3;  // a magic may straddle two blocks
    }
    return 0;
}

void ChunkWalker::damaged(const std::string& why) {
    if (first_damage_.empty())
        first_damage_ = "corrupt chunk at byte " + std::to_string(offset_) + " (" + why + ")";
}

bool ChunkWalker::next(Chunk& chunk) {
    for (;;) {
        std::string why;
        const Step step = read_chunk(chunk, why);
        if (step == Step::Stop || step == Step::End) return false;
        if (step == Step::Chunk) break;
        // Damaged at offset_: go on at the next intact chunk, if there is one.
        const uint64_t next = find_next_chunk();
        if (next == 0) {
            if (why == "truncated") {
                truncated_ = true;
            } else {
                damaged(why);
            }
            return false;
        }
        damaged(why);
        out_.damaged_regions++;
        out_.skipped_bytes += next - offset_;
        offset_ = next;
        if (!in_.seek(next)) return read_failed(), false;
    }
    if (end_seen_ && after_end_at_ == 0) after_end_at_ = offset_;
    if (chunk.type == ChunkType::End) end_seen_ = true;
    offset_ += kChunkHeaderSize + chunk.payload.size();
    out_.bytes_read = offset_;
    ++out_.chunks_read;
    return true;
}

void ChunkWalker::finish(bool stopped) {
    out_.stopped = stopped;
    out_.bytes_read = offset_;
    out_.file_size = std::max(out_.file_size, out_.bytes_read);
    if (!out_.problem.empty() || stopped) return;
    std::vector<std::string> notes;
    if (out_.damaged_regions) {
        notes.push_back(first_damage_ +
                        (out_.damaged_regions > 1
                             ? ", and " + std::to_string(out_.damaged_regions - 1) + " more damaged region(s)"
                             : "") +
                        ": " + std::to_string(out_.skipped_bytes) + " bytes skipped, the chunks after kept");
    } else if (!first_damage_.empty()) {
        notes.push_back(first_damage_);  // damaged, and nothing intact after it
    }
    if (truncated_)
        notes.push_back("recording is truncated at byte " + std::to_string(offset_) +
                        " (recorder killed or disk full?)");
    if (!truncated_ && first_damage_.empty()) {
        if (after_end_at_ != 0) {
            out_.problem = "recording has chunks after its END chunk (at byte " +
                           std::to_string(after_end_at_) + "); they were read, but the file may be damaged";
            return;
        }
        if (end_seen_) {
            out_.complete = true;
            return;
        }
    }
    if (!end_seen_ && !truncated_) notes.push_back("recording has no END chunk (recorder killed?)");
    std::string text;
    for (const auto& n : notes) text += (text.empty() ? "" : "; ") + n;
    out_.problem = partial(text);
}

// Chunks read and checked (the read, the checksum) on a thread of their own,
// up to kAhead ahead of the sink, which then spends its time on the records
// alone: a report reads a recording of 10 M events (700 MB-1 GB) this way.
// Payload buffers go back to the reader once the sink is done with them (no
// allocation per chunk). What the walk counts (ReadOutcome) is kept with each
// chunk, so that a sink that stops leaves the outcome at the chunk it saw
// last, as a walk without read-ahead would.
class ReadAhead {
public:
    static constexpr size_t kAhead = 4;

    // prepare, if set, runs on the reader's thread on each chunk before it is
    // handed on.
    ReadAhead(ChunkWalker& walker, ReadOutcome& out, const std::function<void(const Chunk&)>& prepare)
        : walker_(walker), out_(out), prepare_(prepare) {
        thread_ = std::thread([this] { run(); });
    }
    ~ReadAhead() { stop(); }
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;

    // The next chunk, false at the end of the walk (rethrows the reader's
    // exception, if it had one).
    bool next(Chunk& chunk) {
        std::unique_lock lk(m_);
        cv_.wait(lk, [&] { return done_ || !ready_.empty(); });
        if (ready_.empty()) {
            if (error_) std::rethrow_exception(error_);
            return false;
        }
        if (!chunk.payload.empty() || chunk.payload.capacity()) spare_.push_back(std::move(chunk.payload));
        chunk = std::move(ready_.front().chunk);
        seen_ = ready_.front().counts;
        ready_.pop_front();
        cv_.notify_all();
        return true;
    }
    // Stops the reader and joins it.
    void stop() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard lk(m_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    // After stop(), when the sink asked to stop: the outcome's counts go back
    // to the last chunk handed on (the reader may have read further).
    void rewind_outcome() const { seen_.restore(out_); }

private:
    struct Counts {
        uint64_t chunks_read = 0, bytes_read = 0, damaged_regions = 0, skipped_bytes = 0;
        bool problem = false;  // the walk had a problem by then (a read past it may have one)
        void take(const ReadOutcome& o) {
            chunks_read = o.chunks_read;
            bytes_read = o.bytes_read;
            damaged_regions = o.damaged_regions;
            skipped_bytes = o.skipped_bytes;
            problem = !o.problem.empty();
        }
        void restore(ReadOutcome& o) const {
            o.chunks_read = chunks_read;
            o.bytes_read = bytes_read;
            o.damaged_regions = damaged_regions;
            o.skipped_bytes = skipped_bytes;
            if (!problem) o.problem.clear();
        }
    };
    struct Ready {
        Chunk chunk;
        Counts counts;
    };

    void run() {
        try {
            for (;;) {
                Ready r{Chunk{ChunkType::Meta, {}}, {}};
                {
                    std::unique_lock lk(m_);
                    cv_.wait(lk, [&] { return stop_ || ready_.size() < kAhead; });
                    if (stop_) break;
                    if (!spare_.empty()) {
                        r.chunk.payload = std::move(spare_.back());
                        spare_.pop_back();
                    }
                }
                // The walker and the outcome are this thread's until done_.
                const bool got = walker_.next(r.chunk);
                if (got) r.counts.take(out_);
                if (got && prepare_) prepare_(r.chunk);
                std::lock_guard lk(m_);
                if (!got) break;
                ready_.push_back(std::move(r));
                cv_.notify_all();
            }
        } catch (...) {
            std::lock_guard lk(m_);
            error_ = std::current_exception();
        }
        std::lock_guard lk(m_);
        done_ = true;
        cv_.notify_all();
    }

    ChunkWalker& walker_;
    ReadOutcome& out_;
    const std::function<void(const Chunk&)>& prepare_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Ready> ready_;
    std::vector<std::vector<std::byte>> spare_;
    Counts seen_;
    bool done_ = false, stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;  // last: started once the rest is built
};

// Reads the whole file, handing each intact chunk to sink (which may move its
// payload out). sink returns false to stop.
Result<ReadOutcome> read_chunks(const std::string& path, const std::function<bool(Chunk&)>& sink,
                                const std::function<void(const Chunk&)>& prepare = {}) {
    ReadOutcome out;
    auto fd = open_recording(path, out);
    if (!fd) return fd.error();
    BufferedReader in(fd->get());
    auto header_size = read_header(in, path, out);
    if (!header_size) return header_size.error();
    ChunkWalker walker(in, fd->get(), path, out, *header_size);
    Chunk chunk{ChunkType::Meta, {}};
    bool stopped = false;
    ReadAhead ahead(walker, out, prepare);
    while (!stopped && ahead.next(chunk)) stopped = !sink(chunk);
    ahead.stop();
    walker.finish(stopped);
    if (stopped) ahead.rewind_outcome();
    return out;
}

}  // namespace

std::string chunk_type_name(ChunkType type) {
    for (const auto& t : kChunkTypes)
        if (t.type == type) return t.name;
    return "type " + std::to_string(static_cast<uint32_t>(type));
}

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
                                        const std::function<bool(const Chunk&)>& on_chunk,
                                        const std::function<void(const Chunk&)>& prepare) {
    return read_chunks(
        path, [&](Chunk& c) { return on_chunk(c); }, prepare);
}

}  // namespace iolens::recording
