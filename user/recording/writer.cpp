// Recording writer: creates the file safely, then appends whole chunks.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "recording/format.h"
#include "recording/recording.h"
#include "util/errno_text.h"
#include "util/output_file.h"

namespace iolens::recording {

namespace {

// Writes every byte of iov[0..count) with one loop, resuming after partial
// writes and EINTR. Returns 0 or the errno of the failure.
int write_all(int fd, struct iovec* iov, int count) {
    int first = 0;
    while (first < count) {
        ssize_t n = ::writev(fd, iov + first, count - first);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return ENOSPC;  // no progress on a regular file: treat as full
        auto left = static_cast<size_t>(n);
        while (first < count && left >= iov[first].iov_len) {
            left -= iov[first].iov_len;
            ++first;
        }
        if (first < count) {
            iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
            iov[first].iov_len -= left;
        }
    }
    return 0;
}

}  // namespace

struct Writer::Impl {
    std::string path;
    std::optional<OutputFile> file;
    int fd = -1;
    size_t flush_bytes = 0;
    std::function<void(ChunkType, std::span<const std::byte>)> observer;
    std::vector<std::byte> records;  // the RECORDS chunk being filled
    uint64_t buffered_records = 0;   // records in it, as the caller counted them
    uint64_t written = 0;            // bytes in the file: header + whole chunks
    WriteLoss loss;                  // what failed writes cost
    std::string closed;              // set once the file was closed

    Result<void> usable() const {
        if (!closed.empty()) return make_error(closed);
        return {};
    }

    Result<void> write_chunk(ChunkType type, const void* data, size_t size) {
        if (auto ok = usable(); !ok) return ok;
        if (observer) observer(type, {static_cast<const std::byte*>(data), size});
        if (size > kMaxChunkPayload) {
            return make_error("cannot write a " + std::to_string(size) + "-byte chunk to " + path +
                              ": over the " + std::to_string(kMaxChunkPayload >> 20) + " MiB chunk limit");
        }
        uint8_t header[kChunkHeaderSize] = {};
        detail::put_le32(header + detail::kOffChunkMagic, kChunkMagic);
        detail::put_le32(header + detail::kOffChunkType, static_cast<uint32_t>(type));
        detail::put_le32(header + detail::kOffChunkSize, static_cast<uint32_t>(size));
        detail::put_le32(header + detail::kOffChunkCrc,
                         detail::chunk_crc(kFormatVersion, static_cast<uint32_t>(type), data, size));
        struct iovec iov[2] = {
            {header, sizeof(header)},
            {const_cast<void*>(data), size},
        };
        int err = write_all(fd, iov, size > 0 ? 2 : 1);
        if (err != 0) {
            // Cut the file back to the last whole chunk (this file is ours: we
            // created it), so it stays a clean partial recording, and write
            // the next chunk there: space may come back (disk full).
            int rc;
            do {
                rc = ::ftruncate(fd, static_cast<off_t>(written));
            } while (rc != 0 && errno == EINTR);
            if (rc == 0) ::lseek(fd, static_cast<off_t>(written), SEEK_SET);
            loss.error =
                "cannot write to " + path + ": " + errno_text(err) +
                (rc == 0 ? " (the recording keeps its first " : " (a partial chunk follows its first ") +
                std::to_string(written) + " bytes)";
            loss.chunks++;
            loss.bytes += sizeof(header) + size;
            return make_error(loss.error);
        }
        written += sizeof(header) + size;
        return {};
    }

