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
constexpr uint64_t splitmix64_at(uint64_t seed, uint64_t i) {
    return mix64(seed + (i + 1) * kSplitMixGamma);
}

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

}  // namespace wl
