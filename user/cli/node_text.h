#pragma once
// What `iolens check` prints about this node (kernel, privileges, features,
// and the hook each probe family would use or why none can), shared with
// `iolens self-test`, which starts with the same picture.
#include "probes/features.h"

namespace iolens::cli {

// Prints the node's features and probe plan to stdout; returns whether
// `record` can run here.
bool print_node(const probes::Features& f);

}  // namespace iolens::cli
