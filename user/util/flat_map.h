#pragma once
// An open-addressing hash map for the report's hot per-event lookups.
//
// Why: `report` looks up a file, a stream (process x file), a thread or a
// rank for every call it reads, and std::unordered_map pays a heap node per
// entry and a pointer chase per lookup: with 200,000 files and a million
// streams those were a third of its time and most of its memory
// (docs/benchmarks-report.md). Here the entries sit in one array, probed
// linearly from a multiplicative hash; the table doubles at 3/4 load.
//
// What it is not: no erase, and entries move when the table grows, so a
// pointer from find()/try_emplace() is valid only until the next insert.
// Callers that need stable addresses keep their values in stable storage
// (util::Chunked) and
// map keys to indices. clear() is O(1) (a generation counter marks the
// slots in use), so a map cleared often stays cheap however large it grew.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "util/huge_pages.h"

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
    FlatMap(const FlatMap&) = default;
    FlatMap& operator=(const FlatMap&) = default;
    FlatMap(FlatMap&& o) noexcept { *this = std::move(o); }
    FlatMap& operator=(FlatMap&& o) noexcept {  // the source is left empty
        keys_ = std::move(o.keys_);
        vals_ = std::move(o.vals_);
        gen_of_ = std::move(o.gen_of_);
        gen_ = std::exchange(o.gen_, 1);
        mask_ = std::exchange(o.mask_, 0);
        shift_ = std::exchange(o.shift_, 64);
        size_ = std::exchange(o.size_, 0);
        o.keys_.clear();
        o.vals_.clear();
        o.gen_of_.clear();
        return *this;
    }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    V* find(const K& k) {
        if (size_ == 0) return nullptr;
        for (size_t i = slot(k);; i = (i + 1) & mask_) {
            if (gen_of_[i] != gen_) return nullptr;
            if (keys_[i] == k) return &vals_[i];
        }
    }
    const V* find(const K& k) const { return const_cast<FlatMap*>(this)->find(k); }

    // The value of k, made from v when k was absent (second: inserted).
    std::pair<V*, bool> try_emplace(const K& k, const V& v = V{}) {
        if ((size_ + 1) * 4 > keys_.size() * 3) grow();
        size_t i = slot(k);
        for (; gen_of_[i] == gen_; i = (i + 1) & mask_)
            if (keys_[i] == k) return {&vals_[i], false};
        gen_of_[i] = gen_;
        keys_[i] = k;
        vals_[i] = v;
        size_++;
        return {&vals_[i], true};
    }
    V& operator[](const K& k) { return *try_emplace(k).first; }

    void clear() {
        if (size_ == 0) return;
        size_ = 0;
        if (++gen_ == 0) {  // wrapped: every slot marked free again
            std::memset(gen_of_.data(), 0, gen_of_.size());
            gen_ = 1;
        }
    }

    // fn(key, value) for every entry, in no particular order.
    template <class Fn>
    void for_each(Fn&& fn) const {
        if (size_ == 0) return;
        for (size_t i = 0; i < keys_.size(); ++i)
            if (gen_of_[i] == gen_) fn(keys_[i], vals_[i]);
    }

private:
    size_t slot(const K& k) const { return static_cast<size_t>(Hash{}(k) >> shift_) & mask_; }
    // Built aside and swapped in: a failed allocation leaves the map as it was.
    void grow() {
        const size_t n = keys_.empty() ? 16 : keys_.size() * 2;
        HugeVector<K> keys(n);
        HugeVector<V> vals(n);
        HugeVector<uint8_t> gen_of(n, 0);
        const size_t mask = n - 1;
        const unsigned shift = 64 - static_cast<unsigned>(__builtin_ctzll(n));
        for (size_t i = 0; i < keys_.size(); ++i)
            if (gen_of_[i] == gen_) {
                size_t j = static_cast<size_t>(Hash{}(keys_[i]) >> shift) & mask;
                while (gen_of[j]) j = (j + 1) & mask;
                gen_of[j] = 1;
                keys[j] = keys_[i];
                vals[j] = std::move(vals_[i]);
            }
        keys_.swap(keys);
        vals_.swap(vals);
        gen_of_.swap(gen_of);
        gen_ = 1;
        mask_ = mask;
        shift_ = shift;
    }

    // Keys, values and marks in separate arrays: a u64 -> u8 map costs 10
    // bytes a slot, at most 3/4 full.
    HugeVector<K> keys_;
    HugeVector<V> vals_;
    HugeVector<uint8_t> gen_of_;  // slot i is in use when gen_of_[i] == gen_
    uint8_t gen_ = 1;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

