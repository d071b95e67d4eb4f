#pragma once
// Which pages of one file the job read, and when last: answers "did the job
// read these read-ahead pages between their insertion and their eviction?"
// for the readahead_waste judgement (docs/findings.md). Reads are added in
// start-time order, each as [lo, hi) pages with the time it ended; a query
// counts the pages of [lo, hi) whose latest read ended at or after t.
#include <cstddef>
#include <cstdint>
#include <map>

namespace iolens::model {

class ReadCover {
public:
    void add(uint64_t lo, uint64_t hi, uint64_t end_ns);
    // Pages of [lo, hi) read by a read that ended at or after since_ns.
    uint64_t read_since(uint64_t lo, uint64_t hi, uint64_t since_ns) const;
    size_t fragments() const { return frags_.size(); }

private:
    struct Frag {
        uint64_t hi;
        uint64_t end_ns;
    };
    // Splits the fragment holding page x (if it starts before x) in two.
    void split(uint64_t x);
    std::map<uint64_t, Frag> frags_;  // disjoint, by first page
};

}  // namespace iolens::model
