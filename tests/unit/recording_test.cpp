// Recording file: round trips, safe creation, and every way a file can be
// truncated, corrupted or not a recording at all.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "recording/crc32c.h"
#include "recording/recording.h"

namespace iolens::recording {
namespace {

namespace fs = std::filesystem;

// Substring check with a readable failure (gmock is not linked into the tests).
::testing::AssertionResult Contains(const std::string& haystack, const std::string& needle) {
    if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << haystack << "\" does not contain \"" << needle << "\"";
}

// --- helpers -----------------------------------------------------------------

class TempDir {
public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "iolens-rec-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        // Undo any chmod a test did so the tree can be removed.
        for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::end(it);
             it.increment(ec)) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
        }
        fs::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    ASSERT_TRUE(out.good()) << path;
}

std::vector<std::byte> to_bytes(const std::string& s) {
    std::vector<std::byte> v(s.size());
    std::memcpy(v.data(), s.data(), s.size());
    return v;
}

std::string to_string(const std::vector<std::byte>& v) {
    return {reinterpret_cast<const char*>(v.data()), v.size()};
}

// A deterministic "record stream" of n bytes (content is opaque to this layer).
std::string pattern(size_t n, uint32_t seed) {
    std::string s(n, '\0');
    std::mt19937 rng(seed);
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

// Independent little-endian encoders: the tests build files by hand from the
// documented layout, not from the implementation's helpers.
void le32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void le64(std::string& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string file_header(uint32_t version = 1, uint32_t header_size = 64,
                        uint64_t required = kWrittenRequiredFeatures, uint64_t optional = 0) {
    std::string h("IOLENSRC", 8);
    le32(h, version);
    le32(h, header_size);
    le64(h, required);
    le64(h, optional);
    h.append(32, '\0');
    return h;
}

// The documented chunk checksum over the type and size fields as stored,
// then the payload: CRC-32C in format 2, zlib's CRC-32 in format 1. The
// hand-made files below are format 1 unless they say otherwise (the files an
// older iolens wrote must stay readable).
uint32_t crc_of(uint32_t type, const std::string& payload, uint32_t version = 1) {
    std::string covered;
    le32(covered, type);
    le32(covered, static_cast<uint32_t>(payload.size()));
    covered += payload;
    if (version >= 2) return crc32c_portable(0, covered.data(), covered.size());
    return static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(covered.data()), static_cast<uInt>(covered.size())));
}

std::string chunk(uint32_t type, const std::string& payload, uint32_t version = 1) {
    std::string c("CHNK", 4);
    le32(c, type);
    le32(c, static_cast<uint32_t>(payload.size()));
    le32(c, crc_of(type, payload, version));
    return c + payload;
}

std::unique_ptr<Writer> must_create(const std::string& path, WriterOptions options = {}) {
    auto w = Writer::create(path, options);
    EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
    if (!w.ok()) return nullptr;
    return std::move(w).value();
}

#define ASSERT_OK(expr)                                                               \
    do {                                                                              \
        auto _r = (expr);                                                             \
        ASSERT_TRUE(_r.ok()) << #expr << ": " << (_r.ok() ? "" : _r.error().message); \
    } while (0)

// Writes the small reference recording used by several tests and returns the
// byte offset where each chunk starts (plus the file end).
const std::string kMeta = R"({"host":"h","kernel":"6.1","command":["dd"]})";
const std::string kProcess = R"({"pid":42,"comm":"dd"})";
const std::string kEnd = R"({"exit_status":0,"lost":0})";

std::vector<uint64_t> write_reference(const std::string& path) {
    std::vector<uint64_t> starts;
    auto w = must_create(path);
    if (!w) return starts;
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->write_json_chunk(ChunkType::Meta, kMeta).ok());
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->write_json_chunk(ChunkType::Process, kProcess).ok());
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->append_records(to_bytes(pattern(40, 1))).ok());
    EXPECT_TRUE(w->flush().ok());
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->append_records(to_bytes(pattern(24, 2))).ok());
    EXPECT_TRUE(w->flush().ok());
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->write_json_chunk(ChunkType::End, kEnd).ok());
    starts.push_back(w->bytes_written());
    EXPECT_TRUE(w->close().ok());
    return starts;
}

// --- writer: layout and round trips -----------------------------------------------

