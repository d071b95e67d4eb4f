#pragma once
// What the recorder does with each ring-buffer sample while the job runs: the
// file takes the bytes as they are, and the few records the recorder must act
// on (a process forked, exited or exec'd; a block device seen) are noted.
// No analysis happens here: the summary is built from the file afterwards.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "recording/recording.h"

namespace iolens::capture {

class RecordStream {
public:
    explicit RecordStream(recording::Writer& writer) : writer_(writer) {}
    // record --stacks: stack records (and the forks and execs that change
    // whose mappings apply) go to it too.
    void set_stacks(class StackCapture* stacks) { stacks_ = stacks; }

    // One ring-buffer sample: one record, or a thread's batch of records back
    // to back (bpf/call_batch.bpf.h), each sized by its header.
    void on_sample(const void* data, size_t size);

    uint64_t records() const { return records_; }
    // Processes of a -p target still running (seeded at attach, kept by the
    // fork and exit records).
    std::set<uint32_t>& live() { return live_; }
    const std::set<uint32_t>& devices() const { return devices_; }
    // Processes that exec'd since the last call (their rank variables are to
    // be read while they still run).
    std::vector<uint32_t> take_execs();
    // Processes that joined the --cgroup group while traced.
    const std::vector<uint32_t>& joined() const { return joined_; }

    // The first write error (the recording goes on: recording::WriteLoss
    // counts what could not be written).
    const std::string& error() const { return error_; }
    void note_error(const std::string& message);

private:
    void note_record(const void* hdr, size_t size);
    bool stack_sample(const void* data, size_t size);

    recording::Writer& writer_;
    class StackCapture* stacks_ = nullptr;
    std::unique_ptr<struct iolens_stack_rec> stack_buf_;  // one stack record (8.8 KiB), reused
    uint64_t records_ = 0;
    std::set<uint32_t> live_;
    std::set<uint32_t> devices_;
    std::vector<uint32_t> exec_pending_;
    std::vector<uint32_t> joined_;
    std::string error_;
};

}  // namespace iolens::capture