    Result<void> flush_records() {
        if (records.empty()) return usable();
        auto r = write_chunk(ChunkType::Records, records.data(), records.size());
        if (!r && closed.empty()) loss.records += buffered_records;
        records.clear();  // written, or lost with the failed write (counted, and the error says so)
        buffered_records = 0;
        return r;
    }
};

Result<std::unique_ptr<Writer>> Writer::create(const std::string& path, WriterOptions options) {
    auto file = OutputFile::create(path, options.force, "the recording");
    if (!file) return file.error();
    const int fd = file->fd();

    uint8_t header[kFileHeaderSize] = {};
    std::memcpy(header + detail::kOffMagic, kMagic, sizeof(kMagic));
    detail::put_le32(header + detail::kOffVersion, kFormatVersion);
    detail::put_le32(header + detail::kOffHeaderSize, kFileHeaderSize);
    detail::put_le64(header + detail::kOffRequired, kWrittenRequiredFeatures);
    detail::put_le64(header + detail::kOffOptional, 0);
    struct iovec iov = {header, sizeof(header)};
    if (int err = write_all(fd, &iov, 1); err != 0) return errno_error("cannot write to " + path, err);

    std::unique_ptr<Writer> w(new Writer());
    w->impl_ = std::make_unique<Impl>();
    w->impl_->path = path;
    w->impl_->file.emplace(std::move(file.value()));
    w->impl_->fd = fd;
    w->impl_->flush_bytes = std::min<size_t>(options.flush_bytes, kMaxChunkPayload);
    w->impl_->observer = std::move(options.observer);
    w->impl_->records.reserve(std::min<size_t>(w->impl_->flush_bytes, 4u << 20));
    w->impl_->written = sizeof(header);
    if (!options.deferred)
        if (auto r = w->commit(); !r) return r.error();
    return w;
}

Result<void> Writer::commit() { return impl_->file->commit(); }

bool Writer::committed() const { return impl_->file->committed(); }

const std::string& Writer::keep_temporary() { return impl_->file->keep_temporary(); }

Writer::~Writer() {
    if (!impl_ || impl_->fd < 0) return;
    try {
        if (impl_->closed.empty() && !impl_->records.empty()) {
            if (auto r = impl_->flush_records(); !r) spdlog::warn("recording: {}", r.error().message);
        }
    } catch (...) {
        // Never throw from a destructor (spdlog formatting or allocation).
    }
    // The OutputFile closes the descriptor (and removes an uncommitted file).
    impl_->fd = -1;
}

Result<void> Writer::write_json_chunk(ChunkType type, const std::string& json_text) {
    if (auto r = impl_->flush_records(); !r) return r;
    return impl_->write_chunk(type, json_text.data(), json_text.size());
}

Result<void> Writer::append_records(std::span<const std::byte> records, uint64_t count) {
    if (auto ok = impl_->usable(); !ok) return ok;
    if (records.empty()) return {};
    if (records.size() > kMaxChunkPayload) {
        return make_error("cannot add " + std::to_string(records.size()) + " bytes of records to " +
                          impl_->path + " at once: over the " + std::to_string(kMaxChunkPayload >> 20) +
                          " MiB chunk limit");
    }
    // A chunk never exceeds the limit: write out what is buffered first.
    if (impl_->records.size() + records.size() > kMaxChunkPayload) {
        if (auto r = impl_->flush_records(); !r) return r;
    }
    impl_->records.insert(impl_->records.end(), records.begin(), records.end());
    impl_->buffered_records += count;
    if (impl_->records.size() >= impl_->flush_bytes) return impl_->flush_records();
    return {};
}

Result<void> Writer::flush() { return impl_->flush_records(); }

Result<void> Writer::close() {
    if (impl_->fd < 0) return impl_->usable();
    // After an earlier failed write this returns that failure; close anyway.
    Result<void> result = impl_->flush_records();
    if (auto r = impl_->file->close(); !r && result.ok()) result = r;
    impl_->fd = -1;
    if (impl_->closed.empty()) impl_->closed = impl_->path + " is already closed";
    return result;
}

const std::string& Writer::path() const { return impl_->path; }

uint64_t Writer::bytes_written() const { return impl_->written; }

const WriteLoss& Writer::loss() const { return impl_->loss; }

}  // namespace iolens::recording
