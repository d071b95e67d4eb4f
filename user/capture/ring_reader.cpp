#include "capture/ring_reader.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/errno_text.h"

namespace iolens::capture {

namespace {

// Publish the consumer position at least this often within one pass, so a
// long drain frees space for the producer as it goes.
constexpr uint64_t kReleaseBytes = 4 << 20;

uint64_t load_acquire(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
uint32_t load_acquire(const uint32_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

}  // namespace

Result<std::unique_ptr<RingReader>> RingReader::open(int map_fd) {
    bpf_map_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(map_fd, &info, &len) != 0)
        return errno_error("cannot inspect the BPF ring buffer");
    if (info.type != BPF_MAP_TYPE_RINGBUF)
        return make_error("internal error: map " + std::to_string(map_fd) + " is not a ring buffer");
    const long page = sysconf(_SC_PAGESIZE);
    std::unique_ptr<RingReader> r(new RingReader());
    r->map_fd_ = map_fd;
    r->size_ = info.max_entries;
    // Layout (kernel/bpf/ringbuf.c): the consumer page (read-write), then the
    // producer page and the data pages twice (read-only).
    r->consumer_map_ = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
    if (r->consumer_map_ == MAP_FAILED) {
        r->consumer_map_ = nullptr;
        return errno_error("cannot map the BPF ring buffer's consumer page");
    }
    r->producer_map_len_ = static_cast<size_t>(page) + 2 * r->size_;
    r->producer_map_ = mmap(nullptr, r->producer_map_len_, PROT_READ, MAP_SHARED, map_fd, page);
    if (r->producer_map_ == MAP_FAILED) {
        r->producer_map_ = nullptr;
        return errno_error("cannot map the BPF ring buffer's data");
    }
    r->consumer_pos_ = static_cast<uint64_t*>(r->consumer_map_);
    r->producer_pos_ = static_cast<const uint64_t*>(r->producer_map_);
    r->data_ = static_cast<const uint8_t*>(r->producer_map_) + page;
    return r;
}

RingReader::~RingReader() {
    if (producer_map_) munmap(producer_map_, producer_map_len_);
    if (consumer_map_) munmap(consumer_map_, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
}

size_t RingReader::consume(const Callback& on_record) {
    uint64_t cons = load_acquire(consumer_pos_);
    uint64_t released = cons;
    size_t n = 0;
    for (;;) {
        const uint64_t prod = load_acquire(producer_pos_);
        if (cons >= prod) break;
        while (cons < prod) {
            const auto* hdr = reinterpret_cast<const uint32_t*>(data_ + (cons & (size_ - 1)));
            const uint32_t len = load_acquire(hdr);
            if (len & BPF_RINGBUF_BUSY_BIT) goto done;  // still being written: the rest comes next pass
            const uint32_t size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
            if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
                on_record(reinterpret_cast<const uint8_t*>(hdr) + BPF_RINGBUF_HDR_SZ, size);
                n++;
            }
            cons += (static_cast<uint64_t>(size) + BPF_RINGBUF_HDR_SZ + 7) & ~uint64_t{7};
            if (cons - released >= kReleaseBytes) {
                __atomic_store_n(consumer_pos_, cons, __ATOMIC_RELEASE);
                released = cons;
            }
        }
    }
done:
    if (cons != released) __atomic_store_n(consumer_pos_, cons, __ATOMIC_RELEASE);
    return n;
}

}  // namespace iolens::capture
