#pragma once
// JSON form of the capture description and of the processes known at attach
// time. The recording file stores these in its META, PROCESS and END chunks,
// and the JSON report's "capture" and "processes" entries are the same
// objects, so the key names are defined once, here.
#include <nlohmann/json.hpp>

#include "recording/capture.h"
#include "util/result.h"

namespace iolens::recording {

nlohmann::json capture_to_json(const CaptureInfo& capture);
// Missing keys keep their defaults (older writers, or the META chunk that
// knows nothing yet of the end); a key of the wrong type is an Error naming it.
Result<CaptureInfo> capture_from_json(const nlohmann::json& j);
// As capture_from_json, but overwrites only the keys present in j: read META
// into a CaptureInfo, then apply END on top of it.
Result<void> update_capture_from_json(const nlohmann::json& j, CaptureInfo& capture);

// pid, ppid, comm, cmdline, start_ns, end_ns, exit_code (null while running).
nlohmann::json process_to_json(const ProcessInfo& process);
Result<ProcessInfo> process_from_json(const nlohmann::json& j);

}  // namespace iolens::recording
