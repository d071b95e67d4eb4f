#include "selftest/prepare.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "selftest/scenario.h"
#include "util/errno_text.h"
#include "util/fd.h"

namespace iolens::selftest {

namespace {

std::string fs_name(unsigned long magic) {
    switch (magic) {
        case 0xEF53:
            return "ext4";  // ext2/3/4 share the magic
        case 0x58465342:
            return "xfs";
        case 0x9123683E:
            return "btrfs";
        case 0x01021994:
            return "tmpfs";
        case 0x858458f6:
            return "ramfs";
        case 0x794c7630:
            return "overlay";
        case 0x6969:
            return "nfs";
        case 0x65735546:
            return "fuse";
        case 0x2fc12fc1:
            return "zfs";
        case 0xF2F52010:
            return "f2fs";
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%lx", magic);
    return buf;
}

Storage classify(const std::string& dir) {
    Storage s;
    struct statfs sf {};
    if (statfs(dir.c_str(), &sf) == 0) s.fs_type = fs_name(static_cast<unsigned long>(sf.f_type));
    s.memory_backed = s.fs_type == "tmpfs" || s.fs_type == "ramfs";
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0) {
        s.no_block_reason = "cannot stat " + dir + ": " + errno_text();
        return s;
    }
    if (s.memory_backed) {
        s.no_block_reason = dir + " is on " + s.fs_type + " (memory, no block device)";
        return s;
    }
    // btrfs, overlayfs, NFS and FUSE report an anonymous device (major 0):
    // their block I/O, if any, is not on a device the file's dev names.
    const std::string id = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    std::ifstream uevent("/sys/dev/block/" + id + "/uevent");
    if (major(st.st_dev) == 0 || !uevent) {
        s.no_block_reason = dir + " is on " + s.fs_type + " with no block device of its own (dev " + id + ")";
        return s;
    }
    for (std::string line; std::getline(uevent, line);)
        if (line.rfind("DEVNAME=", 0) == 0) s.device = line.substr(8);
    s.block_device = true;
    return s;
}

// Writes size bytes of a pattern that differs per file and per offset, then
// fsyncs: clean pages can be evicted, dirty ones cannot.
Result<void> write_file(const std::string& path, uint64_t size, char seed) {
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd) return errno_error("cannot create " + path);
    std::vector<char> chunk(1 << 16);
    for (uint64_t off = 0; off < size; off += chunk.size()) {
        for (size_t i = 0; i < chunk.size(); i++) chunk[i] = static_cast<char>(seed + (off + i) * 31 / 7);
        size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - off));
        if (write(fd.get(), chunk.data(), n) != static_cast<ssize_t>(n))
            return make_error("cannot write " + path + ": " + errno_text() + " (is the file system full?)");
    }
    if (fsync(fd.get()) != 0) return errno_error("cannot fsync " + path);
    return {};
}

}  // namespace

Result<FileId> file_id(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return errno_error("cannot stat " + path);
    return FileId{static_cast<uint64_t>(st.st_ino), (major(st.st_dev) << 20) | minor(st.st_dev)};
}

Result<Prepared> prepare_files(const std::string& base) {
    struct stat st {};
    if (stat(base.c_str(), &st) != 0) return errno_error("--dir " + base);
    if (!S_ISDIR(st.st_mode)) return make_error("--dir " + base + ": not a directory");
    if (access(base.c_str(), W_OK | X_OK) != 0)
        return make_error("--dir " + base + ": not writable: " + errno_text());
    char resolved[PATH_MAX];
    if (!realpath(base.c_str(), resolved)) return errno_error("--dir " + base);
    std::string tmpl =
        std::string(resolved) + (std::string(resolved) == "/" ? "" : "/") + "iolens-selftest.XXXXXX";
    if (!mkdtemp(tmpl.data())) return errno_error("cannot create a directory in " + base);
    Prepared p;
    p.dir = tmpl;
    p.storage = classify(p.dir);
    if (auto r = write_file(p.dir + "/" + kWarmFile, kWarmFileSize, 'w'); !r) {
        remove_scratch(p.dir);
        return r.error();
    }
    if (auto r = write_file(p.dir + "/" + kColdFile, kColdFileSize, 'c'); !r) {
        remove_scratch(p.dir);
        return r.error();
    }
    auto warm = file_id(p.dir + "/" + kWarmFile);
    auto cold = file_id(p.dir + "/" + kColdFile);
    if (!warm || !cold) {
        remove_scratch(p.dir);
        return (!warm ? warm : cold).error();
    }
    p.warm = *warm;
    p.cold = *cold;
    return p;
}

Result<Residency> residency(const std::string& path) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return errno_error("cannot open " + path);
    struct stat st {};
    if (fstat(fd.get(), &st) != 0) return errno_error("cannot stat " + path);
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    Residency r;
    r.total = (static_cast<uint64_t>(st.st_size) + page - 1) / page;
    if (r.total == 0) return r;
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd.get(), 0);
    if (map == MAP_FAILED) return errno_error("cannot map " + path);
    std::vector<unsigned char> vec(r.total);
    int rc = mincore(map, static_cast<size_t>(st.st_size), vec.data());
    int err = errno;
    munmap(map, static_cast<size_t>(st.st_size));
    if (rc != 0) return errno_error("mincore on " + path, err);
    for (unsigned char v : vec) r.resident += v & 1;
    return r;
}

Result<Residency> evict(const std::string& path) {
    {
        UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd) return errno_error("cannot open " + path);
        if (fdatasync(fd.get()) != 0) return errno_error("cannot sync " + path);
        if (int e = posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED); e != 0)
            return errno_error("posix_fadvise(DONTNEED) on " + path, e);
    }
    return residency(path);
}

Result<Residency> warm_up(const std::string& path) {
    {
        UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd) return errno_error("cannot open " + path);
        std::vector<char> buf(1 << 16);
        ssize_t n;
        while ((n = read(fd.get(), buf.data(), buf.size())) > 0) {
        }
        if (n < 0) return errno_error("cannot read " + path);
    }
    return residency(path);
}

CachePin::CachePin(CachePin&& o) noexcept : map_(o.map_), len_(o.len_) {
    o.map_ = nullptr;
    o.len_ = 0;
}

CachePin& CachePin::operator=(CachePin&& o) noexcept {
    if (this != &o) {
        if (map_) munmap(map_, len_);
        map_ = o.map_;
        len_ = o.len_;
        o.map_ = nullptr;
        o.len_ = 0;
    }
    return *this;
}

CachePin::~CachePin() {
    if (map_) munmap(map_, len_);  // unmapping drops the lock
}

Result<CachePin> pin_in_cache(const std::string& path) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return errno_error("cannot open " + path);
    struct stat st {};
    if (fstat(fd.get(), &st) != 0) return errno_error("cannot stat " + path);
    CachePin pin;
    if (st.st_size == 0) return pin;
    const size_t len = static_cast<size_t>(st.st_size);
    void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (map == MAP_FAILED) return errno_error("cannot map " + path);
    if (mlock(map, len) != 0) {
        int err = errno;
        munmap(map, len);
        return errno_error("cannot lock " + path + " in memory", err);
    }
    pin.map_ = map;
    pin.len_ = len;
    return pin;
}

void remove_scratch(const std::string& dir) {
    // Only what the self-test creates: a flat directory of its own files.
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d))
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir.c_str());
}

}  // namespace iolens::selftest
