#include "harness.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <spdlog/spdlog.h>

#include "analysis/summarize.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

namespace iolens::fuzz {

namespace {

// The file the reader reads: one memfd for the whole run, rewritten per input.
const std::string& recording_path(int& fd) {
    static int memfd = -1;
    static std::string path;
    if (memfd < 0) {
        memfd = ::memfd_create("iolens-fuzz", MFD_CLOEXEC);
        if (memfd < 0) {
            std::perror("memfd_create");
            std::abort();
        }
        path = "/proc/self/fd/" + std::to_string(memfd);
        spdlog::set_level(spdlog::level::off);  // the reader's warnings are not findings
    }
    fd = memfd;
    return path;
}

}  // namespace

void run_recording(std::span<const uint8_t> bytes, const RunOptions& options) {
    int fd = -1;
    const std::string& path = recording_path(fd);
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        std::perror("memfd write");
        std::abort();
    }
    auto report = analysis::summarize(path, options.builder);
    if (!report) return;
    std::ostringstream terminal;
    report::TerminalOptions t;
    t.color = options.color;
    t.width = options.width;
    t.top_n = options.top_n;
    report::render_terminal(*report, terminal, t);
    const std::string json = report::report_to_json_text(*report);
    // Keep the work observable (an optimiser may not drop it).
    if (terminal.str().empty() || json.empty()) std::abort();
}

}  // namespace iolens::fuzz