TEST(RecordingWriter, FileAndChunkHeadersHaveTheDocumentedLayout) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    {
        auto w = must_create(path);
        ASSERT_TRUE(w);
        EXPECT_EQ(w->path(), path);
        EXPECT_EQ(w->bytes_written(), 64u);
        ASSERT_OK(w->write_json_chunk(ChunkType::Meta, kMeta));
        EXPECT_EQ(w->bytes_written(), 64u + 16u + kMeta.size());
    }
    std::string expected = file_header(kFormatVersion) + chunk(1, kMeta, kFormatVersion);
    EXPECT_EQ(slurp(path), expected);
    // Spot-check the raw bytes, too: magic, version 2 LE, header size 64 LE.
    std::string got = slurp(path);
    ASSERT_GE(got.size(), 80u);
    EXPECT_EQ(got.substr(0, 8), "IOLENSRC");
    EXPECT_EQ(got.substr(8, 4), std::string("\x02\0\0\0", 4));
    EXPECT_EQ(got.substr(12, 4), std::string("\x40\0\0\0", 4));
    // Required features: RECORDS hold v1 records (bit 0), and may hold runs (bit 1).
    EXPECT_EQ(got.substr(16, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
    EXPECT_EQ(got.substr(24, 40), std::string(40, '\0'));
    EXPECT_EQ(got.substr(64, 4), "CHNK");
    EXPECT_EQ(got.substr(68, 4), std::string("\x01\0\0\0", 4));
}

TEST(RecordingRoundTrip, MetaProcessRecordsEndAreReadBackExactly) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto starts = write_reference(path);
    ASSERT_EQ(starts.size(), 6u);

    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete);
    EXPECT_FALSE(r->stopped);
    EXPECT_EQ(r->problem, "");
    EXPECT_EQ(r->format_version, 2u);
    EXPECT_EQ(r->required_features, kWrittenRequiredFeatures);
    EXPECT_EQ(r->optional_features, 0u);
    EXPECT_EQ(r->file_size, starts.back());
    EXPECT_EQ(r->bytes_read, starts.back());
    EXPECT_EQ(r->file_size, fs::file_size(path));
    ASSERT_EQ(r->chunks.size(), 5u);
    EXPECT_EQ(r->chunks_read, 5u);
    EXPECT_EQ(r->chunks[0].type, ChunkType::Meta);
    EXPECT_EQ(payload_text(r->chunks[0]), kMeta);
    EXPECT_EQ(r->chunks[1].type, ChunkType::Process);
    EXPECT_EQ(payload_text(r->chunks[1]), kProcess);
    EXPECT_EQ(r->chunks[2].type, ChunkType::Records);
    EXPECT_EQ(to_string(r->chunks[2].payload), pattern(40, 1));
    EXPECT_EQ(r->chunks[3].type, ChunkType::Records);
    EXPECT_EQ(to_string(r->chunks[3].payload), pattern(24, 2));
    EXPECT_EQ(r->chunks[4].type, ChunkType::End);
    EXPECT_EQ(payload_text(r->chunks[4]), kEnd);
}

TEST(RecordingRoundTrip, RecordsAreSplitIntoChunksAtFlushBytes) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    std::string all;
    {
        auto w = must_create(path, WriterOptions{.flush_bytes = 100});
        ASSERT_TRUE(w);
        for (uint32_t i = 0; i < 10; ++i) {
            std::string rec = pattern(30, 100 + i);
            all += rec;
            ASSERT_OK(w->append_records(to_bytes(rec)));
        }
        // 4 records (120 bytes) reach flush_bytes; twice; 2 are still buffered.
        EXPECT_EQ(w->bytes_written(), 64u + 2 * (16u + 120u));
        ASSERT_OK(w->flush());
        EXPECT_EQ(w->bytes_written(), 64u + 2 * (16u + 120u) + 16u + 60u);
        ASSERT_OK(w->write_json_chunk(ChunkType::End, "{}"));
    }
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete);
    ASSERT_EQ(r->chunks.size(), 4u);
    std::string joined;
    std::vector<size_t> sizes;
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(r->chunks[i].type, ChunkType::Records);
        sizes.push_back(r->chunks[i].payload.size());
        joined += to_string(r->chunks[i].payload);
    }
    EXPECT_EQ(sizes, (std::vector<size_t>{120, 120, 60}));
    EXPECT_EQ(joined, all);
}

TEST(RecordingRoundTrip, ManyLargeChunksSurviveTheReadBuffer) {
    // Payloads larger than the reader's buffer and at odd sizes, so reads both
    // straddle buffer refills and bypass the buffer.
    TempDir dir;
    auto path = dir.file("big.iolens");
    std::vector<std::string> payloads;
    for (size_t n : {size_t{5} << 20, (size_t{3} << 20) + 7, size_t{1}, (size_t{4} << 20) - 3,
                     size_t{9} << 20, size_t{123457}}) {
        payloads.push_back(pattern(n, static_cast<uint32_t>(n)));
    }
    {
        auto w = must_create(path, WriterOptions{.flush_bytes = 1});  // a chunk per append
        ASSERT_TRUE(w);
        ASSERT_OK(w->write_json_chunk(ChunkType::Meta, kMeta));
        for (const auto& p : payloads) ASSERT_OK(w->append_records(to_bytes(p)));
        ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
        ASSERT_OK(w->close());
    }
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete) << r->problem;
    ASSERT_EQ(r->chunks.size(), payloads.size() + 2);
    for (size_t i = 0; i < payloads.size(); ++i) {
        EXPECT_EQ(r->chunks[i + 1].type, ChunkType::Records);
        EXPECT_TRUE(to_string(r->chunks[i + 1].payload) == payloads[i]) << "chunk " << i + 1;
    }

    size_t seen = 0;
    auto s = read_file_streaming(path, [&](const Chunk& c) {
        if (c.type == ChunkType::Records) {
            EXPECT_TRUE(seen < payloads.size() && to_string(c.payload) == payloads[seen]) << "chunk " << seen;
            ++seen;
        }
        return true;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_TRUE(s->complete);
    EXPECT_TRUE(s->chunks.empty());
    EXPECT_EQ(s->chunks_read, payloads.size() + 2);
    EXPECT_EQ(seen, payloads.size());
}

TEST(RecordingRoundTrip, EmptyJsonChunkRoundTrips) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    {
        auto w = must_create(path);
        ASSERT_TRUE(w);
        ASSERT_OK(w->write_json_chunk(ChunkType::Meta, ""));
        ASSERT_OK(w->write_json_chunk(ChunkType::End, ""));
    }
    EXPECT_EQ(slurp(path),
              file_header(kFormatVersion) + chunk(1, "", kFormatVersion) + chunk(4, "", kFormatVersion));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->complete);
    ASSERT_EQ(r->chunks.size(), 2u);
    EXPECT_TRUE(r->chunks[0].payload.empty());
}

