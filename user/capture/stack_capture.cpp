#include "capture/stack_capture.h"

#include <bpf/bpf.h>

#include <cstddef>
#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "model/call_site_builder.h"
#include "util/json_text.h"

namespace iolens::capture {

namespace {

// A process whose addresses its mappings do not cover (code in anonymous
// memory: a JIT) would have them read at every stack: again only after it
// mapped a file, or this long after the last read.
constexpr uint64_t kRereadNs = 1'000'000'000;

}  // namespace

std::vector<std::byte> StackCapture::on_stack(const iolens_stack_rec& rec, const uint64_t* data,
                                              uint64_t now_ns) {
    const uint64_t* ips = data + rec.nwords;
    const uint64_t ip0 = rec.nframes ? ips[0] : rec.ip;
    std::vector<symbols::Mapping> maps;
    // Read the mappings on the process's first stack; again when the
    // syscall's own address is not covered and the process mapped a file
    // since (or a second passed: code in anonymous memory never is); and
    // below, when the unwinding stops at an unknown address after the
    // process mapped a file (a library it loaded since).
    const auto it = read_at_.find(rec.pid);
    const bool never = it == read_at_.end();
    const uint64_t since = never ? 0 : now_ns - it->second;
    if (never ||
        (!resolver_.covers(rec.pid, ip0) && (mapped_since_read_.count(rec.pid) || since >= kRereadNs)))
        read_maps(rec.pid, now_ns, maps);
    // The wrapper's unwind rule, once per address (a report of a record the
    // recorder did not unwind needs it); and the kernel is told where this
    // process's wrapper keeps its return address, so it takes a new stack
    // when a thread calls from another function.
    std::vector<model::CfaEntry> cfa;
    if (const auto leaf = resolver_.locate(rec.pid, ip0); leaf && leaf->module != symbols::kNoModule) {
        const bool new_leaf = cfa_written_.insert({leaf->module, leaf->offset}).second;
        const bool new_ra = ra_map_fd_ >= 0 && ra_written_.insert({rec.pid, ip0}).second;
        if (new_leaf || new_ra) {
            if (const auto c = sym_.cfa(leaf->module, leaf->offset)) {
                const auto& m = sym_.module_at(leaf->module);
                if (new_leaf) cfa.push_back({m.path, m.build_id, leaf->offset, *c});
                if (new_ra && *c >= 8) {
                    struct {
                        uint32_t tgid, pad;
                        uint64_t ip;
                    } key{rec.pid, 0, ip0};
                    const int64_t slot = *c - 8;
                    (void)bpf_map_update_elem(ra_map_fd_, &key, &slot, BPF_ANY);  // full: stacks stay coarser
                }
            }
        }
    }
    if (!maps.empty() || !cfa.empty()) {
        auto r = writer_.write_json_chunk(recording::ChunkType::Stacks,
                                          json_dump(model::stacks_chunk_json(rec.pid, maps, cfa)));
        if (!r && error_.empty()) error_ = r.error().message;
    }
    // Unwound here, while the files are at hand: the recording keeps the
    // return addresses, not the 8 KiB of stack.
    auto addrs = resolver_.unwind(rec, data);
    if (resolver_.stopped_at_unknown() && mapped_since_read_.count(rec.pid)) {
        std::vector<symbols::Mapping> more;
        read_maps(rec.pid, now_ns, more);
        if (!more.empty()) {
            auto r = writer_.write_json_chunk(recording::ChunkType::Stacks,
                                              json_dump(model::stacks_chunk_json(rec.pid, more, {})));
            if (!r && error_.empty()) error_ = r.error().message;
            addrs = resolver_.unwind(rec, data);
        }
    }
    if (addrs.size() > IOLENS_STACK_DEPTH) addrs.resize(IOLENS_STACK_DEPTH);
    for (const auto& f : resolver_.frames_of(rec.pid, addrs))
        if (f.module != symbols::kNoModule) frames_.insert({f.module, f.offset});
    iolens_stack_rec out;
    std::memcpy(&out, &rec, offsetof(iolens_stack_rec, data));
    out.nwords = 0;
    out.nframes = static_cast<uint16_t>(addrs.size());
    out.flags |= IOLENS_STACKF_UNWOUND;
    const size_t size = offsetof(iolens_stack_rec, data) + addrs.size() * 8;
    out.hdr.size = static_cast<uint16_t>(size);
    std::vector<std::byte> bytes(size);
    std::memcpy(bytes.data(), &out, offsetof(iolens_stack_rec, data));
    if (!addrs.empty())
        std::memcpy(bytes.data() + offsetof(iolens_stack_rec, data), addrs.data(), addrs.size() * 8);
    return bytes;
}

// Reads pid's executable mappings; those that changed since the last read
// go into `changed` and the resolver.
void StackCapture::read_maps(uint32_t pid, uint64_t now_ns, std::vector<symbols::Mapping>& changed) {
    read_at_[pid] = now_ns;
    mapped_since_read_.erase(pid);
    auto now = symbols::read_exec_maps(static_cast<pid_t>(pid), &build_ids_);
    auto& before = last_maps_[pid];
    for (const auto& m : now) {
        const bool seen = std::any_of(before.begin(), before.end(), [&](const symbols::Mapping& b) {
            return b.start == m.start && b.end == m.end && b.pgoff == m.pgoff && b.path == m.path;
        });
        if (!seen) changed.push_back(m);
    }
    if (!now.empty()) before = std::move(now);
    if (!changed.empty()) resolver_.add_maps(pid, changed);
}

Result<void> StackCapture::finish() {
    std::vector<model::ModuleSymbols> modules;
    for (const auto& [module, offset] : frames_) {
        if (modules.empty() || modules.back().path != sym_.module_at(module).path ||
            modules.back().build_id != sym_.module_at(module).build_id) {
            const auto& m = sym_.module_at(module);
            modules.push_back({m.path, m.build_id, {}, {}});
        }
        if (auto fn = sym_.function(module, offset))
            modules.back().functions.emplace_back(offset, *fn);
        else
            modules.back().note = sym_.module_note(module);
    }
    for (auto& m : modules)
        if (!m.functions.empty()) m.note.clear();  // some named: the rest are outside any symbol
    if (modules.empty()) return {};
    return writer_.write_json_chunk(recording::ChunkType::Symbols,
                                    json_dump(model::symbols_chunk_json(modules)));
}

}  // namespace iolens::capture
