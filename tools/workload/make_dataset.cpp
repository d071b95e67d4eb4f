// make-dataset: the files `dl` reads. A setup step, not traced for exact
// counts, but still plain syscalls (one openat, ceil(size/1 MiB) writes and
// one close per file, after one mkdir).
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "util.h"

#include <sys/stat.h>

#include <cerrno>

namespace wl {

int run_make_dataset(int argc, char** argv) {
    const Args args({{"dir", true}, {"files", true}, {"size", true}, {"seed", true}}, argc, argv);
    const char* dir = args.text("dir");
    const uint64_t files = args.number("files", 1, 10'000'000);
    const uint64_t size = args.number("size", 0, uint64_t{1} << 40);
    const uint64_t seed = args.number_or("seed", 1, 0, UINT64_MAX);

    if (::mkdir(dir, 0755) != 0 && errno != EEXIST) fail_errno(errno, "cannot create directory %s", dir);
    for (uint64_t i = 0; i < files; ++i)
        create_content_file(sample_path(dir, i).c_str(), size, sample_key(seed, i), /*excl=*/false);
    return kExitOk;
}

}  // namespace wl
