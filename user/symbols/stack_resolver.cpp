#include "symbols/stack_resolver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace iolens::symbols {

namespace {

uint64_t key(uint32_t module, uint64_t offset) {
    return uint64_t{module} << 40 | (offset & ((1ull << 40) - 1));
}

}  // namespace

// A module's file on this machine, opened when first asked about.
struct Symbolizer::Local {
    std::unique_ptr<ElfFile> elf;
    std::optional<SymbolTable> syms;
    bool syms_tried = false;
    std::string note;  // why it cannot be used, or why it has no symbols
};

Symbolizer::Symbolizer(bool local_files) : local_files_(local_files) {}
Symbolizer::~Symbolizer() = default;

uint32_t Symbolizer::module(const std::string& path, const std::string& build_id) {
    auto [it, fresh] = ids_.try_emplace({path, build_id}, static_cast<uint32_t>(modules_.size()));
    if (fresh) modules_.push_back({path, build_id});
    return it->second;
}

void Symbolizer::add_recorded_function(uint32_t module, uint64_t offset, std::string name) {
    recorded_fn_[key(module, offset)] = std::move(name);
}

void Symbolizer::add_recorded_cfa(uint32_t module, uint64_t offset, int64_t cfa) {
    recorded_cfa_[key(module, offset)] = cfa;
}

void Symbolizer::add_recorded_note(uint32_t module, std::string note) {
    recorded_note_[module] = std::move(note);
}

Symbolizer::Local* Symbolizer::local(uint32_t module) {
    if (!local_files_ || module >= modules_.size()) return nullptr;
    auto& slot = local_[module];
    if (!slot) {
        slot = std::make_unique<Local>();
        const Module& m = modules_[module];
        if (m.path.empty() || m.path.front() != '/') {
            slot->note = "not a file";
        } else if (!(slot->elf = ElfFile::open(m.path))) {
            slot->note = "not found on this machine";
        } else if (!m.build_id.empty() && slot->elf->build_id() != m.build_id) {
            slot->elf.reset();
            slot->note = "the file on this machine is another build (build id differs)";
        }
    }
    return slot->elf ? slot.get() : nullptr;
}

std::optional<std::string> Symbolizer::function(uint32_t module, uint64_t offset) {
    if (auto it = recorded_fn_.find(key(module, offset)); it != recorded_fn_.end()) return it->second;
    Local* l = local(module);
    if (!l) return std::nullopt;
    if (!l->syms_tried) {
        l->syms_tried = true;
        std::string why;
        // BCC opens what it is given: the file already opened and checked
        // (a path could be swapped for a FIFO between two opens).
        l->syms = load_symbols(fmt::format("/proc/self/fd/{}", l->elf->fd()), &why);
        if (!l->syms)
            l->note = why;
        else if (l->syms->size() == 0)
            l->note = "no symbols (stripped, and no debug file found)";
    }
    if (!l->syms) return std::nullopt;
    const auto vaddr = l->elf->vaddr_of(offset);
    if (!vaddr) return std::nullopt;
    if (const auto* s = l->syms->find(*vaddr)) return s->name;
    return std::nullopt;
}

std::optional<CfaRule> Symbolizer::cfa_rule(uint32_t module, uint64_t offset) {
    const uint64_t k = key(module, offset);
    if (auto it = rules_.find(k); it != rules_.end()) return it->second;
    std::optional<CfaRule> r;
    if (Local* l = local(module))
        if (const auto vaddr = l->elf->vaddr_of(offset)) r = l->elf->cfa_rule(*vaddr);
    rules_.emplace(k, r);
    return r;
}

std::optional<int64_t> Symbolizer::cfa(uint32_t module, uint64_t offset) {
    if (auto it = recorded_cfa_.find(key(module, offset)); it != recorded_cfa_.end()) return it->second;
    Local* l = local(module);
    if (!l) return std::nullopt;
    const auto vaddr = l->elf->vaddr_of(offset);
    if (!vaddr) return std::nullopt;
    return l->elf->cfa_sp_offset(*vaddr);
}

std::string Symbolizer::module_note(uint32_t module) const {
    if (auto it = local_.find(module); it != local_.end() && it->second && !it->second->note.empty())
        return it->second->note;
    if (auto it = recorded_note_.find(module); it != recorded_note_.end()) return it->second;
    return {};
}

void StackResolver::add_maps(uint32_t pid, const std::vector<Mapping>& maps) {
    auto& v = maps_[pid];
    for (const auto& m : maps) {
        if (m.end <= m.start) continue;
        // The newer mapping replaces what it overlaps.
        auto it = v.lower_bound(m.start);
        if (it != v.begin() && std::prev(it)->second.end > m.start) --it;
        while (it != v.end() && it->first < m.end) it = v.erase(it);
        if (v.size() >= kMaxMappings) continue;
        v.emplace(m.start, Entry{m.start, m.end, m.pgoff, sym_.module(m.path, m.build_id)});
    }
}

void StackResolver::add_parent(uint32_t pid, uint32_t ppid) {
    if (pid != ppid) parent_[pid] = ppid;
}

void StackResolver::forget(uint32_t pid) {
    maps_.erase(pid);
    parent_.erase(pid);
}

