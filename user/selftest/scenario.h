#pragma once
// The self-test's known I/O, defined once: one table of workers says what each
// does (selftest/workload.cpp performs exactly that, step by step), and the
// figures iolens must report are derived from the same table (figures()), so
// the expected numbers cannot drift from what the workload does.
//
// Three worker processes, forked (never exec'd) by one driver process:
//   A, B  read the warm file `sizes.bin` with read() at several sizes and
//         pread() at an odd size, write their own output file, fsync it, and
//         talk to the driver through pipes (traffic that must not count);
//   C     reads the cold file `cold.bin` (evicted before the run) to EOF;
//   D     writes its own output file and reads it back through an io_uring
//         (IORING_OP_WRITE/READ requests, path io_uring), fsyncs and closes it.
#include <cstdint>
#include <string>
#include <vector>

#include "model/histogram.h"

namespace iolens::selftest {

inline constexpr const char* kWarmFile = "sizes.bin";
inline constexpr const char* kColdFile = "cold.bin";
inline constexpr uint64_t kWarmFileSize = 4ull << 20;
inline constexpr uint64_t kColdFileSize = 2ull << 20;  // page aligned: misses are exactly this
inline constexpr uint64_t kColdChunk = 64ull << 10;

struct ReadRun {
    uint64_t size = 0;  // bytes asked for (and returned: the file is big enough)
    uint64_t count = 0;
    bool positional = false;  // pread() at an odd offset instead of read()
};

// One worker, in the order of its syscalls.
struct WorkerPlan {
    char role = 'A';
    uint64_t pipe_messages = 0;  // first read()s of the driver's data, last write()s to the driver's pipe
    uint64_t pipe_message_size = 0;
    const char* file = kWarmFile;  // opens this file (kWarmFile or kColdFile)
    bool stat_and_rewind = false;  // then fstat()s it and lseek()s back to 0
    std::vector<ReadRun> reads;    // then reads it, run by run
    bool read_to_eof = false;      // then one read() more, which returns 0
    uint64_t write_size = 0;  // write_count > 0: creates out_<role>.bin, write()s it, fsync()s and closes it
    uint64_t write_count = 0;
    bool judge_read_sizes = true;  // whether the read-size histogram is a check of its own
    // Instead of the above: creates out_<role>.bin, writes it write_count x
    // write_size through one io_uring, reads it back (reads: the runs, at
    // offsets inside it) through the ring, fsync()s it and closes it, then
    // the ring's fd. `file` is unused.
    bool via_io_uring = false;
};

// A, B (warm readers), C (cold reader), D (io_uring).
const std::vector<WorkerPlan>& workers();

std::string out_file(char role);  // "out_A.bin"

// What a worker's syscalls add up to, as iolens should count them.
struct Expected {
    uint64_t read_calls = 0, read_bytes = 0;
    uint64_t write_calls = 0, write_bytes = 0;
    uint64_t open_calls = 0, close_calls = 0;
    uint64_t stat_calls = 0, seek_calls = 0, sync_calls = 0;
};
Expected expected(const WorkerPlan& w);
// The sizes of the worker's reads, as iolens's log2 histogram holds them.
model::Histogram expected_read_sizes(const WorkerPlan& w);

// One figure iolens must report, and where in the report it is.
enum class Where {
    WorkloadStatus,  // the driver's exit status (from the run, not the report)
    LostEvents,
    Processes,      // processes in the report
    Parent,         // a worker's parent pid; expected: the driver's, known at run time
    ProcessOp,      // a worker's calls or bytes of one class
    ReadSizes,      // a worker's read-size histogram
    FileOp,         // a file's calls or bytes of one class
    FileCacheHits,  // a file's page-cache hit bytes
    FileCacheMisses,
    BlockReads,  // block-layer read bytes charged to a worker
};
enum class Field { Calls, Bytes };
// What the run must have set up for a figure to mean anything.
enum class Needs { Nothing, WarmCached, ColdEvicted, ColdOnBlockDevice, IoUring };

struct Figure {
    std::string name;      // "A read calls"
    std::string family;    // the probe family whose figure it is
    std::string expected;  // empty for Where::Parent
    Where where = Where::ProcessOp;
    char role = 0;               // the worker (process figures)
    const char* file = nullptr;  // the file (file figures)
    int op = 0;                  // IOLENS_OP_* (ProcessOp, FileOp)
    Field field = Field::Calls;
    Needs needs = Needs::Nothing;
};

// Every figure the self-test checks, in the order it prints them.
const std::vector<Figure>& figures();

// "512:5 4096:16 ..." (power-of-two bucket lower bound : count).
std::string bucket_text(const model::Histogram& h);

}  // namespace iolens::selftest
