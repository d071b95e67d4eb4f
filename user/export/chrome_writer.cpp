// Chrome trace-event JSON (--format chrome): {"traceEvents":[...]} with one
// event per line, timestamps in microseconds of realtime (three decimals:
// nanoseconds). docs/export.md lists the events.
#include <fmt/format.h>

#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "export/trace.h"

namespace iolens::exports {

namespace {

// Synthetic pids for the tracks that are no process: above any Linux pid
// (pid_max is at most 2^22).
constexpr uint64_t kRankPid = 1ull << 30;
constexpr uint64_t kDevicePid = (1ull << 30) + (1ull << 24);
constexpr uint64_t kNoRankSort = 1ull << 20;

class ChromeWriter final : public TraceWriter {
public:
    ChromeWriter(const TraceContext& ctx, OutStream& out) : ctx_(ctx), out_(out) {}

    void begin() override {
        out_.write("{\"traceEvents\":[\n");
        const auto& ranks = ctx_.report.ranks;
        for (size_t i = 0; i < ranks.size(); ++i) {
            const uint64_t pid = kRankPid + i;
            meta_name("process_name", pid, 0, ctx_.rank_label(static_cast<long>(i)));
            sort_index(pid, i * 2);
            meta_name("thread_name", pid, pid, "epochs");
            const auto& windows = ctx_.attribution.windows(static_cast<long>(i));
            for (size_t k = 0; k < windows.size() && k < ctx_.report.epochs.size(); ++k) {
                const auto& w = windows[k];
                if (w.end_ns <= w.start_ns) continue;
                auto& b = start_event();
                fmt::format_to(std::back_inserter(b),
                               "\"ph\":\"X\",\"cat\":\"epoch\",\"name\":\"epoch {}\",\"pid\":{},\"tid\":{},",
                               ctx_.report.epochs[k].index, pid, pid);
                times(w.start_ns, w.end_ns - w.start_ns);
                fmt::format_to(std::back_inserter(b), ",\"args\":{{\"epoch\":{},\"source\":\"{}\"",
                               ctx_.report.epochs[k].index,
                               model::epoch_source_name(ctx_.report.epochs[k].source));
                if (ctx_.report.epochs[k].marker_number)
                    fmt::format_to(std::back_inserter(b), ",\"marker\":{}",
                                   *ctx_.report.epochs[k].marker_number);
                b.push_back('}');
                end_event();
            }
        }
        uint32_t last = 0;
        for (const auto& p : ctx_.report.processes) {
            if (p.info.pid == last) continue;  // a reused pid: one track
            last = p.info.pid;
            const long rank = ctx_.attribution.rank_index(p.info.pid);
            std::string name = ctx_.rank_label(rank) + ": " + ctx_.process_label(p.info.pid);
            meta_name("process_name", p.info.pid, 0, name);
            sort_index(p.info.pid, rank >= 0 ? static_cast<uint64_t>(rank) * 2 + 1 : kNoRankSort);
        }
    }

    void call(const CallView& c) override {
        const auto& r = c.r;
        thread(r.pid, r.tid);
        auto& b = start_event();
        auto it = std::back_inserter(b);
        const std::string_view cat = c.async() ? (c.path == IOLENS_PATH_AIO ? "aio" : "io_uring")
                                               : (c.path == IOLENS_PATH_COPY ? "copy" : "posix");
        if (c.async()) {
            // A request: no thread waited, and several overlap: async slices.
            const uint64_t id = ++async_id_;
            fmt::format_to(it,
                           "\"ph\":\"b\",\"cat\":\"{}\",\"id\":{},\"name\":\"{} {}\",\"pid\":{},\"tid\":{},",
                           cat, id, cat, model::op_name(r.op), r.pid, r.tid);
            times(r.start_ns);
            call_args(c);
            end_event();
            auto& e = start_event();
            fmt::format_to(std::back_inserter(e),
                           "\"ph\":\"e\",\"cat\":\"{}\",\"id\":{},\"name\":\"{} {}\",\"pid\":{},\"tid\":{},",
                           cat, id, cat, model::op_name(r.op), r.pid, r.tid);
            times(r.start_ns + r.duration_ns);
            end_event();
            return;
        }
        fmt::format_to(it, "\"ph\":\"X\",\"cat\":\"{}\",\"name\":\"{}\",\"pid\":{},\"tid\":{},", cat,
                       c.syscall, r.pid, r.tid);
        times(r.start_ns, r.duration_ns);
        call_args(c);
        end_event();
    }

    void offcpu(const iolens_offcpu_rec& r, long) override {
        thread(r.pid, r.tid);
        auto& b = start_event();
        fmt::format_to(std::back_inserter(b),
                       "\"ph\":\"X\",\"cat\":\"sched\",\"name\":\"off-CPU ({})\",\"pid\":{},\"tid\":{},",
                       r.state & 2 ? 'D' : 'S', r.pid, r.tid);
        times(r.start_ns, r.end_ns - r.start_ns);
        end_event();
    }

