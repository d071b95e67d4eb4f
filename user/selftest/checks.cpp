#include "selftest/checks.h"

#include <optional>
#include <string_view>

namespace iolens::selftest {

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::Pass:
            return "PASS";
        case Verdict::Fail:
            return "FAIL";
        case Verdict::Unavailable:
            return "UNAVAILABLE";
    }
    return "?";
}

namespace {

// What the report says about one figure.
struct Reading {
    std::optional<std::string> got;  // nothing: the report lacks what holds the figure
    std::string why_missing;         // then: what it lacks
    std::string if_wrong;            // what explains a wrong figure, where something can
};

// Reads figures off one report.
class Reader {
public:
    Reader(const model::Report& r, const RunFacts& f) : report_(r), facts_(f) {}

    Reading read(const Figure& fig) const {
        switch (fig.where) {
            case Where::WorkloadStatus:
                return number(uint64_t(facts_.driver_status < 0 ? 255 : facts_.driver_status));
            case Where::LostEvents:
                return {std::to_string(report_.capture.lost_events), "", lost_detail()};
            case Where::Processes:
                return number(report_.processes.size());
            case Where::Parent:
                return of_worker(fig.role,
                                 [](const model::ProcessStats& p) { return uint64_t(p.info.ppid); });
            case Where::ReadSizes:
                if (auto* p = process(fig.role)) return {bucket_text(p->ops[IOLENS_OP_READ].size_bytes)};
                return missing_worker(fig.role);
            case Where::ProcessOp:
                if (auto* p = process(fig.role)) return number(op_value(p->ops[fig.op], fig.field));
                return {std::nullopt, "no process " + std::string(1, fig.role) + " in the report"};
            case Where::FileOp:
                return of_file(fig.file,
                               [&](const model::FileStats& f) { return op_value(f.ops[fig.op], fig.field); });
            case Where::FileCacheHits:
                return of_file(fig.file, [](const model::FileStats& f) { return f.page_cache.hit_bytes; });
            case Where::FileCacheMisses:
                return of_file(fig.file, [](const model::FileStats& f) { return f.page_cache.miss_bytes; });
            case Where::BlockReads: {
                auto r = of_worker(fig.role, [](const model::ProcessStats& p) { return p.block.read_bytes; });
                // Bytes missing from the worker went to nobody or to someone else:
                // say which, so a FAIL points at attribution rather than at
                // missing requests.
                const auto& none = report_.block_unattributed;
                r.if_wrong = "block reads charged to no tracked process during the run: " +
                             std::to_string(none.read_bytes) + " bytes in " + std::to_string(none.requests) +
                             " requests (of every op)";
                return r;
            }
        }
        return {std::nullopt, "no such figure"};
    }

    // Why a figure cannot mean anything in this run, or nothing.
    std::optional<std::string> unmet(Needs needs) const {
        const auto& f = facts_;
        switch (needs) {
            case Needs::Nothing:
                return std::nullopt;
            case Needs::WarmCached:
                if (f.warm_before.resident == f.warm_before.total) return std::nullopt;
                return std::string(kWarmFile) + " was not wholly cached before the run (" +
                       std::to_string(f.warm_before.resident) + "/" + std::to_string(f.warm_before.total) +
                       " pages): memory pressure?";
            case Needs::ColdEvicted:
            case Needs::ColdOnBlockDevice:
                if (f.prepared.storage.memory_backed)
                    return f.prepared.dir + " is on " + f.prepared.storage.fs_type +
                           ": its pages cannot be evicted, so there is no cold read (use --dir on a disk)";
                if (f.cold_before.resident != 0)
                    return std::string(kColdFile) + " could not be evicted from the page cache (" +
                           std::to_string(f.cold_before.resident) + "/" +
                           std::to_string(f.cold_before.total) + " pages still cached)";
                if (needs == Needs::ColdOnBlockDevice && !f.prepared.storage.block_device)
                    return f.prepared.storage.no_block_reason;
                return std::nullopt;
            case Needs::IoUring:
                if (f.io_uring_unusable.empty()) return std::nullopt;
                return f.io_uring_unusable;
        }
        return std::nullopt;
    }

