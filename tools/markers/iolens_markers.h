/*
 * iolens_markers.h: epoch and step markers for iolens (docs/markers.md).
 * Header-only, C99 or C++, no dependencies beyond <unistd.h>.
 *
 * The traced process calls access(2) on a path under "/.iolens/", a directory
 * that does not exist: the call fails at once with ENOENT and changes
 * nothing, and iolens sees the path in its stat-class syscall probe:
 *
 *   /.iolens/epoch/N   epoch N starts (and the previous epoch ends)
 *   /.iolens/step/N    step N starts
 *   /.iolens/end       training ends
 *
 *   #include "iolens_markers.h"
 *   for (int e = 0; e < epochs; ++e) {
 *       iolens_epoch(e);
 *       for (long s = 0; s < steps; ++s) { iolens_step(s); ... }
 *   }
 *   iolens_end();
 *
 * One syscall per marker, errno preserved, async-signal-safe (no allocation,
 * no stdio). Note that glibc's access() is the access syscall on x86_64 but
 * faccessat on architectures without it (arm64); iolens counts both.
 */
#ifndef IOLENS_MARKERS_H
#define IOLENS_MARKERS_H

#include <errno.h>
#include <unistd.h>

#define IOLENS_MARKER_PREFIX "/.iolens/"

/* Formats PREFIX + kind + "/" + n into buf without stdio. */
static inline void iolens_marker_(const char* kind, long long n, int numbered) {
    char buf[64];
    char digits[24];
    size_t i = 0, d = 0;
    unsigned long long u;
    const char* p;
    int saved = errno;
    for (p = IOLENS_MARKER_PREFIX; *p; ++p) buf[i++] = *p;
    for (p = kind; *p && i < sizeof buf - 26; ++p) buf[i++] = *p;
    if (numbered) {
        buf[i++] = '/';
        if (n < 0) {
            buf[i++] = '-';
            u = 0ULL - (unsigned long long)n;
        } else {
            u = (unsigned long long)n;
        }
        do {
            digits[d++] = (char)('0' + (int)(u % 10));
            u /= 10;
        } while (u != 0);
        while (d > 0) buf[i++] = digits[--d];
    }
    buf[i] = '\0';
    (void)access(buf, F_OK);
    errno = saved;
}

/* Epoch n starts (and the previous one ends). */
static inline void iolens_epoch(long long n) { iolens_marker_("epoch", n, 1); }

/* Step n starts. */
static inline void iolens_step(long long n) { iolens_marker_("step", n, 1); }

/* Training ends. */
static inline void iolens_end(void) { iolens_marker_("end", 0, 0); }

#endif /* IOLENS_MARKERS_H */
