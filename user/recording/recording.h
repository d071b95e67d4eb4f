#pragma once
// The recording file: everything `report` needs to rebuild the summary without
// privileges. Layout (all integers little-endian, encoded field by field):
//
//   FileHeader (64 bytes): magic "IOLENSRC" (8 bytes), u32 format version,
//                          u32 header size, u64 required-feature bits,
//                          u64 optional-feature bits, 32 reserved zero bytes.
//   Chunk*:                ChunkHeader {u32 magic "CHNK", u32 type,
//                          u32 payload size, u32 CRC-32C (format 1: CRC-32) of type,
//                          size and payload}
//                          (16 bytes) + payload (at most kMaxChunkPayload).
//
// Chunk types (append-only): kChunkTypes below names and describes each
// (META, RECORDS, PROCESS, END, ENV); docs/recording-format.md lists the same
// (a unit test checks).
// A reader skips chunk types it does not know; it refuses a file whose
// required-feature bits it does not know, naming them.
//
// Crash safety: chunks are appended and flushed as they fill, each with one
// write loop, so a recorder that is killed leaves every chunk written so far
// intact. A corrupt chunk (bad magic, bad checksum, impossible size) is
// skipped: the reader resynchronises on the next chunk magic whose header and
// checksum hold, keeps everything after it (an intact END included) and says
// what it skipped; a truncated last chunk ends the file.
//
// Nothing here needs BPF or privileges. A Writer is not thread-safe.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace iolens::recording {

inline constexpr char kMagic[8] = {'I', 'O', 'L', 'E', 'N', 'S', 'R', 'C'};
// The format written: 2 (chunks checksummed with CRC-32C). Format 1 (zlib's
// CRC-32), the same otherwise, is still read.
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kFileHeaderSize = 64;
// The chunk magic: the bytes "CHNK" on disk (0x4B4E4843 as a little-endian u32).
inline constexpr uint32_t kChunkMagic = 0x4B4E4843u;
inline constexpr uint32_t kChunkHeaderSize = 16;
// Largest payload a chunk may carry. The reader treats a bigger size as
// corruption, so a damaged size field never makes it allocate gigabytes.
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;

// Required features this reader understands (bits; append-only).
inline constexpr uint64_t kFeatureRecordsV1 = 1ull << 0;  // RECORDS chunks hold abi.h v1 records
// RECORDS chunks may hold runs of calls (IOLENS_REC_SYSCALL_RUN): a reader
// that would skip them as an unknown type would lose calls, so it must refuse.
inline constexpr uint64_t kFeatureSyscallRuns = 1ull << 1;
inline constexpr uint64_t kKnownRequiredFeatures = kFeatureRecordsV1 | kFeatureSyscallRuns;
// What the writer sets.
inline constexpr uint64_t kWrittenRequiredFeatures = kFeatureRecordsV1 | kFeatureSyscallRuns;

enum class ChunkType : uint32_t {
    Meta = 1,
    Records = 2,
    Process = 3,
    End = 4,
    // JSON {"pid": N, "vars": {"RANK": "3", ...}}: the rank-related environment
    // variables of a traced process (only those: never the whole environment,
    // which may hold secrets), read from /proc when it starts or at attach.
    Env = 5,
    // JSON (record --stacks, docs/call-sites.md): a traced process's
    // executable mappings, and unwind rules of syscall wrappers, written
    // before the stack records that need them.
    Stacks = 6,
    // JSON (record --stacks): the function names of the stacks' frames, from
    // the files the job mapped, written when recording stops.
    Symbols = 7,
};

struct ChunkTypeInfo {
    ChunkType type;
    const char* name;     // "META", as the docs and messages call it
    const char* payload;  // one line: what it holds
};
inline constexpr ChunkTypeInfo kChunkTypes[] = {
    {ChunkType::Meta, "META", "JSON: the capture as known at start (recording/capture.h)"},
    {ChunkType::Records, "RECORDS", "whole kernel records from iolens/abi.h, copied verbatim"},
    {ChunkType::Process, "PROCESS", "JSON: a process known before its first event"},
    {ChunkType::End, "END", "JSON: what is known at the end: duration, losses, counters, exit status, cost"},
    {ChunkType::Env, "ENV", "JSON: the rank-related environment variables of one process"},
    {ChunkType::Stacks, "STACKS",
     "JSON: a process's executable mappings and wrapper unwind rules (--stacks)"},
    {ChunkType::Symbols, "SYMBOLS", "JSON: function names of the recorded stacks' frames (--stacks)"},
};
// "META", ...; "type N" for a type this reader does not know.
std::string chunk_type_name(ChunkType type);

struct Chunk {
    ChunkType type;  // may hold a value not listed above (a newer writer's type)
    std::vector<std::byte> payload;
};

