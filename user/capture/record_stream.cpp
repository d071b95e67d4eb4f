#include "capture/record_stream.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "capture/stack_capture.h"
#include "iolens/abi.h"
#include "recording/record_calls.h"
#include "util/clock.h"

namespace iolens::capture {

void RecordStream::note_error(const std::string& message) {
    if (error_.empty()) error_ = message;
}

std::vector<uint32_t> RecordStream::take_execs() {
    std::vector<uint32_t> out;
    out.swap(exec_pending_);
    return out;
}

void RecordStream::note_record(const void* p, size_t size) {
    const auto* hdr = static_cast<const iolens_rec_hdr*>(p);
    if (hdr->type == IOLENS_REC_FORK && size >= sizeof(iolens_proc_rec)) {
        const auto* rec = static_cast<const iolens_proc_rec*>(p);
        live_.insert(rec->pid);
        // A process that joined the --cgroup group runs an image of its own:
        // its rank variables are read as at an exec.
        if (rec->exit_code == IOLENS_FORK_JOINED) exec_pending_.push_back(rec->pid);
        if (rec->exit_code == IOLENS_FORK_JOINED) joined_.push_back(rec->pid);
        if (stacks_) stacks_->on_fork(rec->pid, rec->ppid);
    } else if (hdr->type == IOLENS_REC_EXIT && size >= sizeof(iolens_proc_rec))
        live_.erase(static_cast<const iolens_proc_rec*>(p)->pid);
    else if (hdr->type == IOLENS_REC_EXEC && size >= offsetof(iolens_exec_rec, args)) {
        exec_pending_.push_back(static_cast<const iolens_exec_rec*>(p)->pid);
        if (stacks_) stacks_->on_exec(static_cast<const iolens_exec_rec*>(p)->pid);
    } else if (hdr->type == IOLENS_REC_SYSCALL && stacks_ && size >= IOLENS_SYSCALL_REC_V1_SIZE) {
        uint8_t op;
        std::memcpy(&op, static_cast<const std::byte*>(p) + offsetof(iolens_syscall_rec, op), 1);
        if (op == IOLENS_OP_MMAP) {
            uint32_t pid;
            std::memcpy(&pid, static_cast<const std::byte*>(p) + offsetof(iolens_syscall_rec, pid), 4);
            stacks_->on_mmap(pid);
        }
    } else if (hdr->type == IOLENS_REC_BLOCK && size >= sizeof(iolens_block_rec))
        devices_.insert(static_cast<const iolens_block_rec*>(p)->dev);
}

// record --stacks: a stack record (the kernel sends each alone) is unwound
// and written in its compact form (capture/stack_capture.h). False when the
// sample is not one well-formed stack record.
bool RecordStream::stack_sample(const void* data, size_t size) {
    constexpr size_t fixed = offsetof(iolens_stack_rec, data);
    if (!stacks_ || size < fixed) return false;
    iolens_rec_hdr hdr;
    std::memcpy(&hdr, data, sizeof hdr);
    if (hdr.type != IOLENS_REC_STACK) return false;
    if (!stack_buf_) stack_buf_ = std::make_unique<iolens_stack_rec>();
    auto& rec = stack_buf_;
    std::memcpy(rec.get(), data, fixed);
    const size_t words = size_t{rec->nframes} + rec->nwords;
    if (rec->hdr.type != IOLENS_REC_STACK || rec->hdr.size != size || rec->nframes > IOLENS_STACK_DEPTH ||
        words > sizeof(rec->data) / 8 || fixed + words * 8 > size)
        return false;
    std::memcpy(rec->data, static_cast<const std::byte*>(data) + fixed, words * 8);
    const auto out = stacks_->on_stack(*rec, reinterpret_cast<const uint64_t*>(rec->data), monotonic_ns());
    records_++;
    if (auto r = writer_.append_records(out, 1); !r) note_error(r.error().message);
    return true;
}

void RecordStream::on_sample(const void* data, size_t size) {
    if (stack_sample(data, size)) return;
    const auto* bytes = static_cast<const std::byte*>(data);
    size_t off = 0;
    const uint64_t before = records_;
    do {
        if (size - off < sizeof(iolens_rec_hdr)) {
            records_++;
            break;  // malformed: the file keeps it, the report will say so
        }
        const auto* hdr = reinterpret_cast<const iolens_rec_hdr*>(bytes + off);
        const size_t len = std::min<size_t>(hdr->size, size - off);
        records_ += hdr->size <= size - off ? recording::record_calls(*hdr) : 1;
        note_record(hdr, len);
        if (hdr->size < sizeof(iolens_rec_hdr)) break;
        off += len;
    } while (off < size);
    // The writer buffers records into chunks itself.
    if (auto r = writer_.append_records({bytes, size}, records_ - before); !r) note_error(r.error().message);
}

}  // namespace iolens::capture
