#include "model/file_class.h"

namespace iolens::model {

bool software_path(std::string_view path) {
    for (auto p : kSoftwarePrefixes)
        if (path.substr(0, p.size()) == p) return true;
    for (auto s : kSoftwareSuffixes)
        if (path.size() >= s.size() && path.substr(path.size() - s.size()) == s) return true;
    for (auto s : kSoftwareParts)
        if (path.find(s) != std::string_view::npos) return true;
    return false;
}

}  // namespace iolens::model