// An index over values kept elsewhere (util::Chunked, addresses stable): a
// table of (value index, 16 bits of the key's hash), probed linearly; a
// probe reads the value's key only when the hash bits match (1 in 65,536
// of the others). 6 bytes a slot, at most 3/4 full: for a million streams
// the index costs 12 MiB (16 with 32 hash bits), where a map holding keys
// and values took 117.
template <class K, class Hash>
class FlatIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    FlatIndex() = default;
    FlatIndex(FlatIndex&& o) noexcept { *this = std::move(o); }
    FlatIndex& operator=(FlatIndex&& o) noexcept {  // the source is left empty
        slots_ = std::move(o.slots_);
        mask_ = std::exchange(o.mask_, 0);
        shift_ = std::exchange(o.shift_, 64);
        size_ = std::exchange(o.size_, 0);
        o.slots_.clear();
        return *this;
    }

    // The index of the value whose key is k, or kNone. key_of(i): the key
    // of value i.
    template <class KeyOf>
    uint32_t find(const K& k, const KeyOf& key_of) const {
        if (size_ == 0) return kNone;
        const uint64_t h = Hash{}(k);
        const auto tag = static_cast<uint16_t>(h);
        for (size_t i = slot(h);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.index == kNone) return kNone;
            if (s.tag == tag && key_of(s.index) == k) return s.index;
        }
    }
    // Hints for a find(k) to come: the slot k hashes to, into the cache;
    // and (once that slot is in cache) the value index of the first slot
    // from there whose hash bits match k's, a guess: the key is not compared
    // (kNone when an empty slot comes first).
    void prefetch_slot(const K& k) const {
        if (size_ != 0) __builtin_prefetch(&slots_[slot(Hash{}(k))]);
    }
    uint32_t guess(const K& k) const {
        if (size_ == 0) return kNone;
        const uint64_t h = Hash{}(k);
        const auto tag = static_cast<uint16_t>(h);
        for (size_t i = slot(h);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.index == kNone || s.tag == tag) return s.index;
        }
    }
    // Adds value index `index` under k, which must not be there yet.
    template <class KeyOf>
    void insert(const K& k, uint32_t index, const KeyOf& key_of) {
        if ((size_ + 1) * 4 > slots_.size() * 3) grow(key_of);
        place(Hash{}(k), index);
        size_++;
    }
    size_t size() const { return size_; }

private:
    struct __attribute__((packed)) Slot {
        uint32_t index = kNone;
        uint16_t tag = 0;
    };
    static_assert(sizeof(Slot) == 6);
    size_t slot(uint64_t h) const { return static_cast<size_t>(h >> shift_) & mask_; }
    void place(uint64_t h, uint32_t index) {
        size_t i = slot(h);
        while (slots_[i].index != kNone) i = (i + 1) & mask_;
        slots_[i] = {index, static_cast<uint16_t>(h)};
    }
    template <class KeyOf>
    void grow(const KeyOf& key_of) {  // built aside: a failed allocation changes nothing
        const size_t n = slots_.empty() ? 16 : slots_.size() * 2;
        HugeVector<Slot> slots(n, Slot{});
        const size_t mask = n - 1;
        const unsigned shift = 64 - static_cast<unsigned>(__builtin_ctzll(n));
        for (const Slot& s : slots_)
            if (s.index != kNone) {
                const uint64_t h = Hash{}(key_of(s.index));
                size_t i = static_cast<size_t>(h >> shift) & mask;
                while (slots[i].index != kNone) i = (i + 1) & mask;
                slots[i] = {s.index, static_cast<uint16_t>(h)};
            }
        slots_.swap(slots);
        mask_ = mask;
        shift_ = shift;
    }

    HugeVector<Slot> slots_;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

}  // namespace iolens::util
