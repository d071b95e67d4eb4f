#pragma once
// Memory for the report's large, randomly probed tables, on transparent huge
// pages where the kernel offers them (THP "madvise" mode, Debian's default).
//
// Why: a 200,000-file recording's report probes a file index and a stream
// table of tens of MiB at random. With 4 KiB pages nearly every probe misses
// the TLB, and on a VM a TLB miss walks two page tables: measured, huge pages
// took the 200k-file report from ~7.5 s to ~6.2 s (GLIBC_TUNABLES
// glibc.malloc.hugetlb=1 on everything, docs/benchmarks-report.md). Asking
// for them only here keeps small allocations on small pages (that tunable
// grew the peak by 25-70 MiB).
//
// HugeAllocator: a std allocator; blocks of 1 MiB or more are 2 MiB aligned,
// rounded up to 2 MiB and advised MADV_HUGEPAGE, smaller ones come from
// operator new. Chunked<T>: a sequence whose elements never move (as
// std::deque), in 2 MiB blocks advised the same way from the second on (a
// small job touches a few pages of the first, not a whole huge page).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace iolens::util {

inline constexpr size_t kHugePage = size_t{2} << 20;

inline size_t huge_round(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// At least `bytes`, 2 MiB aligned, advised as huge pages unless `advise` is
// false (a hint: without THP they are plain pages). Mapped on its own, not
// taken from malloc's heap: freed (huge_free, with the same bytes), it goes
// back to the kernel at once. From the heap, the stream and file tables a
// report frees half-way stayed in the process (malloc gives back only the
// top of its heap, and a second thread's arena holds its own), which kept the
// 200,000-file report's peak 60-120 MiB above the memory in use.
inline void* huge_alloc(size_t bytes, bool advise = true) {
    const size_t n = huge_round(bytes);
    // One huge page more than needed, then the ends cut off: aligned.
    void* raw = mmap(nullptr, n + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto lo = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t at = (lo + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
    if (at > lo) munmap(raw, at - lo);
    if (const uintptr_t end = lo + n + kHugePage; end > at + n)
        munmap(reinterpret_cast<void*>(at + n), end - (at + n));
    void* p = reinterpret_cast<void*>(at);
    if (advise) madvise(p, n, MADV_HUGEPAGE);
    return p;
}

inline void huge_free(void* p, size_t bytes) {
    if (p) munmap(p, huge_round(bytes));
}

template <class T>
struct HugeAllocator {
    using value_type = T;
    static constexpr size_t kHugeFrom = size_t{1} << 20;
    HugeAllocator() = default;
    template <class U>
    HugeAllocator(const HugeAllocator<U>&) {}
    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes >= kHugeFrom) return static_cast<T*>(huge_alloc(bytes));
        return static_cast<T*>(::operator new(bytes));
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) >= kHugeFrom)
            huge_free(p, n * sizeof(T));
        else
            ::operator delete(p);
    }
    template <class U>
    bool operator==(const HugeAllocator<U>&) const {
        return true;
    }
};

template <class T>
using HugeVector = std::vector<T, HugeAllocator<T>>;

template <class T>
class Chunked {
public:
    static constexpr size_t kPerBlock = kHugePage / sizeof(T) ? kHugePage / sizeof(T) : 1;

    Chunked() = default;
    Chunked(const Chunked&) = delete;
    Chunked& operator=(const Chunked&) = delete;
    Chunked(Chunked&& o) noexcept : blocks_(std::move(o.blocks_)), size_(std::exchange(o.size_, 0)) {}
    Chunked& operator=(Chunked&& o) noexcept {
        if (this != &o) {
            release();
            blocks_ = std::move(o.blocks_);
            size_ = std::exchange(o.size_, 0);
        }
        return *this;
    }
    ~Chunked() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T& operator[](size_t i) { return blocks_[i / kPerBlock][i % kPerBlock]; }
    const T& operator[](size_t i) const { return blocks_[i / kPerBlock][i % kPerBlock]; }

    T& emplace_back() {
        if (blocks_.size() * kPerBlock == size_) {  // full (or empty): a new block
            blocks_.reserve(blocks_.size() + 1);
            blocks_.push_back(static_cast<T*>(huge_alloc(kPerBlock * sizeof(T), !blocks_.empty())));
        }
        T* p = new (&blocks_[size_ / kPerBlock][size_ % kPerBlock]) T();
        size_++;
        return *p;
    }

    // Every element, in order.
    template <class Fn>
    void for_each(Fn&& fn) const {
        for (size_t i = 0; i < size_; ++i) fn((*this)[i]);
    }

private:
    void release() {
        for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
        for (T* b : blocks_) huge_free(b, kPerBlock * sizeof(T));
        blocks_.clear();
        size_ = 0;
    }
    std::vector<T*> blocks_;
    size_t size_ = 0;
};

}  // namespace iolens::util
