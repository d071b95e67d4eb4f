#include "export/syscall_names.h"

#include "iolens/abi.h"
#include "model/report.h"

namespace iolens::exports {

namespace {

constexpr int kAnyOp = -1;  // a call whose records may be of several classes (copies, requests)

struct Name {
    uint16_t nr;
    int op;
    std::string_view name;
    std::string_view dftracer;
};

// x86_64 (asm/unistd_64.h), as bpf/syscall_nr.bpf.h lists them.
constexpr Name kNames[] = {
    {0, IOLENS_OP_READ, "read", "read"},
    {1, IOLENS_OP_WRITE, "write", "write"},
    {2, IOLENS_OP_OPEN, "open", "open64"},
    {3, IOLENS_OP_CLOSE, "close", "close"},
    {4, IOLENS_OP_STAT, "stat", "stat"},
    {5, IOLENS_OP_STAT, "fstat", "fstat"},
    {6, IOLENS_OP_STAT, "lstat", "lstat"},
    {8, IOLENS_OP_SEEK, "lseek", "lseek64"},
    {9, IOLENS_OP_MMAP, "mmap", "mmap"},
    {17, IOLENS_OP_READ, "pread64", "pread"},
    {18, IOLENS_OP_WRITE, "pwrite64", "pwrite"},
    {19, IOLENS_OP_READ, "readv", "readv"},
    {20, IOLENS_OP_WRITE, "writev", "writev"},
    {21, IOLENS_OP_STAT, "access", "access"},
    {40, kAnyOp, "sendfile", "sendfile"},
    {74, IOLENS_OP_SYNC, "fsync", "fsync"},
    {75, IOLENS_OP_SYNC, "fdatasync", "fdatasync"},
    {85, IOLENS_OP_OPEN, "creat", "creat64"},
    {208, kAnyOp, "io_getevents", "io_getevents"},
    {209, kAnyOp, "io_submit", "io_submit"},
    {217, IOLENS_OP_READDIR, "getdents64", "readdir"},
    {257, IOLENS_OP_OPEN, "openat", "openat"},
    {262, IOLENS_OP_STAT, "newfstatat", "fstatat"},
    {269, IOLENS_OP_STAT, "faccessat", "faccessat"},
    {275, kAnyOp, "splice", "splice"},
    {277, IOLENS_OP_SYNC, "sync_file_range", "sync_file_range"},
    {295, IOLENS_OP_READ, "preadv", "preadv"},
    {296, IOLENS_OP_WRITE, "pwritev", "pwritev"},
    {326, kAnyOp, "copy_file_range", "copy_file_range"},
    {327, IOLENS_OP_READ, "preadv2", "preadv"},
    {328, IOLENS_OP_WRITE, "pwritev2", "pwritev"},
    {332, IOLENS_OP_STAT, "statx", "statx"},
    {426, kAnyOp, "io_uring_enter", "io_uring_enter"},
    {437, IOLENS_OP_OPEN, "openat2", "openat"},
    {439, IOLENS_OP_STAT, "faccessat2", "faccessat"},
};

// The entry for nr, if its class is op's: a record whose number does not
// fit its class (a synthetic one) is named by its class.
const Name* find(uint16_t nr, int op) {
    for (const auto& n : kNames)
        if (n.nr == nr) return n.op == op || n.op == kAnyOp ? &n : nullptr;
    return nullptr;
}

// DFTracer's names for a class, when the syscall is not known.
std::string_view dftracer_class_name(int op) {
    switch (op) {
        case IOLENS_OP_READ:
            return "read";
        case IOLENS_OP_WRITE:
            return "write";
        case IOLENS_OP_OPEN:
            return "open64";
        case IOLENS_OP_CLOSE:
            return "close";
        case IOLENS_OP_STAT:
            return "stat";
        case IOLENS_OP_SEEK:
            return "lseek64";
        case IOLENS_OP_MMAP:
            return "mmap";
        case IOLENS_OP_READDIR:
            return "readdir";
        case IOLENS_OP_SYNC:
            return "fsync";
        default:
            return "unknown";
    }
}

}  // namespace

std::string_view syscall_name(uint16_t nr, int op) {
    if (const Name* n = find(nr, op)) return n->name;
    return op >= 0 && op < model::kOpCount ? model::op_name(op) : "unknown";
}

std::string_view dftracer_name(uint16_t nr, int op, int path) {
    if (path != IOLENS_PATH_SYSCALL) {
        const bool offset = path != IOLENS_PATH_COPY;  // requests carry their offset
        switch (op) {
            case IOLENS_OP_READ:
                return offset ? "pread" : "read";
            case IOLENS_OP_WRITE:
                return offset ? "pwrite" : "write";
            case IOLENS_OP_OPEN:
                return "openat";
            case IOLENS_OP_CLOSE:
                return "close";
            case IOLENS_OP_STAT:
                return "statx";
            case IOLENS_OP_SYNC:
                return "fsync";
            default:
                break;
        }
    }
    if (const Name* n = find(nr, op)) return n->dftracer;
    return dftracer_class_name(op);
}

}  // namespace iolens::exports
