#pragma once
// An open-addressing hash map for the report's hot per-event lookups.
//
// Why: `report` looks up a file, a stream (process x file), a thread or a
// rank for every call it reads, and std::unordered_map pays a heap node per
// entry and a pointer chase per lookup: with 200,000 files and a million
// streams those were a third of its time and most of its memory
// (docs/benchmarks-report.md). Here the entries sit in one array, probed
// linearly from a multiplicative hash; the table doubles at 1/2 load.
//
// What it is not: no erase, and entries move when the table grows, so a
// pointer from find()/try_emplace() is valid only until the next insert.
// Callers that need stable addresses keep their values in a std::deque and
// map keys to indices. clear() is O(1) (a generation counter marks the
// slots in use), so a map cleared often stays cheap however large it grew.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace iolens::util {

// Hash of an integer key: the high bits of a multiply by 2^64/phi (Fibonacci
// hashing), taken by FlatMap with a shift.
struct IntHash {
    uint64_t operator()(uint64_t k) const { return (k ^ (k >> 29)) * 0x9e3779b97f4a7c15ull; }
};

template <class K, class V, class Hash = IntHash>
class FlatMap {
public:
    FlatMap() = default;

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    V* find(const K& k) {
        if (size_ == 0) return nullptr;
        for (size_t i = slot(k);; i = (i + 1) & mask_) {
            if (gen_of_[i] != gen_) return nullptr;
            if (slots_[i].first == k) return &slots_[i].second;
        }
    }
    const V* find(const K& k) const { return const_cast<FlatMap*>(this)->find(k); }

    // The value of k, made from v when k was absent (second: inserted).
    std::pair<V*, bool> try_emplace(const K& k, const V& v = V{}) {
        if ((size_ + 1) * 2 > slots_.size()) grow();
        size_t i = slot(k);
        for (; gen_of_[i] == gen_; i = (i + 1) & mask_)
            if (slots_[i].first == k) return {&slots_[i].second, false};
        gen_of_[i] = gen_;
        slots_[i].first = k;
        slots_[i].second = v;
        size_++;
        return {&slots_[i].second, true};
    }
    V& operator[](const K& k) { return *try_emplace(k).first; }

    void clear() {
        if (size_ == 0) return;
        size_ = 0;
        if (++gen_ == 0) {  // wrapped: every slot marked free again
            std::memset(gen_of_.data(), 0, gen_of_.size() * sizeof gen_of_[0]);
            gen_ = 1;
        }
    }

    // fn(key, value) for every entry, in no particular order.
    template <class Fn>
    void for_each(Fn&& fn) const {
        if (size_ == 0) return;
        for (size_t i = 0; i < slots_.size(); ++i)
            if (gen_of_[i] == gen_) fn(slots_[i].first, slots_[i].second);
    }

private:
    size_t slot(const K& k) const { return static_cast<size_t>(Hash{}(k) >> shift_) & mask_; }
    void grow() {
        const size_t n = slots_.empty() ? 16 : slots_.size() * 2;
        std::vector<std::pair<K, V>> old = std::move(slots_);
        std::vector<uint32_t> old_gen = std::move(gen_of_);
        const uint32_t og = gen_;
        slots_.assign(n, {});
        gen_of_.assign(n, 0);
        gen_ = 1;
        mask_ = n - 1;
        shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(n));
        size_ = 0;
        for (size_t i = 0; i < old.size(); ++i)
            if (old_gen[i] == og) {
                size_t j = slot(old[i].first);
                while (gen_of_[j] == gen_) j = (j + 1) & mask_;
                gen_of_[j] = gen_;
                slots_[j] = std::move(old[i]);
                size_++;
            }
    }

    std::vector<std::pair<K, V>> slots_;
    std::vector<uint32_t> gen_of_;  // slot i is in use when gen_of_[i] == gen_
    uint32_t gen_ = 1;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

}  // namespace iolens::util