    // Why a family's figures cannot be judged here, or nothing.
    std::optional<std::string> missing(const std::string& family) const {
        if (recording::probe_live(report_.capture, family)) return std::nullopt;
        return recording::probe_missing_reason(report_.capture, family);
    }

private:
    static Reading number(uint64_t v) { return {std::to_string(v)}; }
    static uint64_t op_value(const model::OpStats& s, Field field) {
        return field == Field::Calls ? s.calls : s.bytes;
    }
    static Reading missing_worker(char role) {
        return {std::nullopt, "worker " + std::string(1, role) + " not in the report"};
    }

    const model::ProcessStats* process(char role) const {
        auto it = facts_.worker_pid.find(role);
        if (it == facts_.worker_pid.end()) return nullptr;
        for (const auto& p : report_.processes)
            if (p.info.pid == it->second) return &p;
        return nullptr;
    }
    template <typename Value>
    Reading of_worker(char role, Value value) const {
        if (auto* p = process(role)) return number(value(*p));
        return missing_worker(role);
    }

    // By device and inode; by inode alone if the file system reports a
    // different device to stat() than to the kernel walk (btrfs subvolumes).
    const model::FileStats* file(const char* name) const {
        const FileId& id = std::string_view(name) == kWarmFile ? facts_.prepared.warm : facts_.prepared.cold;
        for (const auto& f : report_.files)
            if (f.ino == id.ino && f.dev == id.dev) return &f;
        for (const auto& f : report_.files)
            if (f.ino == id.ino) return &f;
        return nullptr;
    }
    template <typename Value>
    Reading of_file(const char* name, Value value) const {
        if (auto* f = file(name)) return number(value(*f));
        return {std::nullopt, std::string(name) + " not in the report"};
    }

    // Which counters lost events, so a FAIL says where they went.
    std::string lost_detail() const {
        std::string s;
        for (const auto& [what, n] : report_.capture.lost_detail)
            s += (s.empty() ? "" : ", ") + what + " " + std::to_string(n);
        return s;
    }

    const model::Report& report_;
    const RunFacts& facts_;
};

Check judge(const Reader& reader, const Figure& fig, const RunFacts& facts) {
    if (auto why = reader.unmet(fig.needs)) return {fig.name, fig.family, "", "", Verdict::Unavailable, *why};
    if (auto why = reader.missing(fig.family))
        return {fig.name, fig.family, "", "", Verdict::Unavailable, *why};
    const std::string expected = fig.where == Where::Parent ? std::to_string(facts.driver_pid) : fig.expected;
    const Reading r = reader.read(fig);
    if (!r.got) return {fig.name, fig.family, expected, "missing", Verdict::Fail, r.why_missing};
    if (*r.got != expected) return {fig.name, fig.family, expected, *r.got, Verdict::Fail, r.if_wrong};
    return {fig.name, fig.family, expected, *r.got, Verdict::Pass, ""};
}

}  // namespace

std::vector<Check> evaluate(const model::Report& report, const RunFacts& facts) {
    const Reader reader(report, facts);
    std::vector<Check> checks;
    for (const auto& fig : figures()) checks.push_back(judge(reader, fig, facts));
    return checks;
}

std::vector<Check> load_checks(const std::map<std::string, bool>& planned,
                               const std::vector<recording::ProbeStatus>& probes) {
    std::vector<Check> out;
    for (const auto& p : probes) {
        auto it = planned.find(p.name);
        if (it == planned.end() || !it->second) continue;
        Check c{p.name + " probe loads and attaches",
                p.name,
                "attached",
                p.attached ? "attached" : "not attached",
                p.attached ? Verdict::Pass : Verdict::Fail,
                ""};
        if (!p.attached) c.reason = "`iolens check` plans it on this kernel, but: " + p.reason;
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace iolens::selftest
