#pragma once
// RAII ownership of a bpftool-generated skeleton: destroying it detaches every
// link and closes every program and map it created, on every exit path.
#include <memory>

namespace iolens::probes {

template <typename Skel, void (*Destroy)(Skel*)>
struct SkeletonDeleter {
    void operator()(Skel* s) const noexcept {
        if (s) Destroy(s);
    }
};

template <typename Skel, void (*Destroy)(Skel*)>
using SkeletonPtr = std::unique_ptr<Skel, SkeletonDeleter<Skel, Destroy>>;

}  // namespace iolens::probes
