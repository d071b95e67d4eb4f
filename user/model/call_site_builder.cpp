#include "model/call_site_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>

#include "model/record_text.h"
#include "model/record_walk.h"

namespace iolens::model {

using nlohmann::json;

namespace {

// Frames in a call's label (charge()): the innermost, where the I/O was made.
constexpr size_t kLabelFrames = 8;

json parse(const recording::Chunk& chunk) {
    auto text = std::string_view(reinterpret_cast<const char*>(chunk.payload.data()), chunk.payload.size());
    return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

// Integers only: a float converted to an integer type out of its range
// would be undefined behaviour (a damaged or hostile recording).
template <typename T>
T num(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<T>() : T{};
}

std::string str(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json stacks_chunk_json(uint32_t pid, const std::vector<symbols::Mapping>& maps,
                       const std::vector<CfaEntry>& cfa) {
    json j = json::object();
    if (!maps.empty()) {
        j["pid"] = pid;
        json a = json::array();
        for (const auto& m : maps)
            a.push_back({{"start", m.start},
                         {"end", m.end},
                         {"pgoff", m.pgoff},
                         {"path", m.path},
                         {"build_id", m.build_id}});
        j["maps"] = std::move(a);
    }
    if (!cfa.empty()) {
        json a = json::array();
        for (const auto& c : cfa)
            a.push_back({{"path", c.path}, {"build_id", c.build_id}, {"offset", c.offset}, {"cfa", c.cfa}});
        j["cfa"] = std::move(a);
    }
    return j;
}

json symbols_chunk_json(const std::vector<ModuleSymbols>& modules) {
    json a = json::array();
    for (const auto& m : modules) {
        json fns = json::array();
        for (const auto& [off, name] : m.functions) fns.push_back(json::array({off, name}));
        a.push_back(
            {{"path", m.path}, {"build_id", m.build_id}, {"note", m.note}, {"functions", std::move(fns)}});
    }
    return {{"modules", std::move(a)}};
}

CallSiteBuilder::CallSiteBuilder(bool local_files) : sym_(local_files), resolver_(sym_) {}

void CallSiteBuilder::on_chunk(const recording::Chunk& chunk) {
    switch (chunk.type) {
        case recording::ChunkType::Meta: {
            const json j = parse(chunk);
            if (j.is_object()) {
                spec_ = str(j, "stacks");
                active_ = !spec_.empty();
            }
            break;
        }
        case recording::ChunkType::Records:
            if (active_) (void)walk_records(chunk.payload, *this, walked_);
            break;
        case recording::ChunkType::Stacks: {
            const json j = parse(chunk);
            if (!j.is_object()) break;
            if (auto m = j.find("maps"); m != j.end() && m->is_array()) {
                std::vector<symbols::Mapping> maps;
                for (const auto& e : *m)
                    if (e.is_object())
                        maps.push_back({num<uint64_t>(e, "start"), num<uint64_t>(e, "end"),
                                        num<uint64_t>(e, "pgoff"), str(e, "path"), str(e, "build_id")});
                resolver_.add_maps(num<uint32_t>(j, "pid"), maps);
            }
            if (auto c = j.find("cfa"); c != j.end() && c->is_array())
                for (const auto& e : *c)
                    if (e.is_object())
                        sym_.add_recorded_cfa(sym_.module(str(e, "path"), str(e, "build_id")),
                                              num<uint64_t>(e, "offset"), num<int64_t>(e, "cfa"));
            break;
        }
        case recording::ChunkType::Symbols: {
            const json j = parse(chunk);
            if (!j.is_object()) break;
            if (auto m = j.find("modules"); m != j.end() && m->is_array())
                for (const auto& e : *m) {
                    if (!e.is_object()) continue;
                    const uint32_t id = sym_.module(str(e, "path"), str(e, "build_id"));
                    if (const std::string note = str(e, "note"); !note.empty())
                        sym_.add_recorded_note(id, note);
                    if (auto f = e.find("functions"); f != e.end() && f->is_array())
                        for (const auto& p : *f)
                            if (p.is_array() && p.size() == 2 && p[0].is_number_integer() && p[1].is_string())
                                sym_.add_recorded_function(id, p[0].get<uint64_t>(), p[1].get<std::string>());
                }
            break;
        }
        default:
            break;
    }
}

uint32_t CallSiteBuilder::intern(std::vector<symbols::Frame> frames) {
    std::vector<std::pair<uint32_t, uint64_t>> key;
    key.reserve(frames.size());
    for (const auto& f : frames) key.emplace_back(f.module, f.offset);
    auto [it, fresh] = ids_.try_emplace(std::move(key), static_cast<uint32_t>(stacks_.size()));
    if (fresh) {
        stacks_.push_back(std::move(frames));
        acc_.emplace_back();
    }
    return it->second;
}

void CallSiteBuilder::on_stack(const iolens_stack_rec& r, const uint64_t* data) {
    uint32_t id;
    if (replay_) {
        // The second walk: the stack the first walk made of the record at
        // this position (resolving again would see the last mappings).
        if (cursor_ >= order_.size()) return;
        id = order_[cursor_++];
    } else {
        stack_records_++;
        id = intern(resolver_.resolve(r, data));
        order_.push_back(id);
    }
    pending_[r.tid] = {r.start_ns, id, true};
}

void CallSiteBuilder::on_fork(const iolens_proc_rec& r) { resolver_.add_parent(r.pid, r.ppid); }

void CallSiteBuilder::on_exec(const iolens_exec_rec& r, const char*) { resolver_.forget(r.pid); }

void CallSiteBuilder::on_file(const iolens_file_rec& r, const char* path) {
    auto& name = names_[{r.dev, r.ino}];
    if (name.empty()) name = path_from_components(path, r.path_len, r.flags & IOLENS_FILE_TRUNCATED);
}

void CallSiteBuilder::restart() {
    pending_.clear();
    last_.clear();
    replay_ = true;
    cursor_ = 0;
}

const std::string* CallSiteBuilder::charge(const iolens_syscall_rec& r) {
    const bool has_file = r.flags & IOLENS_SC_HAS_FILE;
    const TidFile key{r.tid, has_file ? r.dev : 0, has_file ? r.ino : 0, r.op};
    const TidFile any{key.tid, key.dev, key.ino, ~0u};
    uint32_t id;
    auto p = pending_.find(r.tid);
    if (p != pending_.end() && p->second.valid && p->second.start_ns == r.start_ns) {
        id = p->second.stack;
        last_[key] = id;
        last_[any] = id;
    } else if (auto l = last_.find(key); l != last_.end()) {
        id = l->second;
    } else if (auto a = last_.find(any); a != last_.end()) {
        id = a->second;
    } else {
        return nullptr;
    }
    return id < labels_.size() && !labels_[id].empty() ? &labels_[id] : nullptr;
}

void CallSiteBuilder::on_syscall(const iolens_syscall_rec& r, bool) {
    constexpr uint32_t kAnyOp = ~0u;
    const bool has_file = r.flags & IOLENS_SC_HAS_FILE;
    const TidFile key{r.tid, has_file ? r.dev : 0, has_file ? r.ino : 0, r.op};
    const TidFile any{key.tid, key.dev, key.ino, kAnyOp};
    uint32_t id;
    bool own = false;
    auto p = pending_.find(r.tid);
    if (p != pending_.end() && p->second.valid && p->second.start_ns == r.start_ns) {
        id = p->second.stack;
        own = true;
        last_[key] = id;
        last_[any] = id;
    } else if (auto l = last_.find(key); l != last_.end()) {
        id = l->second;
    } else if (auto a = last_.find(any); a != last_.end()) {
        id = a->second;
    } else {
        calls_without_++;
        return;
    }
    calls_++;
    CallSite& s = acc_[id];
    s.calls++;
    if (own) s.stacks++;
    const uint64_t moved = r.ret > 0 && (r.op == IOLENS_OP_READ || r.op == IOLENS_OP_WRITE) ? r.ret : 0;
    if (r.op == IOLENS_OP_READ) s.read_bytes += moved;
    if (r.op == IOLENS_OP_WRITE) s.write_bytes += moved;
    s.time_ns += r.duration_ns;
    s.cache_miss_bytes += r.cache_in_bytes;
    if (has_file) {
        auto& f = files_[{id, {r.dev, r.ino}}];
        f.bytes += moved;
        f.calls++;
    }
}

std::optional<CallSites> CallSiteBuilder::finish() {
    if (!active_) return std::nullopt;
    CallSites out;
    out.spec = spec_;
    out.stacks = stack_records_;
    out.calls = calls_;
    out.calls_without = calls_without_;
    // Symbolize, and merge stacks that name the same frames (the same code
    // in different processes).
    std::map<std::vector<std::tuple<std::string, std::string, uint64_t>>, size_t> by_text;
    std::map<uint32_t, uint64_t> unnamed;  // module -> frames without a name
    std::set<uint32_t> named;              // modules with a named frame
    labels_.assign(stacks_.size(), std::string());
    std::vector<size_t> site_of(stacks_.size(), SIZE_MAX);
    for (size_t id = 0; id < stacks_.size(); ++id) {
        CallSite s = std::move(acc_[id]);
        if (s.calls == 0) continue;
        std::vector<std::tuple<std::string, std::string, uint64_t>> key;
        for (const auto& f : stacks_[id]) {
            CallSiteFrame cf;
            if (f.module != symbols::kNoModule) {
                cf.module = sym_.module_at(f.module).path;
                if (auto fn = sym_.function(f.module, f.offset)) {
                    cf.function = *fn;
                    named.insert(f.module);
                } else {
                    unnamed[f.module]++;
                }
            }
            cf.offset = f.offset;
            // Named frames merge across processes whatever their offsets.
            key.emplace_back(cf.function, cf.module, cf.function.empty() ? cf.offset : 0);
            s.frames.push_back(std::move(cf));
        }
        for (size_t i = 0; i < s.frames.size() && i < kLabelFrames; ++i)
            labels_[id] += (i ? " < " : "") + frame_text(s.frames[i]);
        auto [it, fresh] = by_text.try_emplace(std::move(key), out.sites.size());
        site_of[id] = it->second;
        if (fresh) {
            out.sites.push_back(std::move(s));
            continue;
        }
        CallSite& t = out.sites[it->second];
        t.calls += s.calls;
        t.stacks += s.stacks;
        t.read_bytes += s.read_bytes;
        t.write_bytes += s.write_bytes;
        t.time_ns += s.time_ns;
        t.cache_miss_bytes += s.cache_miss_bytes;
        t.files += s.files;
        if (s.top_file_bytes > t.top_file_bytes) {
            t.top_file = std::move(s.top_file);
            t.top_file_bytes = s.top_file_bytes;
        }
    }
    // Files per call site (stacks merged into one site share theirs).
    std::map<std::pair<size_t, std::pair<uint32_t, uint64_t>>, FileAcc> site_files;
    for (const auto& [k, f] : files_) {
        if (k.first >= site_of.size() || site_of[k.first] == SIZE_MAX) continue;
        auto& t = site_files[{site_of[k.first], k.second}];
        t.bytes += f.bytes;
        t.calls += f.calls;
    }
    for (auto& site : out.sites) {
        site.files = 0;
        site.top_file.clear();
        site.top_file_bytes = 0;
    }
    std::vector<uint64_t> top_calls(out.sites.size(), 0);
    for (const auto& [k, f] : site_files) {
        CallSite& site = out.sites[k.first];
        site.files++;
        // The file it moved the most bytes of; with none moved, the one it called most.
        const bool better = site.top_file.empty() || f.bytes > site.top_file_bytes ||
                            (f.bytes == site.top_file_bytes && f.calls > top_calls[k.first]);
        if (!better) continue;
        auto n = names_.find(k.second);
        site.top_file = n != names_.end() ? n->second
                                          : fmt::format("<dev {}:{} ino {}>", k.second.first >> 20,
                                                        k.second.first & 0xfffff, k.second.second);
        site.top_file_bytes = f.bytes;
        top_calls[k.first] = f.calls;
    }
    std::sort(out.sites.begin(), out.sites.end(), [](const CallSite& a, const CallSite& b) {
        const uint64_t ab = a.read_bytes + a.write_bytes, bb = b.read_bytes + b.write_bytes;
        if (ab != bb) return ab > bb;
        if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
        return a.calls > b.calls;
    });
    // By library.
    std::map<std::string, size_t> lib_index;
    for (const auto& s : out.sites) {
        const std::string lib = library_of(s);
        auto [it, fresh] = lib_index.try_emplace(lib, out.libraries.size());
        if (fresh) out.libraries.push_back({lib, 0, 0, 0, 0, 0, 0});
        auto& l = out.libraries[it->second];
        l.calls += s.calls;
        l.read_bytes += s.read_bytes;
        l.write_bytes += s.write_bytes;
        l.time_ns += s.time_ns;
        l.cache_miss_bytes += s.cache_miss_bytes;
        l.sites++;
    }
    std::sort(out.libraries.begin(), out.libraries.end(), [](const LibraryStats& a, const LibraryStats& b) {
        const uint64_t ab = a.read_bytes + a.write_bytes, bb = b.read_bytes + b.write_bytes;
        if (ab != bb) return ab > bb;
        return a.time_ns > b.time_ns;
    });
    // Notes: the modules none of whose frames could be named (a module with
    // some names, such as an interpreter that exports only its API, is not
    // worth a line per address).
    std::vector<std::pair<uint64_t, std::string>> notes;
    for (const auto& [m, n] : unnamed) {
        if (named.count(m)) continue;
        std::string note = sym_.module_note(m);
        if (note.empty()) note = "no symbols (stripped, and no debug file found)";
        notes.emplace_back(n, sym_.module_at(m).path + ": " + note);
    }
    std::sort(notes.begin(), notes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [n, text] : notes) out.notes.push_back(std::move(text));
    return out;
}

}  // namespace iolens::model
