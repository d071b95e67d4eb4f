#include "cli/version.h"

#include "build_info.h"
#include "probes/catalog.h"

namespace iolens::cli {

std::string build_commit() {
    return std::string(IOLENS_GIT_COMMIT) + (IOLENS_GIT_DIRTY ? " (modified)" : "");
}

std::string version_text() {
    std::string text = std::string("iolens ") + IOLENS_VERSION_STRING + "\ncommit " + build_commit() +
                       "\nBPF programs (CO-RE, " + IOLENS_BPF_TARGET_ARCH + "), builds per probe family:\n";
    for (const auto& spec : probes::family_specs()) {
        std::string builds;
        for (const auto& o : probes::bpf_objects())
            if (o.family == spec.name)
                builds += (builds.empty() ? "" : ", ") + std::string(variant_name(o.build));
        text += "  " + spec.name + std::string(spec.name.size() < 10 ? 10 - spec.name.size() : 1, ' ') +
                builds + "\n";
    }
    return text;
}

}  // namespace iolens::cli