TEST(RecordingWriter, FlushWithNothingBufferedWritesNothing) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto w = must_create(path);
    ASSERT_TRUE(w);
    ASSERT_OK(w->flush());
    ASSERT_OK(w->append_records({}));
    ASSERT_OK(w->flush());
    EXPECT_EQ(w->bytes_written(), 64u);
    EXPECT_EQ(fs::file_size(path), 64u);
}

TEST(RecordingWriter, JsonChunkWritesBufferedRecordsFirst) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    {
        auto w = must_create(path);
        ASSERT_TRUE(w);
        ASSERT_OK(w->write_json_chunk(ChunkType::Meta, kMeta));
        ASSERT_OK(w->append_records(to_bytes(pattern(10, 7))));
        ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
    }
    EXPECT_EQ(slurp(path), file_header(kFormatVersion) + chunk(1, kMeta, kFormatVersion) +
                               chunk(2, pattern(10, 7), kFormatVersion) + chunk(4, kEnd, kFormatVersion));
}

TEST(RecordingWriter, DestructorFlushesBufferedRecords) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    {
        auto w = must_create(path);
        ASSERT_TRUE(w);
        ASSERT_OK(w->append_records(to_bytes(pattern(50, 3))));
        EXPECT_EQ(fs::file_size(path), 64u);  // still buffered
    }
    EXPECT_EQ(slurp(path), file_header(kFormatVersion) + chunk(2, pattern(50, 3), kFormatVersion));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->complete);
    EXPECT_TRUE(Contains(r->problem, "no END chunk"));
    EXPECT_TRUE(Contains(r->problem, "report is partial"));
    ASSERT_EQ(r->chunks.size(), 1u);
}

TEST(RecordingWriter, CloseFlushesAndLaterCallsFail) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto w = must_create(path);
    ASSERT_TRUE(w);
    ASSERT_OK(w->append_records(to_bytes(pattern(20, 4))));
    ASSERT_OK(w->close());
    EXPECT_EQ(fs::file_size(path), 64u + 16u + 20u);
    auto again = w->write_json_chunk(ChunkType::End, kEnd);
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(Contains(again.error().message, path));
    EXPECT_FALSE(w->append_records(to_bytes("x")).ok());
    EXPECT_FALSE(w->close().ok());
    w.reset();  // the destructor must not write or crash after close
    EXPECT_EQ(fs::file_size(path), 64u + 16u + 20u);
}

TEST(RecordingWriter, OversizeAppendIsRefusedWithoutWriting) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto w = must_create(path);
    ASSERT_TRUE(w);
    std::vector<std::byte> huge(size_t{kMaxChunkPayload} + 1);
    auto r = w->append_records(huge);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Contains(r.error().message, path));
    EXPECT_TRUE(Contains(r.error().message, "64 MiB"));
    EXPECT_EQ(fs::file_size(path), 64u);
    // The writer is still usable: nothing reached the file.
    ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
}

TEST(RecordingWriter, ChunkNeverExceedsLimitWhenAppendsAccumulate) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    {
        // flush_bytes above the limit is clamped; two appends that together
        // exceed the limit go in two chunks.
        auto w = must_create(path, WriterOptions{.flush_bytes = size_t{1} << 40});
        ASSERT_TRUE(w);
        std::vector<std::byte> a(kMaxChunkPayload - 10, std::byte{0xa5});
        std::vector<std::byte> b(20, std::byte{0x5a});
        ASSERT_OK(w->append_records(a));
        ASSERT_OK(w->append_records(b));
        ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
    }
    std::vector<size_t> sizes;
    auto r = read_file_streaming(path, [&](const Chunk& c) {
        sizes.push_back(c.payload.size());
        return true;
    });
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete) << r->problem;
    EXPECT_EQ(sizes, (std::vector<size_t>{kMaxChunkPayload - 10, 20, kEnd.size()}));
}

// --- writer: safe creation -------------------------------------------------------

class UmaskGuard {
public:
    explicit UmaskGuard(mode_t m) : old_(::umask(m)) {}
    ~UmaskGuard() { ::umask(old_); }

private:
    mode_t old_;
};

mode_t mode_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode;
}

TEST(RecordingWriter, ModeIs0600WhateverTheUmask) {
    TempDir dir;
    for (mode_t mask : {mode_t{0}, mode_t{022}, mode_t{0277}, mode_t{0777}}) {
        UmaskGuard guard(mask);
        auto path = dir.file("rec-" + std::to_string(mask));
        {
            auto w = must_create(path);
            ASSERT_TRUE(w);
            ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
        }
        mode_t mode = mode_of(path);
        EXPECT_TRUE(S_ISREG(mode));
        EXPECT_EQ(mode & 07777, 0600u) << "umask " << std::oct << mask;
    }
}

TEST(RecordingWriter, ExistingFileIsRefusedWithoutForceAndLeftUntouched) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    spit(path, "precious data");
    ::chmod(path.c_str(), 0644);
    auto w = Writer::create(path, WriterOptions{});
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().message, path + " exists; use -f to replace it");
    EXPECT_EQ(slurp(path), "precious data");
    EXPECT_EQ(mode_of(path) & 07777, 0644u);
}