    void marker(const iolens_marker_rec& r, std::string_view text, long rank) override {
        const uint64_t pid = rank >= 0 ? kRankPid + static_cast<uint64_t>(rank) : r.pid;
        const uint64_t tid = rank >= 0 ? pid : r.tid;
        auto& b = start_event();
        b.append("\"ph\":\"i\",\"s\":\"t\",\"cat\":\"marker\",\"name\":\"");
        append_json_string(b, text);
        fmt::format_to(std::back_inserter(b), "\",\"pid\":{},\"tid\":{},", pid, tid);
        times(r.ts_ns);
        fmt::format_to(std::back_inserter(b), ",\"args\":{{\"pid\":{},\"tid\":{}}}", r.pid, r.tid);
        end_event();
    }

    void counters(const std::vector<CounterSeries>& series) override {
        std::unordered_map<uint32_t, uint64_t> devices;
        for (const auto& s : series) {
            uint64_t pid;
            if (s.rank >= 0) {
                pid = kRankPid + static_cast<uint64_t>(s.rank);
            } else {
                auto [d, inserted] = devices.try_emplace(s.dev, kDevicePid + devices.size());
                pid = d->second;
                if (inserted) {
                    meta_name("process_name", pid, 0,
                              "block " + recording::device_name(ctx_.report.capture, s.dev));
                    sort_index(pid, kNoRankSort + 1 + devices.size());
                }
            }
            for (const auto& v : s.samples) {
                auto& b = start_event();
                b.append("\"ph\":\"C\",\"name\":\"");
                append_json_string(b, s.name);
                fmt::format_to(std::back_inserter(b), "\",\"pid\":{},", pid);
                times(v.ts);
                fmt::format_to(std::back_inserter(b), ",\"args\":{{\"value\":{:.6g}}}", v.value);
                end_event();
            }
        }
    }

    void end() override { out_.write("\n]}\n"); }

private:
    std::string& start_event() {
        auto& b = out_.buffer();
        b.append(first_ ? "{" : ",\n{");
        first_ = false;
        return b;
    }
    void end_event() {
        out_.buffer().push_back('}');
        ++events_;
        out_.maybe_flush();
    }
    // "ts" (and "dur"): microseconds, three decimals.
    void micros(uint64_t ns) {
        fmt::format_to(std::back_inserter(out_.buffer()), "{}.{:03}", ns / 1000, ns % 1000);
    }
    void times(uint64_t mono) {
        out_.buffer().append("\"ts\":");
        micros(ctx_.to_unix_ns(mono));
    }
    void times(uint64_t mono, uint64_t dur) {
        times(mono);
        out_.buffer().append(",\"dur\":");
        micros(dur);
    }
    void call_args(const CallView& c) {
        const auto& r = c.r;
        auto& b = out_.buffer();
        auto it = std::back_inserter(b);
        b.append(",\"args\":{");
        if (c.file) {
            b.append("\"file\":\"");
            append_json_string(b, *c.file);
            b.append("\",");
        }
        fmt::format_to(it, "\"fd\":{},\"ret\":{},\"requested\":{}", r.fd, r.ret, r.requested);
        if (r.offset != IOLENS_NO_OFFSET) fmt::format_to(it, ",\"offset\":{}", r.offset);
        if (c.async()) fmt::format_to(it, ",\"syscall\":\"{}\"", c.syscall);
        if (c.cache)
            fmt::format_to(it, ",\"cache_hit_bytes\":{},\"cache_miss_bytes\":{},\"readahead_bytes\":{}",
                           c.cache->hit_bytes, c.cache->miss_bytes, c.cache->readahead_bytes);
        if (r.blocked_ns)
            fmt::format_to(it, ",\"blocked_us\":{}.{:03}", r.blocked_ns / 1000, r.blocked_ns % 1000);
        if (c.rank >= 0) fmt::format_to(it, ",\"rank\":{}", ctx_.report.ranks[c.rank].rank);
        if (c.epoch >= 0) fmt::format_to(it, ",\"epoch\":{}", ctx_.report.epochs[c.epoch].index);
        if (c.call_site) {
            b.append(",\"call_site\":\"");
            append_json_string(b, *c.call_site);
            b.push_back('"');
        }
        b.push_back('}');
    }
    void meta_name(const char* what, uint64_t pid, uint64_t tid, const std::string& name) {
        auto& b = start_event();
        fmt::format_to(std::back_inserter(b),
                       "\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"", what, pid,
                       tid);
        append_json_string(b, name);
        b.append("\"}");
        end_event();
    }
    void sort_index(uint64_t pid, uint64_t index) {
        auto& b = start_event();
        fmt::format_to(std::back_inserter(b),
                       "\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_"
                       "index\":{}}}",
                       pid, index);
        end_event();
    }
    void thread(uint32_t pid, uint32_t tid) {
        if (!threads_.insert(uint64_t{pid} << 32 | tid).second) return;
        meta_name("thread_name", pid, tid, tid == pid ? "main" : "thread " + std::to_string(tid));
    }

    const TraceContext& ctx_;
    OutStream& out_;
    bool first_ = true;
    uint64_t async_id_ = 0;
    std::unordered_set<uint64_t> threads_;
};

}  // namespace

std::unique_ptr<TraceWriter> make_chrome_writer(const TraceContext& ctx, OutStream& out) {
    return std::make_unique<ChromeWriter>(ctx, out);
}

}  // namespace iolens::exports
