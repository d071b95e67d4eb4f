// iolens-synth-recording: writes a valid recording of a synthetic
// deep-learning job, for measuring `iolens report` on recordings far bigger
// than a test machine can capture quickly (issue #5: 10 million events).
//
// The job: a launcher (pid 1000) starts R rank processes, each with RANK,
// LOCAL_RANK and WORLD_SIZE in its environment (ENV chunks, as record writes
// them). Each epoch every rank forks W DataLoader workers that read the F
// dataset files in a shuffled order (open, fstat, reads of a few sizes,
// close), then exit; the rank's main thread sleeps off CPU while it waits.
// The first epoch is cold (page-cache misses, readahead, block requests,
// evictions of unused readahead); later ones hit the cache. Records go out in
// start order per worker, workers interleaved one file pass at a time (the
// ring buffer interleaves them call by call, so real recordings are closer to
// start order than these). Everything is derived from --seed: the same options
// give the same file, byte for byte.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "recording/capture_json.h"
#include "recording/record_buffer.h"
#include "recording/recording.h"

namespace {

using namespace iolens;

struct Options {
    std::string out;
    uint64_t events = 1'000'000;  // N: records to write (approximately: whole files)
    uint32_t files = 1000;        // F
    uint32_t ranks = 2;           // R
    uint32_t epochs = 3;          // E
    uint32_t workers = 4;         // W per rank
    uint64_t seed = 1;
    bool markers = false;
    bool force = false;
    // One node of a job of many (issue #16's benchmark): its host name, the
    // job id, its first global rank and the world size.
    std::string host = "synth";
    std::string job;
    uint32_t rank_base = 0;
    uint32_t world = 0;  // 0: ranks
};

// splitmix64: fixed output on every platform (std distributions are not).
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

constexpr uint32_t kDev = (259u << 20) | 1;   // nvme0n1p1
constexpr uint32_t kDisk = (259u << 20) | 0;  // nvme0n1
constexpr uint64_t kT0 = 1'000'000'000'000ull;

class Synth {
public:
    Synth(const Options& o, recording::Writer& w) : o_(o), w_(w), rng_{o.seed} {}

    // Counts the record just appended to buf_; writes a full chunk out.
    void added() {
        ++events_;
        if (buf_.size() >= (1u << 20)) flush();
    }
    void rec(const void* p, size_t n) {
        buf_.raw(p, n);
        added();
    }
    void flush() {
        if (buf_.empty()) return;
        if (auto r = w_.append_records(buf_.bytes()); !r) die(r.error().message);
        buf_.clear();
    }
    [[noreturn]] static void die(const std::string& m) {
        std::fprintf(stderr, "iolens-synth-recording: %s\n", m.c_str());
        std::exit(1);
    }

    void proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts, const char* comm) {
        buf_.proc(type, pid, ppid, ts, comm);
        added();
    }
    void file_rec(uint32_t pid, uint64_t ino, uint64_t size, uint64_t ts) {
        iolens_file_rec r{};
        r.pid = pid;
        r.dev = kDev;
        r.mode = 0100644;
        r.ino = ino;
        r.size = size;
        r.ts_ns = ts;
        buf_.file(r, recording::path_components("/data/train/shard-" + std::to_string(ino % 64) + "/sample-" +
                                                std::to_string(ino) + ".bin"));
        added();
    }
    iolens_syscall_rec call(uint32_t pid, uint32_t tid, int op, uint64_t start, uint64_t dur, int64_t ret,
                            uint64_t ino, int fd) {
        iolens_syscall_rec r{};
        r.hdr = {IOLENS_REC_SYSCALL, sizeof r};
        r.op = static_cast<uint8_t>(op);
        r.flags = ino ? (IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR) : 0;
        r.pid = pid;
        r.tid = tid;
        r.start_ns = start;
        r.duration_ns = dur;
        r.ret = ret;
        r.offset = IOLENS_NO_OFFSET;
        r.ino = ino;
        r.dev = ino ? kDev : 0;
        r.fd = fd;
        return r;
    }