TEST(RecordingWriter, ForceReplacesAFileWithoutWritingThroughIt) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto other = dir.file("hardlink");
    spit(path, "old contents");
    ASSERT_EQ(::link(path.c_str(), other.c_str()), 0);
    {
        auto w = must_create(path, WriterOptions{.force = true});
        ASSERT_TRUE(w);
        ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
    }
    // A new file: the other name of the old inode keeps its contents.
    EXPECT_EQ(slurp(other), "old contents");
    EXPECT_EQ(slurp(path), file_header(kFormatVersion) + chunk(4, kEnd, kFormatVersion));
    EXPECT_EQ(mode_of(path) & 07777, 0600u);
}

TEST(RecordingWriter, ForceOverSymlinkReplacesTheLinkNotItsTarget) {
    TempDir dir;
    auto target = dir.file("target");
    auto link = dir.file("rec.iolens");
    spit(target, "target contents");
    ::chmod(target.c_str(), 0644);
    ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
    {
        auto w = must_create(link, WriterOptions{.force = true});
        ASSERT_TRUE(w);
        ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
    }
    EXPECT_TRUE(S_ISREG(mode_of(link)));
    EXPECT_EQ(slurp(link), file_header(kFormatVersion) + chunk(4, kEnd, kFormatVersion));
    EXPECT_EQ(slurp(target), "target contents");
    EXPECT_EQ(mode_of(target) & 07777, 0644u);
}

TEST(RecordingWriter, SymlinkWithoutForceIsRefusedEvenWhenDangling) {
    TempDir dir;
    auto target = dir.file("target");
    auto link = dir.file("rec.iolens");
    spit(target, "target contents");
    ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
    auto w = Writer::create(link, WriterOptions{});
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(Contains(w.error().message, "use -f"));
    EXPECT_EQ(slurp(target), "target contents");

    auto missing = dir.file("missing");
    auto dangling = dir.file("dangling");
    ASSERT_EQ(::symlink(missing.c_str(), dangling.c_str()), 0);
    auto w2 = Writer::create(dangling, WriterOptions{});
    ASSERT_FALSE(w2.ok());
    EXPECT_FALSE(fs::exists(fs::symlink_status(missing)));  // never created through the link

    // With force the dangling link is replaced, and its target still not created.
    auto w3 = must_create(dangling, WriterOptions{.force = true});
    ASSERT_TRUE(w3);
    EXPECT_TRUE(S_ISREG(mode_of(dangling)));
    EXPECT_FALSE(fs::exists(fs::symlink_status(missing)));
}

TEST(RecordingWriter, DirectoryIsRefusedWithAndWithoutForce) {
    TempDir dir;
    auto sub = dir.file("sub");
    ASSERT_EQ(::mkdir(sub.c_str(), 0755), 0);
    spit(sub + "/keep", "x");
    for (bool force : {false, true}) {
        auto w = Writer::create(sub, WriterOptions{.force = force});
        ASSERT_FALSE(w.ok()) << "force=" << force;
        EXPECT_TRUE(Contains(w.error().message, sub));
        EXPECT_TRUE(Contains(w.error().message, "is a directory"));
        EXPECT_TRUE(fs::is_directory(sub));
        EXPECT_EQ(slurp(sub + "/keep"), "x");
    }
}

TEST(RecordingWriter, MissingDirectoryErrorNamesPathAndReason) {
    TempDir dir;
    auto path = dir.file("no/such/dir/rec.iolens");
    for (bool force : {false, true}) {
        auto w = Writer::create(path, WriterOptions{.force = force});
        ASSERT_FALSE(w.ok());
        EXPECT_TRUE(Contains(w.error().message, path));
        EXPECT_TRUE(Contains(w.error().message, "No such file or directory"));
    }
    spit(dir.file("plain"), "x");
    auto w = Writer::create(dir.file("plain/rec.iolens"), WriterOptions{});
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(Contains(w.error().message, "Not a directory"));
}

TEST(RecordingWriter, EmptyPathIsRefused) {
    auto w = Writer::create("", WriterOptions{});
    ASSERT_FALSE(w.ok());
    EXPECT_TRUE(Contains(w.error().message, "no file name"));
}

TEST(RecordingWriter, UnwritableDirectoryErrorNamesPathAndReason) {
    TempDir dir;
    auto ro = dir.file("ro");
    ASSERT_EQ(::mkdir(ro.c_str(), 0555), 0);
    ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
    auto path = ro + "/rec.iolens";
    auto check = [&]() -> int {
        for (bool force : {false, true}) {
            auto w = Writer::create(path, WriterOptions{.force = force});
            if (w.ok()) return 2;
            if (w.error().message.find(path) == std::string::npos) return 3;
            if (w.error().message.find("Permission denied") == std::string::npos) return 4;
        }
        return 0;
    };
    if (::geteuid() != 0) {
        EXPECT_EQ(check(), 0);
        return;
    }
    // Root writes anywhere: check as nobody in a child process.
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
        ::_exit(check());
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: created, 3: path not named, 4: reason not given, "
                                         "10: could not drop privileges";
    EXPECT_FALSE(fs::exists(path));
}

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t limit) {
        ::getrlimit(RLIMIT_FSIZE, &old_);
        old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
        struct rlimit now = old_;
        now.rlim_cur = limit;
        ::setrlimit(RLIMIT_FSIZE, &now);
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &old_);
        ::signal(SIGXFSZ, old_handler_);
    }

private:
    struct rlimit old_ {};
    sighandler_t old_handler_;
};