// The payload as text (META, PROCESS and END chunks hold JSON).
inline std::string_view payload_text(const Chunk& chunk) {
    return {reinterpret_cast<const char*>(chunk.payload.data()), chunk.payload.size()};
}

struct WriterOptions {
    bool force = false;            // replace an existing regular file or symlink (util/output_file.h)
    size_t flush_bytes = 1 << 20;  // RECORDS chunk size that triggers a write
    // Keep the file under a temporary name until commit() (else it gets its
    // name at once): `record` commits once the traced command runs, so a
    // failure before that leaves an old recording intact and no new file.
    bool deferred = false;
    // Shown every chunk as it is written (before the write, so a chunk a full
    // disk loses is still shown): `iolens top` feeds its live model from the
    // same chunks the file gets.
    std::function<void(ChunkType, std::span<const std::byte>)> observer = {};
};

// Writes a recording, through util/output_file.h: a fresh file of mode 0600
// (whatever the umask), never a write through a file or symlink it did not
// create; with force only a regular file or a symlink is replaced.
//
// What failed writes cost (loss()): chunks, their bytes, and the records
// they held as append_records counted them.
struct WriteLoss {
    uint64_t chunks = 0;
    uint64_t bytes = 0;
    uint64_t records = 0;
    std::string error;  // the last failure
};

// After a failed write (disk full, ...) the file is cut back to the last whole
// chunk, so it stays a readable recording; the chunk is lost (counted in
// loss()), and the next one is written where it would have gone: a recorder
// keeps going when space comes back, and its END chunk can say what was lost.
class Writer {
public:
    static Result<std::unique_ptr<Writer>> create(const std::string& path, WriterOptions options);
    ~Writer();  // flushes what is buffered, closes; never throws
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Writes one chunk holding json_text (META, PROCESS, END). Buffered RECORDS
    // are written out first, so chunks reach the file in call order.
    Result<void> write_json_chunk(ChunkType type, const std::string& json_text);
    // Appends whole records (count of them, for loss()) to the current
    // RECORDS chunk, writing it out once it reaches flush_bytes. The records
    // must be complete (never split); a single call may carry at most
    // kMaxChunkPayload bytes.
    Result<void> append_records(std::span<const std::byte> records, uint64_t count = 0);
    // Writes out the buffered RECORDS chunk now (e.g. on a timer). Does nothing
    // when nothing is buffered.
    Result<void> flush();
    // Flushes and closes the file, reporting any error (the destructor can only
    // log). Later calls return an Error. An uncommitted file is removed.
    Result<void> close();
    // Gives the file its name (see WriterOptions::deferred).
    Result<void> commit();
    bool committed() const;
    // After a failed commit: the file stays under its temporary name, returned.
    const std::string& keep_temporary();

    const std::string& path() const;
    // Bytes in the file so far (header and whole chunks; not the buffer).
    uint64_t bytes_written() const;
    const WriteLoss& loss() const;

private:
    Writer() = default;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct ReadOutcome {
    std::vector<Chunk> chunks;  // every intact chunk, in order (read_file only)
    uint64_t chunks_read = 0;   // intact chunks read (also counted when streaming)
    bool complete = false;      // an END chunk was read and nothing followed it
    bool stopped = false;       // read_file_streaming: on_chunk returned false
    std::string problem;        // why reading stopped early or is partial (empty if
                                // complete or stopped by on_chunk)
    uint64_t bytes_read = 0;    // end of the last intact chunk
    // Damaged stretches skipped to resynchronise on the next intact chunk:
    // how many, and their bytes (problem names the first).
    uint64_t damaged_regions = 0;
    uint64_t skipped_bytes = 0;
    uint64_t file_size = 0;
    uint32_t format_version = 0;
    uint64_t required_features = 0;
    uint64_t optional_features = 0;
};

// Reads a recording. Returns an Error when the file cannot be opened or is not
// an iolens recording at all (not a regular file, empty, shorter than the
// header, bad magic, newer format, unknown required features); otherwise the
// chunks it could read and, if it stopped early, why.
Result<ReadOutcome> read_file(const std::string& path);

// Streaming variant for large recordings: calls on_chunk for each chunk as it is
// read, so a 10-million-event file never sits in memory at once. The Chunk
// passed is only valid during the call (its buffer is reused). on_chunk returns
// false to stop (outcome.stopped is then set). outcome.chunks stays empty.
// prepare, if set, sees each chunk first, on the thread that reads ahead
// (while on_chunk works on earlier chunks), in the same order; it may see up
// to a few chunks more than on_chunk when on_chunk stops.
Result<ReadOutcome> read_file_streaming(const std::string& path,
                                        const std::function<bool(const Chunk&)>& on_chunk,
                                        const std::function<void(const Chunk&)>& prepare = {});

}  // namespace iolens::recording
