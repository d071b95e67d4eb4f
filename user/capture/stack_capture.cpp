#include "capture/stack_capture.h"

#include <bpf/bpf.h>

#include <cstddef>
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
    // The syscall's own address: the frame-pointer walk's next addresses are
    // garbage in code without frame pointers, and would make every stack
    // read the mappings again. A library mapped later is caught by the
    // mmap rule (on_mmap).
    const bool known = resolver_.covers(rec.pid, ip0);
    if (!known) {
        auto it = read_at_.find(rec.pid);
        if (it == read_at_.end() || mapped_since_read_.count(rec.pid) || now_ns - it->second >= kRereadNs) {
            read_at_[rec.pid] = now_ns;
            mapped_since_read_.erase(rec.pid);
            maps = symbols::read_exec_maps(static_cast<pid_t>(rec.pid));
            if (!maps.empty()) resolver_.add_maps(rec.pid, maps);
        }
    }
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
