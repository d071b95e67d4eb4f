#pragma once
// The traced side of the self-test: the driver process (iolens relaunched as
// `iolens __self-test-workload`) forks the workers of selftest/scenario.h,
// feeds and drains their pipes, and tells the recorder their pids.
#include <string>

namespace iolens::selftest {

// Runs the whole scenario in DIR (prepared by prepare_files). Writes one line
// per worker, "<role> <pid> <exit status>", to report_fd (a pipe to the
// self-test; pipe writes are not file I/O). Returns the driver's exit status:
// 0 when every worker did exactly its plan, 1 otherwise (stderr says why).
int run_workload(const std::string& dir, int report_fd);

}  // namespace iolens::selftest
