// Deterministic pseudo-random numbers for the workload generator.
//
// Everything random in iolens-workload (dataset bytes, epoch shuffles) comes
// from here, so a run is a pure function of its arguments: the same seed gives
// the same files and the same access order on every machine and every run,
// which is what lets tests compare against fixed expectations.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace wl {

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", 2014): a counter stepped by a fixed odd gamma and passed through
// a strong 64-bit mixer. Chosen because its i-th output is computable directly,
// so dataset bytes can be generated at any offset without generating the
// bytes before them.
inline constexpr uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;

constexpr uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The i-th output (0-based) of a splitmix64 generator seeded with `seed`.
constexpr uint64_t splitmix64_at(uint64_t seed, uint64_t i) { return mix64(seed + (i + 1) * kSplitMixGamma); }

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        state_ += kSplitMixGamma;
        return mix64(state_);
    }

    // Uniform in [0, bound), bound > 0. Plain `next() % bound` favours small
    // values; rejecting the lowest (2^64 mod bound) outputs removes that bias,
    // so the shuffle is a true uniform permutation.
    uint64_t below(uint64_t bound) {
        const uint64_t threshold = (0 - bound) % bound;
        for (;;) {
            const uint64_t r = next();
            if (r >= threshold) return r % bound;
        }
    }

private:
    uint64_t state_;
};

// A Fisher-Yates permutation of 0..n-1, fixed by (n, seed).
inline std::vector<uint32_t> shuffled_indices(uint32_t n, uint64_t seed) {
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    SplitMix64 rng(seed);
    for (uint32_t i = n; i > 1; --i) {
        const auto j = static_cast<uint32_t>(rng.below(i));
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

// A keyed pseudo-random permutation of 0..n-1 that needs no memory: slot(i)
// for i = 0..n-1 visits every value once, in an order fixed by (n, seed).
// random-read uses it so that its first n offsets are distinct (a cold file
// then gets exactly one miss per read) without storing a shuffled array of
// file-size / read-size entries.
//
// The core is a bijection on k-bit numbers (2^k >= n): rounds of an odd
// multiplier plus a key (bijective mod 2^k) and an xorshift (bijective too).
// Values outside [0, n) are walked through the bijection again ("cycle
// walking"): the walk ends, since the cycle through a value below n comes back
// to it, and the result is a bijection on [0, n). 2^k < 2n, so fewer than two
// steps are needed on average.
class SlotPermutation {
public:
    SlotPermutation(uint64_t n, uint64_t seed) : n_(n) {
        while (bits_ < 64 && (uint64_t{1} << bits_) < n) ++bits_;
        mask_ = bits_ == 64 ? ~uint64_t{0} : (uint64_t{1} << bits_) - 1;
        shift_ = bits_ / 2 > 0 ? bits_ / 2 : 1;
        SplitMix64 rng(seed);
        for (auto& r : rounds_) r = Round{rng.next() | 1, rng.next()};
    }

    // The i-th slot, i < n.
    uint64_t slot(uint64_t i) const {
        if (n_ <= 1) return 0;
        uint64_t x = mix(i);
        while (x >= n_) x = mix(x);
        return x;
    }

private:
    struct Round {
        uint64_t mul;  // odd
        uint64_t add;
    };

    uint64_t mix(uint64_t x) const {
        for (const Round& r : rounds_) {
            x = (x * r.mul + r.add) & mask_;
            x ^= x >> shift_;
        }
        return x;
    }

    uint64_t n_;
    unsigned bits_ = 0;
    uint64_t mask_ = 0;
    unsigned shift_ = 1;
    Round rounds_[4]{};
};

}  // namespace wl
