#include "util/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

#include "util/errno_text.h"

namespace iolens {

namespace {

std::string dir_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// What is at path now may be replaced (by force) or nothing is there.
Result<void> replaceable(const std::string& path, bool force, std::string_view what) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return {};
        return errno_error("cannot check " + path);
    }
    if (S_ISDIR(st.st_mode))
        return make_error(path + " is a directory; give a file name for " + std::string(what));
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return make_error(path + " is " + kind_of(st.st_mode) + ": iolens writes " + std::string(what) +
                          " only to a regular file, and never replaces anything else (even with -f)");
    if (!force) return make_error(path + " exists; use -f to replace it");
    return {};
}

}  // namespace

Result<void> check_output_path(const std::string& path, bool force, std::string_view what) {
    if (path.empty()) return make_error("no file name given for " + std::string(what));
    if (!path.empty() && path.back() == '/')
        return make_error(path + " names a directory; give a file name for " + std::string(what));
    return replaceable(path, force, what);
}

Result<OutputFile> OutputFile::create(const std::string& path, bool force, std::string_view what) {
    if (auto r = check_output_path(path, force, what); !r) return r.error();
    OutputFile f;
    f.path_ = path;
    f.what_ = what;
    f.force_ = force;
    // A dot file beside the target: same file system, so rename is atomic.
    std::string tmpl = dir_of(path) + "/." + base_of(path) + ".iolens-tmp-XXXXXX";
    // mkostemp: O_CREAT|O_EXCL, mode 0600; it never opens an existing file.
    const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0) return errno_error("cannot create " + std::string(what) + " " + path);
    f.fd_.reset(fd);
    f.temp_ = tmpl;
    // The umask may have taken bits away (or a 0 umask left them): the file
    // holds paths and command lines, so it is private to its owner.
    if (::fchmod(fd, 0600) != 0) return errno_error("cannot set mode 0600 on " + f.temp_);
    return f;
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : path_(std::move(o.path_)),
      temp_(std::exchange(o.temp_, std::string())),
      what_(std::move(o.what_)),
      force_(o.force_),
      committed_(o.committed_),
      fd_(std::move(o.fd_)) {}

OutputFile::~OutputFile() {
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

Result<void> OutputFile::commit() {
    if (committed_) return {};
    // Checked again: the directory may have changed since create().
    if (auto r = replaceable(path_, force_, what_); !r) return r;
    int rc;
    if (force_) {
        rc = ::rename(temp_.c_str(), path_.c_str());
    } else {
        rc = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // A file system without RENAME_NOREPLACE: link(2) never replaces either.
            rc = ::link(temp_.c_str(), path_.c_str());
            if (rc == 0) ::unlink(temp_.c_str());
        }
        if (rc != 0 && errno == EEXIST)
            return make_error(path_ + " appeared while iolens was writing it; use -f to replace it (" +
                              std::string(what_) + " is left in " + temp_ + ")");
    }
    if (rc != 0) return errno_error("cannot name " + std::string(what_) + " " + path_);
    committed_ = true;
    return {};
}

const std::string& OutputFile::keep_temporary() {
    committed_ = true;  // nothing to remove any more
    return temp_;
}

Result<void> OutputFile::close() {
    if (!fd_) return {};
    const int fd = fd_.release();
    if (::close(fd) != 0) return errno_error("cannot write " + std::string(what_) + " " + path_);
    return {};
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) return false;
    // Neither exists yet: the same name in the same directory.
    if (base_of(a) != base_of(b)) return false;
    struct stat da {
    }, db{};
    if (::stat(dir_of(a).c_str(), &da) != 0 || ::stat(dir_of(b).c_str(), &db) != 0)
        return dir_of(a) == dir_of(b);
    return da.st_dev == db.st_dev && da.st_ino == db.st_ino;
}

Result<void> write_output_file(const std::string& path, bool force, std::string_view what,
                               std::string_view text) {
    return write_output_file(path, force, what, [text](const PutText& put) { return put(text); });
}

Result<void> write_output_file(const std::string& path, bool force, std::string_view what,
                               const std::function<Result<void>(const PutText&)>& write) {
    auto f = OutputFile::create(path, force, what);
    if (!f) return f.error();
    const int fd = f->fd();
    const auto put = [&](std::string_view text) -> Result<void> {
        size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                return errno_error("cannot write " + std::string(what) + " " + path, n == 0 ? ENOSPC : errno);
            done += static_cast<size_t>(n);
        }
        return {};
    };
    if (auto r = write(put); !r) return r;
    if (auto r = f->close(); !r) return r;
    return f->commit();
}

}  // namespace iolens
