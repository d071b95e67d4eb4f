#include "selftest/checks.h"

#include <map>
#include <optional>

#include "selftest/scenario.h"

namespace iolens::selftest {

const char* verdict_name(Verdict v)
{
    switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Unavailable: return "UNAVAILABLE";
    }
    return "?";
}

std::string expected_read_buckets(const WorkerPlan& plan)
{
    model::Histogram h;
    for (const auto& r : plan.reads)
        h.add(r.size, r.count);
    return bucket_text(h);
}

std::string bucket_text(const model::Histogram& h)
{
    std::string s;
    for (const auto& b : h.buckets())
        s += (s.empty() ? "" : " ") + std::to_string(b.lo) + ":" + std::to_string(b.count);
    return s.empty() ? "none" : s;
}

namespace {

class Checker {
public:
    Checker(const model::Report& r) : report_(r) {}

    // Why a family's figures cannot be judged here, or nothing.
    std::optional<std::string> missing(const std::string& family) const
    {
        if (recording::probe_live(report_.capture, family))
            return std::nullopt;
        return recording::probe_missing_reason(report_.capture, family);
    }

    void equal(const std::string& name, const std::string& family, const std::string& expected,
               const std::optional<std::string>& got, const std::string& why_missing = "")
    {
        if (auto m = missing(family))
            return unavailable(name, family, *m);
        Check c{name, family, expected, got.value_or("missing"), Verdict::Pass, ""};
        if (!got) {
            c.verdict = Verdict::Fail;
            c.reason = why_missing;
        } else if (*got != expected) {
            c.verdict = Verdict::Fail;
        }
        checks_.push_back(std::move(c));
    }
    void equal(const std::string& name, const std::string& family, uint64_t expected, std::optional<uint64_t> got,
               const std::string& why_missing = "")
    {
        equal(name, family, std::to_string(expected), got ? std::optional(std::to_string(*got)) : std::nullopt,
              why_missing);
    }
    void unavailable(const std::string& name, const std::string& family, const std::string& reason)
    {
        checks_.push_back({name, family, "", "", Verdict::Unavailable, reason});
    }
    void fail(const std::string& name, const std::string& family, const std::string& reason)
    {
        checks_.push_back({name, family, "", "", Verdict::Fail, reason});
    }

    const model::ProcessStats* process(uint32_t pid) const
    {
        for (const auto& p : report_.processes)
            if (p.info.pid == pid)
                return &p;
        return nullptr;
    }
    // By device and inode; by inode alone if the file system reports a
    // different device to stat() than to the kernel walk (btrfs subvolumes).
    const model::FileStats* file(const FileId& id) const
    {
        for (const auto& f : report_.files)
            if (f.ino == id.ino && f.dev == id.dev)
                return &f;
        for (const auto& f : report_.files)
            if (f.ino == id.ino)
                return &f;
        return nullptr;
    }

    // Adds what explains the last check's result, if it has no reason yet.
    void annotate_last(const std::string& reason)
    {
        if (!checks_.empty() && checks_.back().reason.empty())
            checks_.back().reason = reason;
    }

    // The same, only if the last check failed.
    void explain_last_failure(const std::string& reason)
    {
        if (!checks_.empty() && checks_.back().verdict == Verdict::Fail)
            annotate_last(reason);
    }

    std::vector<Check> take() { return std::move(checks_); }

private:
    const model::Report& report_;
    std::vector<Check> checks_;
};

std::optional<uint64_t> op_field(const model::ProcessStats* p, int op, uint64_t model::OpStats::*field)
{
    if (!p)
        return std::nullopt;
    return p->ops[op].*field;
}

void worker_syscalls(Checker& c, const std::string& who, const model::ProcessStats* p, const Expected& e,
                     uint64_t pipe_writes)
{
    const std::string why = "no process " + who + " in the report";
    using S = model::OpStats;
    c.equal(who + " read calls", "syscalls", e.read_calls, op_field(p, IOLENS_OP_READ, &S::calls), why);
    c.equal(who + " read bytes", "syscalls", e.read_bytes, op_field(p, IOLENS_OP_READ, &S::bytes), why);
    c.equal(who + " write calls (" + std::to_string(pipe_writes) + " pipe writes excluded)", "syscalls",
            e.write_calls, op_field(p, IOLENS_OP_WRITE, &S::calls), why);
    c.equal(who + " write bytes", "syscalls", e.write_bytes, op_field(p, IOLENS_OP_WRITE, &S::bytes), why);
    c.equal(who + " open calls", "syscalls", e.open_calls, op_field(p, IOLENS_OP_OPEN, &S::calls), why);
    c.equal(who + " close calls", "syscalls", e.close_calls, op_field(p, IOLENS_OP_CLOSE, &S::calls), why);
    c.equal(who + " stat calls", "syscalls", e.stat_calls, op_field(p, IOLENS_OP_STAT, &S::calls), why);
    c.equal(who + " seek calls", "syscalls", e.seek_calls, op_field(p, IOLENS_OP_SEEK, &S::calls), why);
    c.equal(who + " sync calls", "syscalls", e.sync_calls, op_field(p, IOLENS_OP_SYNC, &S::calls), why);
}

}  // namespace