    // One worker's pass over one file, starting at t; returns the end time.
    // reads: how many read calls (the last one a short read at end of file).
    uint64_t read_file(uint32_t pid, uint64_t ino, uint64_t t, uint32_t reads, bool cold) {
        const uint64_t chunk = 65536;
        const uint64_t size = chunk * (reads - 1) + 1000 + ino % 3000;
        if (named_.size() <= ino) named_.resize(ino + 1);
        if (!named_[ino]) {
            named_[ino] = true;
            file_rec(pid, ino, size, t);
        }
        auto r = call(pid, pid, IOLENS_OP_OPEN, t, 3000 + rng_.below(2000), 7, ino, 7);
        rec(&r, sizeof r);
        t += r.duration_ns + 500;
        r = call(pid, pid, IOLENS_OP_STAT, t, 800, 0, ino, 7);
        rec(&r, sizeof r);
        t += r.duration_ns + 300;
        uint64_t off = 0;
        for (uint32_t i = 0; i < reads; ++i) {
            // A header read first, then whole chunks; the last read comes up short.
            const uint64_t want = i == 0 && reads > 2 ? 4096 : chunk;
            const uint64_t got = std::min<uint64_t>(want, size - off);
            const uint64_t dur = (cold ? 40'000 + rng_.below(200'000) : 2'000 + rng_.below(6'000)) + got / 16;
            r = call(pid, pid, IOLENS_OP_READ, t, dur, static_cast<int64_t>(got), ino, 7);
            r.offset = off;
            r.requested = want;
            if (cold) {
                r.cache_in_bytes = got + (i == 0 ? 131072 : 0);
                r.readahead_bytes = i == 0 ? 131072 : 0;
                r.blocked_ns = dur / 2;
                r.ra_sync = i == 0;
            }
            rec(&r, sizeof r);
            if (cold && i % 8 == 0) {  // the device read behind the miss
                iolens_block_rec b{};
                b.hdr = {IOLENS_REC_BLOCK, sizeof b};
                b.op = IOLENS_BLK_READ;
                b.flags = IOLENS_BLKF_QUEUED;
                b.depth = 1 + static_cast<uint16_t>(rng_.below(4));
                b.dev = kDisk;
                b.pid = pid;
                b.bytes = 131072;
                b.sector = (ino << 12) + off / 512;
                b.issue_ns = t + 1000;
                b.queue_ns = 2000;
                b.service_ns = dur - 5000 > dur ? dur : dur - 5000;
                rec(&b, sizeof b);
            }
            off += got;
            t += dur + 200 + rng_.below(800);
        }
        r = call(pid, pid, IOLENS_OP_CLOSE, t, 1200, 0, ino, 7);
        rec(&r, sizeof r);
        t += r.duration_ns + 100;
        if (cold && ino % 16 == 0) {  // unused readahead evicted later
            iolens_pagecache_rec p{};
            p.hdr = {IOLENS_REC_PAGECACHE, sizeof p};
            p.kind = IOLENS_PC_EVICT;
            p.flags = IOLENS_PCF_UNREFERENCED;
            p.pid = pid;
            p.tid = 0;
            p.dev = kDev;
            p.ino = ino;
            p.bytes = 65536;
            p.ts_ns = t;
            p.index = off / 4096 + 1;
            rec(&p, sizeof p);
        }
        return t;
    }

    void run() {
        // Per-file-pass records: open, stat, close, reads (+ blocks and evictions cold).
        const uint64_t passes = uint64_t{o_.ranks} * o_.epochs * o_.files;
        const uint64_t per_pass = passes ? o_.events / passes : 0;
        const uint32_t reads = static_cast<uint32_t>(per_pass > 5 ? per_pass - 3 : 2);

        uint64_t t = kT0 + 1'000'000;
        {
            const char args[] = "torchrun\0train.py";
            buf_.exec(1000, 1, t, "torchrun", std::string_view(args, sizeof args));
            added();
        }
        std::vector<uint32_t> rank_pid(o_.ranks);
        for (uint32_t k = 0; k < o_.ranks; ++k) {
            rank_pid[k] = 2000 + k * 10000;
            proc(IOLENS_REC_FORK, rank_pid[k], 1000, t += 1000, "python3");
        }
        flush();
        for (uint32_t k = 0; k < o_.ranks; ++k) {
            const std::string env = "{\"pid\":" + std::to_string(rank_pid[k]) + ",\"vars\":{\"RANK\":\"" +
                                    std::to_string(o_.rank_base + k) + "\",\"LOCAL_RANK\":\"" +
                                    std::to_string(k) + "\",\"WORLD_SIZE\":\"" +
                                    std::to_string(o_.world ? o_.world : o_.ranks) + "\"}}";
            if (auto r = w_.write_json_chunk(recording::ChunkType::Env, env); !r) die(r.error().message);
        }
        // Each rank's main thread imports its code once (not data: .py/.so).
        for (uint32_t k = 0; k < o_.ranks; ++k) {
            auto r = call(rank_pid[k], rank_pid[k], IOLENS_OP_READ, t += 10'000, 5000, 4096, 0, -1);
            rec(&r, sizeof r);
        }

        std::vector<uint32_t> order(o_.files);
        std::vector<uint32_t> next_worker(o_.ranks, 1);
        for (uint32_t e = 0; e < o_.epochs; ++e) {
            if (o_.markers) {
                const std::string text = "epoch/" + std::to_string(e);
                for (uint32_t k = 0; k < o_.ranks; ++k) {
                    buf_.marker(rank_pid[k], rank_pid[k], t, text);
                    added();
                }
            }
            // Ranks run side by side: interleave their workers (all ranks' workers
            // in one scheduler, each advancing its own clock).
            struct Worker {
                uint32_t pid, rank;
                uint64_t t;
                size_t next;  // index into its rank's file list
            };
            std::vector<Worker> ws;
            std::vector<std::vector<uint32_t>> lists(o_.ranks);
            for (uint32_t k = 0; k < o_.ranks; ++k) {
                for (uint32_t f = 0; f < o_.files; ++f) order[f] = f;
                for (uint32_t f = o_.files; f > 1; --f) std::swap(order[f - 1], order[rng_.below(f)]);
                lists[k] = order;
                for (uint32_t w = 0; w < o_.workers; ++w) {
                    const uint32_t pid = rank_pid[k] + next_worker[k]++;
                    proc(IOLENS_REC_FORK, pid, rank_pid[k], t + w * 100, "pt_data_worker");
                    ws.push_back({pid, k, t + 50'000 + w * 7'000, w});
                }
            }
            const uint64_t epoch_start = t;
            uint64_t epoch_end = t;
            for (;;) {
                Worker* best = nullptr;
                for (auto& w : ws)
                    if (w.next < o_.files && (!best || w.t < best->t)) best = &w;
                if (!best) break;
                const uint64_t ino = 100'000 + lists[best->rank][best->next];
                best->t = read_file(best->pid, ino, best->t, reads, e == 0) + 20'000 + rng_.below(30'000);
                best->next += o_.workers;
                epoch_end = std::max(epoch_end, best->t);
            }
            for (auto& w : ws)
                proc(IOLENS_REC_EXIT, w.pid, rank_pid[w.rank], epoch_end + 1000, "pt_data_worker");
            for (uint32_t k = 0; k < o_.ranks; ++k) {  // the main thread waited for batches
                iolens_offcpu_rec off{};
                off.hdr = {IOLENS_REC_OFFCPU, sizeof off};
                off.pid = off.tid = rank_pid[k];
                off.state = 1;
                off.start_ns = epoch_start + 10'000;
                off.end_ns = epoch_end;
                rec(&off, sizeof off);
            }
            t = epoch_end + 2'000'000;
        }
        for (uint32_t k = 0; k < o_.ranks; ++k)
            proc(IOLENS_REC_EXIT, rank_pid[k], 1000, t += 1000, "python3");
        proc(IOLENS_REC_EXIT, 1000, 1, t += 1000, "torchrun");
        flush();
        end_ns_ = t + 1000;
    }
    uint64_t events() const { return events_; }
    uint64_t end_ns() const { return end_ns_; }