TEST(RecordingWriter, WriteFailureNamesTheFileAndLeavesAReadablePrefix) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto w = must_create(path);
    ASSERT_TRUE(w);
    ASSERT_OK(w->write_json_chunk(ChunkType::Meta, kMeta));
    uint64_t good = w->bytes_written();
    {
        // The next chunk crosses the limit: a partial write, then EFBIG.
        FileSizeLimit limit(good + 30);
        auto r = w->append_records(to_bytes(pattern(200, 9)), 5);
        ASSERT_OK(r);  // buffered only
        auto f = w->flush();
        ASSERT_FALSE(f.ok());
        EXPECT_TRUE(Contains(f.error().message, path));
        EXPECT_TRUE(Contains(f.error().message, "File too large"));
        EXPECT_TRUE(Contains(f.error().message, std::to_string(good)));
    }
    EXPECT_EQ(fs::file_size(path), good);  // the partial chunk was cut off
    EXPECT_EQ(w->bytes_written(), good);
    EXPECT_EQ(w->loss().chunks, 1u);
    EXPECT_EQ(w->loss().bytes, 16u + 200u);
    EXPECT_EQ(w->loss().records, 5u);
    EXPECT_TRUE(Contains(w->loss().error, "File too large"));
    // Space came back: the next chunk goes where the lost one would have been
    // (no hole, no partial chunk before it).
    ASSERT_OK(w->write_json_chunk(ChunkType::End, kEnd));
    ASSERT_OK(w->close());
    w.reset();
    EXPECT_EQ(fs::file_size(path), good + 16 + std::string(kEnd).size());

    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete);
    ASSERT_EQ(r->chunks.size(), 2u);
    EXPECT_EQ(payload_text(r->chunks[0]), kMeta);
    EXPECT_EQ(payload_text(r->chunks[1]), kEnd);
}

// --- reader: not a recording ----------------------------------------------------------

std::string read_error(const std::string& path) {
    auto r = read_file(path);
    EXPECT_FALSE(r.ok()) << path;
    auto s = read_file_streaming(path, [](const Chunk&) { return true; });
    EXPECT_FALSE(s.ok()) << path;
    if (r.ok() || s.ok()) return "";
    EXPECT_EQ(r.error().message, s.error().message);
    return r.error().message;
}

TEST(RecordingReader, MissingFileNamesPathAndReason) {
    TempDir dir;
    auto path = dir.file("nope.iolens");
    auto msg = read_error(path);
    EXPECT_TRUE(Contains(msg, path));
    EXPECT_TRUE(Contains(msg, "No such file or directory"));
}

TEST(RecordingReader, EmptyFileIsNotARecording) {
    TempDir dir;
    auto path = dir.file("empty");
    spit(path, "");
    auto msg = read_error(path);
    EXPECT_TRUE(Contains(msg, path));
    EXPECT_TRUE(Contains(msg, "empty"));
}

TEST(RecordingReader, BadMagicIsNotARecording) {
    TempDir dir;
    auto path = dir.file("bad");
    std::string data = file_header() + chunk(4, kEnd);
    data[0] = 'X';
    spit(path, data);
    auto msg = read_error(path);
    EXPECT_TRUE(Contains(msg, path + " is not an iolens recording"));
}

TEST(RecordingReader, GarbageIsNotARecording) {
    TempDir dir;
    for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{63}, size_t{64}, size_t{4096}}) {
        auto path = dir.file("garbage-" + std::to_string(n));
        spit(path, pattern(n, static_cast<uint32_t>(n)));
        EXPECT_TRUE(Contains(read_error(path), path + " is not an iolens recording"));
    }
    auto text = dir.file("text");
    spit(text, "hello, this is a text file\n");
    EXPECT_TRUE(Contains(read_error(text), "is not an iolens recording"));
}

TEST(RecordingReader, HeaderCutShortIsNotARecording) {
    TempDir dir;
    std::string full = file_header();
    for (size_t n : {size_t{8}, size_t{12}, size_t{40}, size_t{63}}) {
        auto path = dir.file("short-" + std::to_string(n));
        spit(path, full.substr(0, n));
        auto msg = read_error(path);
        EXPECT_TRUE(Contains(msg, path + " is not an iolens recording"));
        EXPECT_TRUE(Contains(msg, "cut short"));
    }
}

TEST(RecordingReader, DirectoryIsRefused) {
    TempDir dir;
    auto msg = read_error(dir.path());
    EXPECT_TRUE(Contains(msg, dir.path()));
    EXPECT_TRUE(Contains(msg, "directory"));
}

TEST(RecordingReader, DevZeroIsRefusedWithoutReadingForever) {
    auto msg = read_error("/dev/zero");
    EXPECT_TRUE(Contains(msg, "/dev/zero is not a regular file"));
}

TEST(RecordingReader, FifoIsRefusedWithoutBlocking) {
    TempDir dir;
    auto path = dir.file("fifo");
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    ::alarm(20);  // opening a FIFO for reading blocks without O_NONBLOCK: fail, not hang
    auto msg = read_error(path);
    ::alarm(0);
    EXPECT_TRUE(Contains(msg, "not a regular file"));
}

TEST(RecordingReader, SymlinkToRecordingIsFollowed) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    write_reference(path);
    auto link = dir.file("link");
    ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
    auto r = read_file(link);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete);
}

TEST(RecordingReader, NewerFormatIsRefusedWithBothVersions) {
    TempDir dir;
    auto path = dir.file("v3");
    spit(path, file_header(3) + chunk(4, kEnd, 3));
    EXPECT_EQ(read_error(path), path +
                                    " was written by a newer iolens (format 3); this iolens "
                                    "reads formats 1 to 2: upgrade iolens to read it");
}

