#include "selftest/scenario.h"

#include <string_view>

#include "iolens/abi.h"

namespace iolens::selftest {

const std::vector<WorkerPlan>& workers() {
    // A and B read sizes in four log2 buckets (4 KiB, 64 KiB, 1 MiB, and an
    // odd size that is neither page aligned nor a power of two), different
    // per worker so a read charged to the wrong process shows. C reads all of
    // the cold file in one size; its histogram says nothing its calls do not.
    static const std::vector<WorkerPlan> plans = {
        {.role = 'A',
         .pipe_messages = 10,
         .pipe_message_size = 64,
         .file = kWarmFile,
         .stat_and_rewind = true,
         .reads = {{4096, 16, false}, {65536, 4, false}, {1ull << 20, 2, false}, {1000, 5, true}},
         .write_size = 8192,
         .write_count = 3},
        {.role = 'B',
         .pipe_messages = 4,
         .pipe_message_size = 200,
         .file = kWarmFile,
         .stat_and_rewind = true,
         .reads = {{4096, 7, false}, {65536, 3, false}, {1ull << 20, 1, false}, {12345, 3, true}},
         .write_size = 4096,
         .write_count = 2},
        {.role = 'C',
         .pipe_messages = 3,
         .pipe_message_size = 32,
         .file = kColdFile,
         .reads = {{kColdChunk, kColdFileSize / kColdChunk, false}},
         .read_to_eof = true,
         .judge_read_sizes = false},
        {.role = 'D',
         .pipe_messages = 2,
         .pipe_message_size = 100,
         .file = "",
         .reads = {{65536, 3, true}, {4096, 9, true}},
         .write_size = 65536,
         .write_count = 4,
         .via_io_uring = true},
    };
    return plans;
}

std::string out_file(char role) { return std::string("out_") + role + ".bin"; }

Expected expected(const WorkerPlan& w) {
    Expected e;
    for (const auto& r : w.reads) {
        e.read_calls += r.count;
        e.read_bytes += r.size * r.count;
    }
    e.read_calls += w.read_to_eof ? 1 : 0;
    e.write_calls = w.write_count;
    e.write_bytes = w.write_size * w.write_count;
    const bool writes = w.write_count > 0;
    if (w.via_io_uring) {
        e.open_calls = 1;                  // out_<role>.bin
        e.close_calls = e.open_calls + 3;  // it, the ring's fd and the two pipe ends (close counts every fd)
        e.sync_calls = 1;
        return e;
    }
    e.open_calls = writes ? 2 : 1;     // the file it reads, and out_<role>.bin
    e.close_calls = e.open_calls + 2;  // those, and the worker's two pipe ends (close counts every fd)
    e.stat_calls = w.stat_and_rewind ? 1 : 0;  // fstat of the file it reads
    e.seek_calls = w.stat_and_rewind ? 1 : 0;  // lseek back to 0 before the reads
    e.sync_calls = writes ? 1 : 0;             // fsync of out_<role>.bin
    return e;
}

model::Histogram expected_read_sizes(const WorkerPlan& w) {
    model::Histogram h;
    for (const auto& r : w.reads) h.add(r.size, r.count);
    if (w.read_to_eof) h.add(0);
    return h;
}

std::string bucket_text(const model::Histogram& h) {
    std::string s;
    for (const auto& b : h.buckets())
        s += (s.empty() ? "" : " ") + std::to_string(b.lo) + ":" + std::to_string(b.count);
    return s.empty() ? "none" : s;
}

namespace {

// The syscall classes every worker is judged on, in the order printed.
struct ClassFigure {
    const char* label;  // after the role: "read calls"
    int op;
    Field field;
    uint64_t Expected::*value;
};
constexpr ClassFigure kClassFigures[] = {
    {"read calls", IOLENS_OP_READ, Field::Calls, &Expected::read_calls},
    {"read bytes", IOLENS_OP_READ, Field::Bytes, &Expected::read_bytes},
    {"write calls", IOLENS_OP_WRITE, Field::Calls, &Expected::write_calls},
    {"write bytes", IOLENS_OP_WRITE, Field::Bytes, &Expected::write_bytes},
    {"open calls", IOLENS_OP_OPEN, Field::Calls, &Expected::open_calls},
    {"close calls", IOLENS_OP_CLOSE, Field::Calls, &Expected::close_calls},
    {"stat calls", IOLENS_OP_STAT, Field::Calls, &Expected::stat_calls},
    {"seek calls", IOLENS_OP_SEEK, Field::Calls, &Expected::seek_calls},
    {"sync calls", IOLENS_OP_SYNC, Field::Calls, &Expected::sync_calls},
};

void worker_figures(std::vector<Figure>& out, const WorkerPlan& w) {
    const std::string who(1, w.role);
    const Expected e = expected(w);
    // A ring's reads and writes are the io_uring family's figures; the
    // worker's other calls are syscalls, judged only where it could make a
    // ring (else it skips its ring and its counts are moot).
    const Needs needs = w.via_io_uring ? Needs::IoUring : Needs::Nothing;
    const auto family = [&](int op) {
        return w.via_io_uring && (op == IOLENS_OP_READ || op == IOLENS_OP_WRITE) ? "io_uring" : "syscalls";
    };
    for (const auto& c : kClassFigures) {
        std::string name = who + " " + c.label;
        if (w.via_io_uring && family(c.op) == std::string_view("io_uring")) name += " (io_uring requests)";
        if (c.op == IOLENS_OP_WRITE && c.field == Field::Calls)
            name += " (" + std::to_string(w.pipe_messages) + " pipe writes excluded)";
        out.push_back({name, family(c.op), std::to_string(e.*c.value), Where::ProcessOp, w.role, nullptr,
                       c.op, c.field, needs});
    }
    if (w.judge_read_sizes)
        out.push_back({who + " read sizes (log2 bucket:count)", family(IOLENS_OP_READ),
                       bucket_text(expected_read_sizes(w)), Where::ReadSizes, w.role, nullptr, 0,
                       Field::Calls, needs});
}

// What the workers read of one file, together.
struct FileReads {
    uint64_t calls = 0, bytes = 0;
};
FileReads reads_of(const char* file) {
    FileReads r;
    for (const auto& w : workers())
        if (std::string_view(w.file) == file) {
            r.calls += expected(w).read_calls;
            r.bytes += expected(w).read_bytes;
        }
    return r;
}

std::vector<Figure> build_figures() {
    const auto& ws = workers();
    std::vector<Figure> f;
    // The workload itself: if it did not do its plan, no count can be judged.
    f.push_back({"workload exit status", "process", "0", Where::WorkloadStatus});
    f.push_back({"events lost", "syscalls", "0", Where::LostEvents});
    f.push_back({"processes traced (driver + " + std::to_string(ws.size()) + " workers)", "process",
                 std::to_string(ws.size() + 1), Where::Processes});
    // Per worker: parent, then every syscall class, exactly.
    for (const auto& w : ws)
        f.push_back({std::string(1, w.role) + " parent is the driver", "process", "", Where::Parent, w.role});
    for (const auto& w : ws) worker_figures(f, w);

    // Per file: the warm file was read by A and B together, the cold one by C.
    const FileReads warm = reads_of(kWarmFile), cold = reads_of(kColdFile);
    auto file_figure = [](const char* file, const char* what, const char* family, uint64_t expected,
                          Where where, Field field, Needs needs) {
        return Figure{std::string(file) + " " + what,
                      family,
                      std::to_string(expected),
                      where,
                      0,
                      file,
                      IOLENS_OP_READ,
                      field,
                      needs};
    };
    f.push_back(file_figure(kWarmFile, "read calls", "syscalls", warm.calls, Where::FileOp, Field::Calls,
                            Needs::Nothing));
    f.push_back(file_figure(kWarmFile, "read bytes", "syscalls", warm.bytes, Where::FileOp, Field::Bytes,
                            Needs::Nothing));
    f.push_back(file_figure(kColdFile, "read bytes", "syscalls", cold.bytes, Where::FileOp, Field::Bytes,
                            Needs::Nothing));

    // Page cache: the warm file was wholly cached, so every byte read is a
    // hit; the cold one was evicted, so every page is a miss (its reads cover
    // it whole, and it is page aligned).
    f.push_back(file_figure(kWarmFile, "page-cache hit bytes", "pagecache", warm.bytes, Where::FileCacheHits,
                            Field::Bytes, Needs::WarmCached));
    f.push_back(file_figure(kWarmFile, "page-cache miss bytes", "pagecache", 0, Where::FileCacheMisses,
                            Field::Bytes, Needs::WarmCached));
    f.push_back(file_figure(kColdFile, "page-cache miss bytes", "pagecache", cold.bytes,
                            Where::FileCacheMisses, Field::Bytes, Needs::ColdEvicted));
    f.push_back(file_figure(kColdFile, "page-cache hit bytes", "pagecache", 0, Where::FileCacheHits,
                            Field::Bytes, Needs::ColdEvicted));
    // Block layer: each cold reader submitted the reads of its misses.
    for (const auto& w : ws)
        if (std::string_view(w.file) == kColdFile)
            f.push_back({std::string(1, w.role) + " block read bytes", "block",
                         std::to_string(expected(w).read_bytes), Where::BlockReads, w.role, nullptr, 0,
                         Field::Bytes, Needs::ColdOnBlockDevice});
    return f;
}

}  // namespace

const std::vector<Figure>& figures() {
    static const std::vector<Figure> all = build_figures();
    return all;
}

}  // namespace iolens::selftest