private:
    const Options& o_;
    recording::Writer& w_;
    Rng rng_;
    recording::RecordBuffer buf_;
    std::vector<bool> named_;
    uint64_t events_ = 0;
    uint64_t end_ns_ = 0;
};

uint64_t parse_count(const char* s) {
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    uint64_t mult = 1;
    if (end && (*end == 'k' || *end == 'K')) mult = 1000;
    if (end && (*end == 'm' || *end == 'M')) mult = 1'000'000;
    return static_cast<uint64_t>(v * static_cast<double>(mult));
}

int usage() {
    std::fprintf(stderr,
                 "usage: iolens-synth-recording -o FILE [-f] [--events N] [--files F] [--ranks R]\n"
                 "       [--epochs E] [--workers W] [--seed S] [--markers]\n"
                 "       [--host NAME] [--job ID] [--rank-base B] [--world W]\n"
                 "N, F take k/m suffixes (powers of 1000). Defaults: N=1m F=1000 R=2 E=3 W=4 S=1.\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto val = [&]() -> const char* {
            if (i + 1 >= argc) std::exit(usage());
            return argv[++i];
        };
        if (a == "-o")
            o.out = val();
        else if (a == "-f")
            o.force = true;
        else if (a == "--events")
            o.events = parse_count(val());
        else if (a == "--files")
            o.files = static_cast<uint32_t>(parse_count(val()));
        else if (a == "--ranks")
            o.ranks = static_cast<uint32_t>(parse_count(val()));
        else if (a == "--epochs")
            o.epochs = static_cast<uint32_t>(parse_count(val()));
        else if (a == "--workers")
            o.workers = static_cast<uint32_t>(parse_count(val()));
        else if (a == "--seed")
            o.seed = parse_count(val());
        else if (a == "--markers")
            o.markers = true;
        else if (a == "--host")
            o.host = val();
        else if (a == "--job")
            o.job = val();
        else if (a == "--rank-base")
            o.rank_base = static_cast<uint32_t>(parse_count(val()));
        else if (a == "--world")
            o.world = static_cast<uint32_t>(parse_count(val()));
        else
            return usage();
    }
    if (o.out.empty() || o.files == 0 || o.ranks == 0 || o.epochs == 0 || o.workers == 0) return usage();

    recording::WriterOptions wo;
    wo.force = o.force;
    auto w = recording::Writer::create(o.out, wo);
    if (!w) Synth::die(w.error().message);

    recording::CaptureInfo cap;
    cap.command = {"torchrun", "train.py"};
    cap.pids = {1000};
    cap.start_unix_ns = 1'700'000'000'000'000'000ull;
    cap.start_mono_ns = kT0;
    cap.hostname = o.host;
    cap.job_id = o.job;
    if (!o.job.empty()) cap.job_id_source = "SLURM_JOB_ID";
    cap.kernel_release = "6.1.0-synthetic";
    cap.iolens_version = "synth";
    for (const char* fam :
         {"syscalls", "files", "process", "pagecache", "blocking", "block", "markers", "offcpu"})
        cap.probes.push_back({fam, "raw_tp/synthetic", true, ""});
    if (auto r = (*w)->write_json_chunk(recording::ChunkType::Meta, recording::capture_to_json(cap).dump());
        !r)
        Synth::die(r.error().message);
    recording::ProcessInfo launcher;
    launcher.pid = 1000;
    launcher.ppid = 1;
    launcher.comm = "torchrun";
    launcher.cmdline = cap.command;
    launcher.start_ns = kT0;
    if (auto r = (*w)->write_json_chunk(recording::ChunkType::Process,
                                        recording::process_to_json(launcher).dump());
        !r)
        Synth::die(r.error().message);

    Synth s(o, **w);
    s.run();
    cap.duration_ns = s.end_ns() - kT0;
    cap.events = s.events();
    cap.stop_reason = "the command exited";
    cap.exit_status = 0;
    cap.devices = {{kDisk, "nvme0n1"}, {kDev, "nvme0n1p1"}};
    if (auto r = (*w)->write_json_chunk(recording::ChunkType::End, recording::capture_to_json(cap).dump());
        !r)
        Synth::die(r.error().message);
    if (auto r = (*w)->close(); !r) Synth::die(r.error().message);
    std::printf("%s: %llu events, %u files, %u ranks, %u epochs, %u workers per rank\n", o.out.c_str(),
                static_cast<unsigned long long>(s.events()), o.files, o.ranks, o.epochs, o.workers);
    return 0;
}