TEST(RecordingReader, EachFormatIsCheckedWithItsOwnCrc) {
    TempDir dir;
    for (uint32_t version : {1u, 2u}) {
        SCOPED_TRACE("format " + std::to_string(version));
        auto path = dir.file("v" + std::to_string(version));
        spit(path, file_header(version) + chunk(1, kMeta, version) + chunk(4, kEnd, version));
        auto r = read_file(path);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_TRUE(r->complete) << r->problem;
        EXPECT_EQ(r->format_version, version);
        // The other format's checksum is a mismatch.
        const uint32_t other = version == 1 ? 2 : 1;
        spit(path, file_header(version) + chunk(1, kMeta, other) + chunk(4, kEnd, version));
        r = read_file(path);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->problem,
                  "corrupt chunk at byte 64 (CRC mismatch): " + std::to_string(16 + kMeta.size()) +
                      " bytes skipped, the chunks after kept: report is partial");
        ASSERT_EQ(r->chunks.size(), 1u);  // the END after it is kept
        EXPECT_EQ(r->chunks[0].type, ChunkType::End);
    }
}

TEST(Crc32c, KnownValuesAndHardwareEqualsPortable) {
    EXPECT_EQ(crc32c(0, "123456789", 9), 0xE3069283u);
    EXPECT_EQ(crc32c_portable(0, "123456789", 9), 0xE3069283u);
    EXPECT_EQ(crc32c(0, nullptr, 0), 0u);
    const std::string zeros(32, '\0');
    EXPECT_EQ(crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720 B.4
    std::mt19937_64 rng(7);
    std::string buf(100'000 + 4, '\0');  // the longest len at the largest off (4) fits
    for (auto& c : buf) c = static_cast<char>(rng());
    for (size_t len : {0u, 1u, 7u, 8u, 9u, 63u, 4096u, 12'288u, 12'295u, 99'999u}) {
        const size_t off = len % 5;  // unaligned starts too
        EXPECT_EQ(crc32c(0, buf.data() + off, len), crc32c_portable(0, buf.data() + off, len)) << len;
        // Continuing from a CRC equals one pass over both parts.
        const uint32_t first = crc32c(0, buf.data(), len / 3);
        EXPECT_EQ(crc32c(first, buf.data() + len / 3, len - len / 3), crc32c(0, buf.data(), len)) << len;
    }
}

TEST(RecordingReader, FormatZeroIsRefused) {
    TempDir dir;
    auto path = dir.file("v0");
    spit(path, file_header(0) + chunk(4, kEnd));
    EXPECT_TRUE(Contains(read_error(path), "format version 0"));
}

TEST(RecordingReader, UnknownRequiredFeaturesAreNamed) {
    TempDir dir;
    auto path = dir.file("features");
    spit(path, file_header(1, 64, kFeatureRecordsV1 | (1ull << 3) | (1ull << 63)) + chunk(4, kEnd));
    auto msg = read_error(path);
    EXPECT_TRUE(Contains(msg, path));
    EXPECT_TRUE(Contains(msg, "required feature bits 3, 63"));
}

TEST(RecordingReader, UnknownOptionalFeaturesAreAccepted) {
    TempDir dir;
    auto path = dir.file("optional");
    spit(path, file_header(1, 64, kFeatureRecordsV1, 0xf0) + chunk(1, kMeta) + chunk(4, kEnd));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete);
    EXPECT_EQ(r->optional_features, 0xf0u);
    EXPECT_EQ(r->chunks.size(), 2u);
}

TEST(RecordingReader, BadHeaderSizeIsRefused) {
    TempDir dir;
    for (uint32_t size : {0u, 63u, 1u << 30}) {
        auto path = dir.file("hs-" + std::to_string(size));
        spit(path, file_header(1, size) + chunk(4, kEnd));
        EXPECT_TRUE(Contains(read_error(path), "header size " + std::to_string(size)));
    }
}

TEST(RecordingReader, LongerHeaderIsSkipped) {
    TempDir dir;
    auto path = dir.file("long-header");
    spit(path, file_header(1, 128) + std::string(64, '\x77') + chunk(1, kMeta) + chunk(4, kEnd));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete) << r->problem;
    ASSERT_EQ(r->chunks.size(), 2u);
    EXPECT_EQ(payload_text(r->chunks[0]), kMeta);

    auto cut = dir.file("long-header-cut");
    spit(cut, file_header(1, 128) + std::string(10, '\x77'));
    EXPECT_TRUE(Contains(read_error(cut), "cut short"));
}

// --- reader: partial recordings ---------------------------------------------------------

TEST(RecordingReader, TruncatedAtEveryByteIsPartialWithTheWholeChunksBeforeIt) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto starts = write_reference(path);
    ASSERT_EQ(starts.size(), 6u);
    std::string full = slurp(path);
    ASSERT_EQ(full.size(), starts.back());
    auto cut = dir.file("cut.iolens");
    for (size_t len = 0; len < full.size(); ++len) {
        SCOPED_TRACE("length " + std::to_string(len));
        spit(cut, full.substr(0, len));
        auto r = read_file(cut);
        uint64_t streamed = 0;
        auto s = read_file_streaming(cut, [&](const Chunk&) {
            ++streamed;
            return true;
        });
        if (len < 64) {
            EXPECT_FALSE(r.ok());
            EXPECT_FALSE(s.ok());
            continue;
        }
        ASSERT_TRUE(r.ok()) << r.error().message;
        ASSERT_TRUE(s.ok()) << s.error().message;
        // Chunks that end at or before len are intact.
        size_t whole = 0;
        while (whole + 1 < starts.size() && starts[whole + 1] <= len) ++whole;
        uint64_t boundary = starts[whole];
        EXPECT_FALSE(r->complete);
        EXPECT_EQ(r->chunks.size(), whole);
        EXPECT_EQ(r->chunks_read, whole);
        EXPECT_EQ(r->bytes_read, boundary);
        EXPECT_EQ(r->file_size, len);
        if (len == boundary) {
            EXPECT_TRUE(Contains(r->problem, "no END chunk"));
        } else {
            EXPECT_EQ(r->problem, "recording is truncated at byte " + std::to_string(boundary) +
                                      " (recorder killed or disk full?): report is partial");
        }
        EXPECT_EQ(s->problem, r->problem);
        EXPECT_EQ(s->chunks_read, whole);
        EXPECT_EQ(streamed, whole);
        EXPECT_FALSE(s->complete);
        // What was read is exact.
        for (size_t i = 0; i < r->chunks.size(); ++i) {
            std::string expected = full.substr(starts[i] + 16, starts[i + 1] - starts[i] - 16);
            EXPECT_EQ(to_string(r->chunks[i].payload), expected) << "chunk " << i;
        }
    }
}