std::vector<Check> evaluate(const model::Report& report, const RunFacts& f)
{
    Checker c(report);
    const auto& cap = report.capture;

    // The workload itself: if it did not do its plan, no count can be judged.
    c.equal("workload exit status", "process", 0, uint64_t(f.driver_status < 0 ? 255 : f.driver_status));
    std::string lost_detail;  // which counters, so a FAIL says where events went
    for (const auto& [what, n] : cap.lost_detail)
        lost_detail += (lost_detail.empty() ? "" : ", ") + what + " " + std::to_string(n);
    c.equal("events lost", "syscalls", 0, cap.lost_events);
    if (cap.lost_events)
        c.annotate_last(lost_detail);
    c.equal("processes traced (driver + 3 workers)", "process", 4, report.processes.size());

    // Per worker: parent, then every syscall class, exactly.
    std::map<char, const model::ProcessStats*> procs;
    for (char role : {'A', 'B', 'C'}) {
        auto it = f.worker_pid.find(role);
        const model::ProcessStats* p = it == f.worker_pid.end() ? nullptr : c.process(it->second);
        procs[role] = p;
        c.equal(std::string(1, role) + " parent is the driver", "process", f.driver_pid,
                p ? std::optional<uint64_t>(p->info.ppid) : std::nullopt,
                "worker " + std::string(1, role) + " not in the report");
    }
    for (const auto& w : warm_workers()) {
        const std::string who(1, w.role);
        worker_syscalls(c, who, procs[w.role], expected_warm(w), w.pipe_messages);
        c.equal(who + " read sizes (log2 bucket:count)", "syscalls", expected_read_buckets(w),
                procs[w.role] ? std::optional(bucket_text(procs[w.role]->ops[IOLENS_OP_READ].size_bytes))
                              : std::nullopt,
                "worker " + who + " not in the report");
    }
    worker_syscalls(c, "C", procs['C'], expected_cold(), kColdPipeMessages);

    // Per file: the warm file was read by A and B together.
    Expected ab;
    for (const auto& w : warm_workers()) {
        auto e = expected_warm(w);
        ab.read_calls += e.read_calls;
        ab.read_bytes += e.read_bytes;
    }
    const model::FileStats* warm = c.file(f.prepared.warm);
    const model::FileStats* cold = c.file(f.prepared.cold);
    auto fop = [](const model::FileStats* file, int op, uint64_t model::OpStats::*field) -> std::optional<uint64_t> {
        return file ? std::optional<uint64_t>(file->ops[op].*field) : std::nullopt;
    };
    const std::string no_warm = std::string(kWarmFile) + " not in the report";
    const std::string no_cold = std::string(kColdFile) + " not in the report";
    c.equal("sizes.bin read calls", "syscalls", ab.read_calls, fop(warm, IOLENS_OP_READ, &model::OpStats::calls), no_warm);
    c.equal("sizes.bin read bytes", "syscalls", ab.read_bytes, fop(warm, IOLENS_OP_READ, &model::OpStats::bytes), no_warm);
    c.equal("cold.bin read bytes", "syscalls", kColdFileSize, fop(cold, IOLENS_OP_READ, &model::OpStats::bytes), no_cold);

    // Page cache: the warm file was wholly cached, so every byte read is a
    // hit; the cold one was evicted, so every page is a miss.
    if (f.warm_before.resident != f.warm_before.total) {
        const std::string why = "sizes.bin was not wholly cached before the run (" +
                                std::to_string(f.warm_before.resident) + "/" + std::to_string(f.warm_before.total) +
                                " pages): memory pressure?";
        c.unavailable("sizes.bin page-cache hit bytes", "pagecache", why);
        c.unavailable("sizes.bin page-cache miss bytes", "pagecache", why);
    } else {
        c.equal("sizes.bin page-cache hit bytes", "pagecache", ab.read_bytes,
                warm ? std::optional<uint64_t>(warm->page_cache.hit_bytes) : std::nullopt, no_warm);
        c.equal("sizes.bin page-cache miss bytes", "pagecache", 0,
                warm ? std::optional<uint64_t>(warm->page_cache.miss_bytes) : std::nullopt, no_warm);
    }
    std::string cold_why;
    if (f.prepared.storage.memory_backed)
        cold_why = f.prepared.dir + " is on " + f.prepared.storage.fs_type +
                   ": its pages cannot be evicted, so there is no cold read (use --dir on a disk)";
    else if (f.cold_before.resident != 0)
        cold_why = "cold.bin could not be evicted from the page cache (" + std::to_string(f.cold_before.resident) +
                   "/" + std::to_string(f.cold_before.total) + " pages still cached)";
    if (!cold_why.empty()) {
        c.unavailable("cold.bin page-cache miss bytes", "pagecache", cold_why);
        c.unavailable("C block read bytes", "block", cold_why);
        return c.take();
    }
    c.equal("cold.bin page-cache miss bytes", "pagecache", kColdFileSize,
            cold ? std::optional<uint64_t>(cold->page_cache.miss_bytes) : std::nullopt, no_cold);
    c.equal("cold.bin page-cache hit bytes", "pagecache", 0,
            cold ? std::optional<uint64_t>(cold->page_cache.hit_bytes) : std::nullopt, no_cold);
    if (!f.prepared.storage.block_device)
        c.unavailable("C block read bytes", "block", f.prepared.storage.no_block_reason);
    else {
        c.equal("C block read bytes", "block", kColdFileSize,
                procs['C'] ? std::optional<uint64_t>(procs['C']->block.read_bytes) : std::nullopt,
                "worker C not in the report");
        // Bytes missing from C went to nobody or to someone else: say which,
        // so a FAIL points at attribution rather than at missing requests.
        const auto& none = report.block_unattributed;
        c.explain_last_failure("block reads charged to no tracked process during the run: " +
                        std::to_string(none.read_bytes) + " bytes in " + std::to_string(none.requests) +
                        " requests (of every op)");
    }
    return c.take();
}

}  // namespace iolens::selftest
