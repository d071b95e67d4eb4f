#pragma once
// Every file iolens writes (recordings, JSON reports, self-test verdicts) is
// created through OutputFile. iolens runs as root next to jobs it does not
// trust, in directories they may write to, so:
//
//   - the data goes to a fresh temporary file in the same directory, created
//     with O_CREAT|O_EXCL (never through an existing file or symlink), mode
//     exactly 0600 whatever the umask;
//   - commit() moves it to its name with rename(2): the name itself is
//     replaced, never what a symlink there points to;
//   - without force, an existing name is refused ("exists; use -f");
//   - with force, only a regular file or a symlink is replaced: a directory,
//     a device (-f -o /dev/null), a FIFO or a socket never is;
//   - until commit(), the old file is untouched: a failure (a typo in the
//     command) leaves it as it was, and the temporary file is removed.
#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>

#include "util/fd.h"
#include "util/result.h"

namespace iolens {

class OutputFile {
public:
    // what: how messages name the file ("the recording", "the JSON report").
    static Result<OutputFile> create(const std::string& path, bool force, std::string_view what);
    OutputFile(OutputFile&&) noexcept;
    OutputFile& operator=(OutputFile&&) = delete;
    ~OutputFile();  // removes the temporary file unless committed

    int fd() const { return fd_.get(); }
    const std::string& path() const { return path_; }
    bool committed() const { return committed_; }
    // Gives the file its name. Later writes to fd() go on landing in it.
    Result<void> commit();
    // After a failed commit: keep the file under its temporary name (which is
    // returned) rather than remove it.
    const std::string& keep_temporary();
    // Closes the descriptor, reporting a close-time error (after commit the
    // file stays; before, it is removed).
    Result<void> close();

private:
    OutputFile() = default;
    std::string path_;
    std::string temp_;
    std::string what_;
    bool force_ = false;
    bool committed_ = false;
    UniqueFd fd_;
};

// Checks that path may be written (see OutputFile): empty when it may, else
// the reason. Used to refuse a bad output before anything runs.
Result<void> check_output_path(const std::string& path, bool force, std::string_view what);

// Whether a and b name the same file: the same inode when one exists, else
// the same name in the same directory (compared by the directory's inode, not
// by text: "x", "./x" and "/cwd/x" are one file).
bool same_file(const std::string& a, const std::string& b);

// Writes text to path through an OutputFile and commits it.
Result<void> write_output_file(const std::string& path, bool force, std::string_view what,
                               std::string_view text);
// The same, the text made in pieces: write(put) calls put with each in order
// (a large text written while the rest is made).
using PutText = std::function<Result<void>(std::string_view)>;
Result<void> write_output_file(const std::string& path, bool force, std::string_view what,
                               const std::function<Result<void>(const PutText&)>& write);

}  // namespace iolens