TEST(RecordingReader, FlippedByteIsCorruptAtItsChunk) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto starts = write_reference(path);
    ASSERT_EQ(starts.size(), 6u);
    std::string full = slurp(path);
    auto bad = dir.file("bad.iolens");
    for (size_t pos = 64; pos < full.size(); ++pos) {
        size_t index = 0;
        while (starts[index + 1] <= pos) ++index;
        size_t in_chunk = pos - starts[index];
        // The CRC covers type, size and payload; a damaged size (8..11) may
        // also show up as a truncation or an oversize payload first: only
        // "not complete" is certain there.
        SCOPED_TRACE("byte " + std::to_string(pos) + " (chunk " + std::to_string(index) + ")");
        std::string data = full;
        data[pos] = static_cast<char>(data[pos] ^ 0x10);
        spit(bad, data);
        auto r = read_file(bad);
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_FALSE(r->complete);
        EXPECT_TRUE(Contains(r->problem, "report is partial"));
        // The damaged chunk is skipped and every other one kept: the reader
        // resynchronises on the next intact chunk.
        EXPECT_EQ(r->chunks.size(), starts.size() - 2) << r->problem;
        const bool last = index + 2 == starts.size();
        EXPECT_EQ(r->damaged_regions, last ? 0u : 1u);
        EXPECT_EQ(r->skipped_bytes, last ? 0u : starts[index + 1] - starts[index]);
        // A damaged size may look like anything (the last chunk's, like a truncation).
        if (in_chunk >= 8 && in_chunk < 12) continue;
        EXPECT_TRUE(Contains(r->problem, "corrupt chunk at byte " + std::to_string(starts[index])))
            << r->problem;
        std::string why = in_chunk < 4 ? "bad chunk magic" : "CRC mismatch";
        EXPECT_TRUE(Contains(r->problem, "(" + why + ")")) << r->problem;
    }
}

TEST(RecordingReader, OversizePayloadIsCorruptNotAllocated) {
    TempDir dir;
    auto path = dir.file("oversize");
    std::string huge("CHNK", 4);
    le32(huge, 2);
    le32(huge, 0xfffffff0u);
    le32(huge, 0);
    spit(path, file_header() + chunk(1, kMeta) + huge + std::string(100, 'x'));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->complete);
    ASSERT_EQ(r->chunks.size(), 1u);
    uint64_t at = 64 + 16 + kMeta.size();
    EXPECT_EQ(r->bytes_read, at);
    EXPECT_TRUE(Contains(r->problem, "corrupt chunk at byte " + std::to_string(at)));
    EXPECT_TRUE(Contains(r->problem, "64 MiB"));

    // Under the cap but past the end of the file: truncated, nothing allocated.
    auto path2 = dir.file("past-end");
    std::string big("CHNK", 4);
    le32(big, 2);
    le32(big, 32u << 20);
    le32(big, 0);
    spit(path2, file_header() + big + std::string(100, 'x'));
    auto r2 = read_file(path2);
    ASSERT_TRUE(r2.ok());
    EXPECT_EQ(r2->problem,
              "recording is truncated at byte 64 (recorder killed or disk full?): "
              "report is partial");
}

TEST(RecordingReader, UnknownChunkTypesArePassedThrough) {
    TempDir dir;
    auto path = dir.file("future");
    spit(path, file_header() + chunk(1, kMeta) + chunk(99, "from the future") + chunk(2, pattern(16, 5)) +
                   chunk(0xdeadbeef, "") + chunk(4, kEnd));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->complete) << r->problem;
    ASSERT_EQ(r->chunks.size(), 5u);
    EXPECT_EQ(static_cast<uint32_t>(r->chunks[1].type), 99u);
    EXPECT_EQ(payload_text(r->chunks[1]), "from the future");
    EXPECT_EQ(to_string(r->chunks[2].payload), pattern(16, 5));
    EXPECT_EQ(static_cast<uint32_t>(r->chunks[3].type), 0xdeadbeefu);
    EXPECT_EQ(r->chunks[4].type, ChunkType::End);
}

TEST(RecordingReader, MissingEndIsPartial) {
    TempDir dir;
    auto path = dir.file("no-end");
    spit(path, file_header() + chunk(1, kMeta) + chunk(2, pattern(16, 6)));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->complete);
    EXPECT_EQ(r->chunks.size(), 2u);
    EXPECT_EQ(r->problem, "recording has no END chunk (recorder killed?): report is partial");

    auto header_only = dir.file("header-only");
    spit(header_only, file_header());
    auto h = read_file(header_only);
    ASSERT_TRUE(h.ok());
    EXPECT_FALSE(h->complete);
    EXPECT_TRUE(h->chunks.empty());
    EXPECT_EQ(h->bytes_read, 64u);
}

