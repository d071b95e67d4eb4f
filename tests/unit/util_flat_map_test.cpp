// util::FlatMap against std::unordered_map: same answers for any sequence
// of inserts, lookups and clears, including keys that collide in the table.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "util/flat_map.h"
#include "util/huge_pages.h"

using iolens::util::FlatMap;

TEST(FlatMap, AgreesWithUnorderedMapThroughGrowthAndClears) {
    std::mt19937_64 rng(7);
    FlatMap<uint64_t, uint64_t> m;
    std::unordered_map<uint64_t, uint64_t> ref;
    for (int round = 0; round < 4; ++round) {
        // Small keys (dense, as file indices), multiples of a power of two
        // (same low bits) and random ones.
        for (int i = 0; i < 50000; ++i) {
            const uint64_t kind = rng() % 3;
            const uint64_t k = kind == 0 ? rng() % 5000 : kind == 1 ? (rng() % 5000) << 32 : rng();
            auto [v, inserted] = m.try_emplace(k, i);
            auto [it, ref_inserted] = ref.try_emplace(k, i);
            ASSERT_EQ(inserted, ref_inserted);
            ASSERT_EQ(*v, it->second);
            *v += 1;
            it->second += 1;
        }
        ASSERT_EQ(m.size(), ref.size());
        for (const auto& [k, v] : ref) {
            const uint64_t* got = m.find(k);
            ASSERT_NE(got, nullptr);
            ASSERT_EQ(*got, v);
        }
        for (int i = 0; i < 1000; ++i) {
            const uint64_t k = rng();
            ASSERT_EQ(m.find(k) != nullptr, ref.count(k) != 0);
        }
        size_t seen = 0;
        m.for_each([&](uint64_t k, uint64_t v) {
            ASSERT_EQ(ref.at(k), v);
            seen++;
        });
        ASSERT_EQ(seen, ref.size());
        if (round % 2 == 0) {  // a cleared map is empty and takes the same keys again
            m.clear();
            ref.clear();
            EXPECT_TRUE(m.empty());
            EXPECT_EQ(m.find(1), nullptr);
        }
    }
}

TEST(FlatMap, ManyClearsStayEmpty) {
    FlatMap<uint32_t, uint32_t> m;
    for (uint32_t i = 0; i < 100000; ++i) {
        m[i % 7] = i;
        m[i % 7 + 100] = i;
        ASSERT_EQ(m.size(), 2u);
        ASSERT_EQ(*m.find(i % 7), i);
        ASSERT_EQ(m.find((i + 1) % 7), nullptr);
        m.clear();
    }
}

TEST(FlatMap, MovedFromIsEmptyAndUsable) {
    FlatMap<uint64_t, uint64_t> a;
    for (uint64_t i = 0; i < 100; ++i) a[i] = i * 2;
    FlatMap<uint64_t, uint64_t> b = std::move(a);
    EXPECT_EQ(b.size(), 100u);
    EXPECT_EQ(*b.find(7), 14u);
    EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the contract under test
    EXPECT_EQ(a.find(7), nullptr);
    a[3] = 9;
    EXPECT_EQ(*a.find(3), 9u);
}

TEST(Chunked, ElementsStayPutAcrossBlocks) {
    iolens::util::Chunked<std::array<uint64_t, 5>> c;
    std::vector<const void*> where;
    const size_t n = 3 * decltype(c)::kPerBlock + 17;
    for (size_t i = 0; i < n; ++i) {
        auto& e = c.emplace_back();
        e[0] = i;
        where.push_back(&e);
    }
    ASSERT_EQ(c.size(), n);
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(c[i][0], i);
        ASSERT_EQ(static_cast<const void*>(&c[i]), where[i]);
    }
    iolens::util::Chunked<std::array<uint64_t, 5>> d = std::move(c);
    EXPECT_EQ(d.size(), n);
    EXPECT_EQ(d[n - 1][0], n - 1);
}
