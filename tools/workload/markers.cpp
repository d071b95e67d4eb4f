#include "markers.h"

#include "sys.h"
#include "util.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace wl {

namespace {

// The documented counts promise one failed call (ENOENT) per marker; a
// /.iolens that exists on this machine would change them, so it fails the run.
void mark(const char* path) {
    const int r = sc::access(path, F_OK);
    if (r == -1 && errno == ENOENT) return;
    if (r == 0)
        fail("marker %s exists on this machine: remove /.iolens (markers must fail with ENOENT)", path);
    fail_errno(errno, "marker access(%s) did not fail with ENOENT", path);
}

void mark_numbered(const char* kind, uint64_t n) {
    char path[64];
    std::snprintf(path, sizeof path, "/.iolens/%s/%llu", kind, static_cast<unsigned long long>(n));
    mark(path);
}

}  // namespace

void marker_epoch(uint64_t n) { mark_numbered("epoch", n); }
void marker_step(uint64_t n) { mark_numbered("step", n); }
void marker_end() { mark("/.iolens/end"); }

}  // namespace wl