TEST(RecordingReader, ChunksAfterEndAreReadButNotComplete) {
    TempDir dir;
    auto path = dir.file("after-end");
    std::string head = file_header() + chunk(1, kMeta) + chunk(4, kEnd);
    spit(path, head + chunk(2, pattern(8, 7)));
    auto r = read_file(path);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->complete);
    EXPECT_EQ(r->chunks.size(), 3u);
    EXPECT_TRUE(Contains(r->problem, "after its END chunk (at byte " + std::to_string(head.size())));

    // Trailing garbage after END: not complete either.
    auto path2 = dir.file("end-garbage");
    spit(path2, head + "xy");
    auto r2 = read_file(path2);
    ASSERT_TRUE(r2.ok());
    EXPECT_FALSE(r2->complete);
    EXPECT_EQ(r2->chunks.size(), 2u);
    EXPECT_TRUE(Contains(r2->problem, "truncated at byte " + std::to_string(head.size())));
}

// --- streaming ----------------------------------------------------------------------------

TEST(RecordingStreaming, DeliversTheSameChunksAsReadFile) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    write_reference(path);
    auto all = read_file(path);
    ASSERT_TRUE(all.ok());
    std::vector<Chunk> streamed;
    auto s = read_file_streaming(path, [&](const Chunk& c) {
        streamed.push_back(c);
        return true;
    });
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_TRUE(s->complete);
    EXPECT_TRUE(s->chunks.empty());
    EXPECT_EQ(s->bytes_read, all->bytes_read);
    ASSERT_EQ(streamed.size(), all->chunks.size());
    for (size_t i = 0; i < streamed.size(); ++i) {
        EXPECT_EQ(streamed[i].type, all->chunks[i].type);
        EXPECT_EQ(streamed[i].payload, all->chunks[i].payload);
    }
}

TEST(RecordingStreaming, StopsWhenTheCallbackSaysSo) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto starts = write_reference(path);
    ASSERT_EQ(starts.size(), 6u);
    int calls = 0;
    auto s = read_file_streaming(path, [&](const Chunk&) { return ++calls < 2; });
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(calls, 2);
    EXPECT_TRUE(s->stopped);
    EXPECT_FALSE(s->complete);
    EXPECT_EQ(s->problem, "");
    EXPECT_EQ(s->chunks_read, 2u);
    EXPECT_EQ(s->bytes_read, starts[2]);
    EXPECT_EQ(s->file_size, starts.back());
}

TEST(RecordingReader, ADamagedChunkIsSkippedAndTheEndAfterItKept) {
    TempDir dir;
    auto path = dir.file("rec.iolens");
    auto starts = write_reference(path);
    std::string data = slurp(path);
    // Zero the whole first RECORDS chunk (header included): bad magic there.
    for (uint64_t i = starts[2]; i < starts[3]; ++i) data[i] = '\0';
    spit(path, data);
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->complete);
    ASSERT_EQ(r->chunks.size(), 4u);  // META, PROCESS, the second RECORDS, END
    EXPECT_EQ(r->chunks.back().type, ChunkType::End);
    EXPECT_EQ(r->damaged_regions, 1u);
    EXPECT_EQ(r->skipped_bytes, starts[3] - starts[2]);
    EXPECT_TRUE(
        Contains(r->problem, "corrupt chunk at byte " + std::to_string(starts[2]) + " (bad chunk magic)"));
    EXPECT_TRUE(Contains(r->problem, std::to_string(starts[3] - starts[2]) + " bytes skipped"));
}

TEST(RecordingReader, AFileOfFakeChunkMagicsIsReadInBoundedWork) {
    // Every 16 bytes a chunk header claiming a 4 MiB payload that the file
    // holds, with a wrong checksum: resynchronising checks a bounded amount.
    TempDir dir;
    auto path = dir.file("fake.iolens");
    std::string body;
    while (body.size() < (8u << 20)) {
        std::string h("CHNK", 4);
        le32(h, 2);
        le32(h, 4u << 20);
        le32(h, 0xdeadbeef);
        body += h;
    }
    spit(path, file_header() + chunk(1, kMeta) + body);
    auto r = read_file(path);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->complete);
    EXPECT_EQ(r->chunks.size(), 1u);
    EXPECT_TRUE(Contains(r->problem, "CRC mismatch")) << r->problem;
}

}  // namespace
}  // namespace iolens::recording

TEST(RecordingFormat, DocsListEveryChunkTypeWithItsNumber) {
    const auto doc_path = std::filesystem::path(IOLENS_TEST_DATA_DIR).parent_path().parent_path() / "docs" /
                          "recording-format.md";
    std::ifstream in(doc_path);
    ASSERT_TRUE(in) << "docs/recording-format.md missing";
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    for (const auto& t : iolens::recording::kChunkTypes) {
        const std::string numbered = std::to_string(static_cast<uint32_t>(t.type)) + " " + t.name;
        EXPECT_NE(doc.find(numbered), std::string::npos) << numbered << " missing from the chunk header";
        EXPECT_NE(doc.find(std::string("| ") + t.name + " |"), std::string::npos)
            << t.name << " has no table row";
        EXPECT_EQ(iolens::recording::chunk_type_name(t.type), t.name);
    }
    EXPECT_EQ(iolens::recording::chunk_type_name(static_cast<iolens::recording::ChunkType>(99)), "type 99");
}