std::optional<Frame> StackResolver::locate(uint32_t pid, uint64_t addr) const {
    // A forked child runs its parent's image until it execs (then it has
    // mappings of its own): look up the ancestry, a few levels.
    for (int depth = 0; depth < 16; ++depth) {
        if (auto it = maps_.find(pid); it != maps_.end()) {
            const auto& v = it->second;
            auto e = v.upper_bound(addr);
            if (e != v.begin() && addr < std::prev(e)->second.end) {
                const Entry& x = std::prev(e)->second;
                return Frame{x.module, addr - x.start + x.pgoff};
            }
            return std::nullopt;  // it has mappings of its own: they decide
        }
        auto p = parent_.find(pid);
        if (p == parent_.end()) return std::nullopt;
        pid = p->second;
    }
    return std::nullopt;
}

bool StackResolver::covers(uint32_t pid, uint64_t addr) const { return locate(pid, addr).has_value(); }

std::vector<Frame> StackResolver::frames_of(uint32_t pid, const std::vector<uint64_t>& addrs) const {
    std::vector<Frame> out;
    for (size_t i = 0; i < addrs.size(); ++i) {
        // A return address names the call before it.
        const auto f = locate(pid, i ? addrs[i] - 1 : addrs[i]);
        if (!f) {
            if (i == 0) out.push_back(Frame{kNoModule, addrs[0]});
            break;
        }
        out.push_back(*f);
    }
    return out;
}

std::vector<uint64_t> StackResolver::fp_unwind(const iolens_stack_rec& rec, const uint64_t* words,
                                               const uint64_t* ips) {
    std::vector<uint64_t> out;
    const uint32_t n = std::min<uint32_t>(rec.nframes, IOLENS_STACK_DEPTH);
    if (n == 0) return out;
    out.push_back(ips[0]);
    // The wrapper's caller: the return address the unwind table puts at
    // CFA - 8, in the words copied from the stack pointer.
    if (const auto leaf = locate(rec.pid, ips[0]); leaf && leaf->module != kNoModule) {
        if (const auto cfa = sym_.cfa(leaf->module, leaf->offset); cfa && *cfa >= 8 && *cfa % 8 == 0) {
            const size_t idx = static_cast<size_t>(*cfa / 8 - 1);
            if (idx < rec.nwords) {
                const uint64_t ra = words[idx];
                if (locate(rec.pid, ra - 1) && (n < 2 || ips[1] != ra)) out.push_back(ra);
            }
        }
    }
    for (uint32_t i = 1; i < n; ++i) {
        if (ips[i] == 0 || !locate(rec.pid, ips[i] - 1)) break;
        out.push_back(ips[i]);
    }
    return out;
}

std::vector<uint64_t> StackResolver::dwarf_unwind(const iolens_stack_rec& rec, const uint64_t* words) {
    std::vector<uint64_t> out;
    const uint64_t lo = rec.sp, bytes = uint64_t{rec.nwords} * 8;
    const auto read = [&](uint64_t addr, uint64_t& v) {
        if (addr < lo || addr - lo > bytes || bytes - (addr - lo) < 8) return false;
        std::memcpy(&v, reinterpret_cast<const char*>(words) + (addr - lo), 8);
        return true;
    };
    uint64_t ip = rec.ip, sp = rec.sp, bp = rec.bp;
    bool bp_known = true;
    stopped_at_unknown_ = false;
    for (int i = 0; i < IOLENS_STACK_DEPTH && ip; ++i) {
        const auto f = locate(rec.pid, i ? ip - 1 : ip);
        if (!f || f->module == kNoModule) {
            stopped_at_unknown_ = !f;
            break;
        }
        out.push_back(ip);
        const auto rule = sym_.cfa_rule(f->module, f->offset);
        if (!rule || (rule->reg == 6 && !bp_known)) break;
        const uint64_t cfa = (rule->reg == 7 ? sp : bp) + static_cast<uint64_t>(rule->offset);
        uint64_t ra = 0;
        if (!read(cfa - 8, ra)) break;
        if (rule->rbp == CfaRule::Rbp::Saved) {
            uint64_t v = 0;
            bp_known = read(cfa + static_cast<uint64_t>(rule->rbp_at), v);
            bp = v;
        } else if (rule->rbp == CfaRule::Rbp::Unknown) {
            bp_known = false;
        }
        if (cfa <= sp) break;  // the stack grows down: a caller's frame is above
        sp = cfa;
        ip = ra;
    }
    return out;
}

std::vector<uint64_t> StackResolver::unwind(const iolens_stack_rec& rec, const uint64_t* data) {
    const uint64_t* words = data;
    const uint64_t* ips = data + rec.nwords;
    auto dw = dwarf_unwind(rec, words);
    auto fp = fp_unwind(rec, words, ips);
    return dw.size() >= fp.size() ? dw : fp;
}

std::vector<Frame> StackResolver::resolve(const iolens_stack_rec& rec, const uint64_t* data) {
    const uint64_t* ips = data + rec.nwords;
    const uint32_t n = std::min<uint32_t>(rec.nframes, IOLENS_STACK_DEPTH);
    if (rec.flags & IOLENS_STACKF_UNWOUND) return frames_of(rec.pid, std::vector<uint64_t>(ips, ips + n));
    return frames_of(rec.pid, fp_unwind(rec, data, ips));
}

}  // namespace iolens::symbols
