// DFTracer's trace format, generation 1 (--format dftracer): "[" then one
// JSON object per line, no commas, then "]"; what DFAnalyzer reads
// (docs/export.md has the fields and why).
#include <fmt/format.h>

#include <iterator>
#include <unordered_set>

#include "export/trace.h"

namespace iolens::exports {

namespace {

class DfTracerWriter final : public TraceWriter {
public:
    DfTracerWriter(const TraceContext& ctx, OutStream& out)
        : ctx_(ctx), out_(out), hhash_(fnv1a64(ctx.report.capture.hostname)) {}

    void begin() override {
        out_.write("[\n");
        const uint32_t pid = ctx_.report.processes.empty() ? 0 : ctx_.report.processes.front().info.pid;
        metadata("HH", pid, pid, ctx_.report.capture.hostname, hhash_);
        // Any other metadata name is "other metadata" to DFAnalyzer: harmless.
        auto& b = line();
        fmt::format_to(
            std::back_inserter(b),
            "\"name\":\"IOLENS\",\"cat\":\"dftracer\",\"pid\":{},\"tid\":{},\"ph\":\"M\",\"args\":{{"
            "\"hhash\":{},\"name\":\"schema\",\"value\":\"iolens-1\"}}}}\n",
            pid, pid, hhash_);
        ++events_;
        // Epochs: one event per rank and epoch, on the rank's first root
        // process, outside POSIX (cat iolens_epoch), so never counted as I/O.
        const auto& ranks = ctx_.report.ranks;
        for (size_t i = 0; i < ranks.size(); ++i) {
            const uint32_t root = !ranks[i].root_pids.empty() ? ranks[i].root_pids.front()
                                  : !ranks[i].pids.empty()    ? ranks[i].pids.front()
                                                              : 0;
            const auto& windows = ctx_.attribution.windows(static_cast<long>(i));
            for (size_t k = 0; k < windows.size() && k < ctx_.report.epochs.size(); ++k) {
                const auto& w = windows[k];
                const uint64_t ts = ctx_.to_unix_ns(w.start_ns) / 1000;
                auto& e = line();
                fmt::format_to(
                    std::back_inserter(e),
                    "\"name\":\"epoch\",\"cat\":\"iolens_epoch\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},"
                    "\"ph\":\"X\",\"args\":{{\"hhash\":{},\"epoch\":{},\"rank\":{},\"level\":1}}}}\n",
                    root, root, ts, ctx_.to_unix_ns(w.end_ns) / 1000 - ts, hhash_,
                    ctx_.report.epochs[k].index, ranks[i].rank);
                ++events_;
            }
        }
    }

    void call(const CallView& c) override {
        const auto& r = c.r;
        if (c.file && files_.insert(c.file_hash).second) metadata("FH", r.pid, r.tid, *c.file, c.file_hash);
        const uint64_t ts = ctx_.to_unix_ns(r.start_ns) / 1000;
        auto& b = line();
        auto it = std::back_inserter(b);
        fmt::format_to(
            it,
            "\"name\":\"{}\",\"cat\":\"POSIX\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"ph\":\"X\","
            "\"args\":{{\"hhash\":{}",
            c.dftracer_name, r.pid, r.tid, ts, r.duration_ns / 1000, hhash_);
        if (c.file) fmt::format_to(it, ",\"fhash\":{}", c.file_hash);
        fmt::format_to(it, ",\"fd\":{},\"ret\":{},\"count\":{}", r.fd, r.ret, r.requested);
        if (r.offset != IOLENS_NO_OFFSET) fmt::format_to(it, ",\"offset\":{}", r.offset);
        b.append(",\"level\":1");
        if (c.epoch >= 0) fmt::format_to(it, ",\"epoch\":{}", ctx_.report.epochs[c.epoch].index);
        if (c.rank >= 0) fmt::format_to(it, ",\"rank\":{}", ctx_.report.ranks[c.rank].rank);
        fmt::format_to(it, ",\"syscall\":\"{}\"", c.syscall);
        if (c.path != IOLENS_PATH_SYSCALL) fmt::format_to(it, ",\"path\":\"{}\"", model::path_name(c.path));
        if (c.cache)
            fmt::format_to(it, ",\"pc_hit_bytes\":{},\"pc_miss_bytes\":{},\"pc_readahead_bytes\":{}",
                           c.cache->hit_bytes, c.cache->miss_bytes, c.cache->readahead_bytes);
        if (r.blocked_ns) fmt::format_to(it, ",\"blk_ns\":{}", r.blocked_ns);
        b.append("}}\n");
        ++events_;
        out_.maybe_flush();
    }

    // Off-CPU waits, markers and counters are Perfetto's and Chrome's: in a
    // .pfw, DFAnalyzer would count them as events of their own.
    void offcpu(const iolens_offcpu_rec&, long) override {}
    void marker(const iolens_marker_rec&, std::string_view, long) override {}
    void counters(const std::vector<CounterSeries>&) override {}

    void end() override { out_.write("]\n"); }

private:
    std::string& line() {
        auto& b = out_.buffer();
        fmt::format_to(std::back_inserter(b), "{{\"id\":{},", ++id_);
        return b;
    }
    void metadata(const char* name, uint32_t pid, uint32_t tid, const std::string& text, uint64_t value) {
        auto& b = line();
        fmt::format_to(
            std::back_inserter(b),
            "\"name\":\"{}\",\"cat\":\"dftracer\",\"pid\":{},\"tid\":{},\"ph\":\"M\",\"args\":{{\"hhash\":{},"
            "\"name\":\"",
            name, pid, tid, hhash_);
        append_json_string(b, text);
        fmt::format_to(std::back_inserter(b), "\",\"value\":{}}}}}\n", value);
        ++events_;
    }

    const TraceContext& ctx_;
    OutStream& out_;
    const uint64_t hhash_;
    uint64_t id_ = 0;
    std::unordered_set<uint64_t> files_;
};

}  // namespace

std::unique_ptr<TraceWriter> make_dftracer_writer(const TraceContext& ctx, OutStream& out) {
    return std::make_unique<DfTracerWriter>(ctx, out);
}

}  // namespace iolens::exports
