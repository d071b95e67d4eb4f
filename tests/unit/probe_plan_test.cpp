// The probe plan (user/probes/catalog.h) from a faked Features for each kernel
// of the matrix: the fixtures in tests/unit/kernels/ hold what iolens reads
// from each kernel's BTF (made by tests/unit/kernels/make-fixtures.py), and
// the plan must give each kernel what docs/kernel-matrix.md (and the
// README's "Supported kernels") says it gets. Also: the catalog against the
// BPF objects themselves, opened without loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "probes/catalog.h"
#include "probes/features.h"
#include "probes/probe_set.h"

namespace iolens::probes {
namespace {

// tests/data need not exist: go up lexically.
const std::filesystem::path kTests = std::filesystem::path(IOLENS_TEST_DATA_DIR).parent_path();
const std::filesystem::path kRoot = kTests.parent_path();

// The fixture's kernel, as a probing Features would see it with privileges.
Features load_fixture(const std::string& name) {
    std::ifstream in(kTests / "unit" / "kernels" / name);
    EXPECT_TRUE(in) << name << " missing";
    Features f;
    f.btf = f.tracefs = f.cap_bpf = f.cap_perfmon = f.cap_sys_admin = true;
    std::vector<std::pair<std::string, int>> tps;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string key, a, b;
        words >> key >> a >> b;
        if (key == "release")
            f.kernel_release = a;
        else if (key == "folio" || key == "kfunc_rdonly_cast" || key == "task_storage" || key == "ringbuf")
            (key == "folio"          ? f.folio
             : key == "task_storage" ? f.task_storage
             : key == "ringbuf"      ? f.ringbuf
                                     : f.kfunc_rdonly_cast) = a == "yes";
        else if (key == "tracepoint" && b != "missing")
            tps.emplace_back(a, b == "unknown" ? -1 : std::stoi(b));
    }
    std::sort(tps.begin(), tps.end());
    for (const auto& [tp, arity] : tps) {
        f.btf_tracepoints.push_back(tp);
        f.btf_tracepoint_arity.push_back(arity);
    }
    return f;
}

const char* const kFixtures[] = {"k5.10.txt", "k6.1.txt", "k6.12.txt", "k6.18.txt"};

const FamilyPlan& plan_of(const std::vector<FamilyPlan>& plans, const std::string& family) {
    auto it =
        std::find_if(plans.begin(), plans.end(), [&](const FamilyPlan& p) { return p.family == family; });
    EXPECT_NE(it, plans.end()) << family;
    return *it;
}

std::map<std::string, int> arities(const Attempt& a) {
    std::map<std::string, int> m;
    for (const auto& x : a.arities) m[x.tracepoint] = x.arity;
    return m;
}

// A family's cell in the kernel-matrix table, as tools/kernel-matrix/table.py
// writes it from the probe statuses (which are the first attempt's hooks).
std::string matrix_cell(const FamilyPlan& p) {
    if (!p.available) return "unavailable: " + p.reason;
    std::string hook = p.hook, build;
    if (const auto open = hook.rfind(" ["); open != std::string::npos) {
        build = ", " + hook.substr(open + 2, hook.size() - open - 3) + " build";
        hook.resize(open);
    }
    std::set<std::string> kinds;
    for (size_t at = 0; at < hook.size();) {
        const size_t comma = std::min(hook.find(',', at), hook.size());
        kinds.insert(hook.substr(at, hook.find('/', at) - at));
        at = comma + 1;
    }
    std::string cell;
    for (const auto& k : kinds) cell += (cell.empty() ? "" : "+") + k;
    cell += build;
    std::string degraded;
    for (const auto& d : p.degraded) degraded += (degraded.empty() ? "" : "; ") + d;
    return degraded.empty() ? cell : cell + " (" + degraded + ")";
}

// The kernel-matrix table of a markdown file: row name -> cells, one per column.
std::map<std::string, std::vector<std::string>> matrix_table(const std::string& file) {
    std::ifstream in(kRoot / file);
    EXPECT_TRUE(in) << file << " missing";
    std::map<std::string, std::vector<std::string>> rows;
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        inside = (inside || line.find("kernel-matrix-table:begin") != std::string::npos) &&
                 line.find("kernel-matrix-table:end") == std::string::npos;
        if (!inside || line.rfind("| ", 0) != 0) continue;
        std::vector<std::string> cells;
        for (size_t at = 2; at < line.size();) {
            const size_t end = line.find(" |", at);
            cells.push_back(line.substr(at, end - at));
            at = end + 3;
        }
        const std::string name = cells.front();
        cells.erase(cells.begin());
        rows[name] = cells;
    }
    return rows;
}

std::string major_minor(const std::string& release) {
    const auto first = release.find('.');
    return release.substr(0, release.find_first_not_of("0123456789", first + 1));
}

TEST(ProbePlan, EachMatrixKernelGetsWhatTheDocsSay) {
    for (const char* file : {"docs/kernel-matrix.md", "README.md"}) {
        auto table = matrix_table(file);
        ASSERT_FALSE(table["kernel"].empty()) << file << ": no kernel-matrix table";
        for (const char* fixture : kFixtures) {
            const Features f = load_fixture(fixture);
            const auto& kernels = table["kernel"];
            auto col = std::find_if(kernels.begin(), kernels.end(), [&](const std::string& k) {
                return major_minor(k) == major_minor(f.kernel_release);
            });
            if (col == kernels.end() && std::string(fixture) == "k6.18.txt")
                continue;  // the host column is whatever kernel the last run's host had
            ASSERT_NE(col, kernels.end()) << file << ": no column for " << f.kernel_release;
            const auto i = static_cast<size_t>(col - kernels.begin());
            for (const auto& p : plan_probes(f)) {
                ASSERT_GT(table[p.family].size(), i) << file << ": no row for " << p.family;
                EXPECT_EQ(matrix_cell(p), table[p.family][i])
                    << file << ", " << f.kernel_release << ", " << p.family;
            }
        }
    }
}

TEST(ProbePlan, Debian11GetsTheLegacyBuildsAndMixedBlockPrototypes) {
    const auto plans = plan_probes(load_fixture("k5.10.txt"));
    const auto& sys = plan_of(plans, "syscalls");
    ASSERT_EQ(sys.attempts.size(), 2u);  // task storage is missing: legacy only, tp_btf then raw_tp
    EXPECT_EQ(sys.attempts[0].object, "syscalls_legacy");
    EXPECT_EQ(sys.attempts[0].hook, Hook::TpBtf);
    EXPECT_EQ(sys.attempts[1].hook, Hook::RawTp);
    // The legacy build keeps no batches: no exit flush.
    EXPECT_EQ(sys.attempts[0].tracepoints, (std::vector<std::string>{"sys_enter", "sys_exit"}));
    EXPECT_EQ(plan_of(plans, "blocking").attempts.front().object, "blocking_legacy");
    const auto& block = plan_of(plans, "block");
    ASSERT_TRUE(block.available);
    // Debian's 5.10 took the new block_rq_* prototypes but not the new block_getrq.
    EXPECT_EQ(
        arities(block.attempts.front()),
        (std::map<std::string, int>{
            {"block_getrq", 3}, {"block_bio_frontmerge", 3}, {"block_rq_insert", 1}, {"block_rq_issue", 1}}));
    EXPECT_FALSE(plan_of(plans, "pagecache").available);
    EXPECT_TRUE(plan_of(plans, "pagecache").attempts.empty());
    // Debian's 5.10 has io_uring_submit_sqe (7 arguments) and a completion
    // without the request: the family cannot run, and says why.
    const auto& uring = plan_of(plans, "io_uring");
    EXPECT_FALSE(uring.available);
    EXPECT_NE(uring.reason.find("io_uring_submit_sqe (7 arguments)"), std::string::npos) << uring.reason;
    EXPECT_NE(uring.reason.find("io_uring_complete (4 arguments)"), std::string::npos) << uring.reason;
    EXPECT_NE(uring.reason.find("cannot be matched"), std::string::npos) << uring.reason;
}

// io_uring: the request is kept at io_uring_submit_req (6.4+) or, on 6.0-6.3
// (Debian 12's 6.1), at io_uring_submit_sqe, the same point under its older name.
TEST(ProbePlan, IoUringTakesSubmitSqeBefore64AndSubmitReqAfter) {
    const std::map<std::string, std::vector<std::string>> expected = {
        {"k6.1.txt", {"io_uring_submit_sqe", "io_uring_complete", "io_uring_queue_async_work"}},
        {"k6.12.txt", {"io_uring_submit_req", "io_uring_complete", "io_uring_queue_async_work"}},
        {"k6.18.txt", {"io_uring_submit_req", "io_uring_complete", "io_uring_queue_async_work"}}};
    for (const auto& [fixture, tracepoints] : expected) {
        const Features f = load_fixture(fixture.c_str());
        const auto plans = plan_probes(f);
        const auto& uring = plan_of(plans, "io_uring");
        ASSERT_TRUE(uring.available) << fixture << ": " << uring.reason;
        ASSERT_EQ(uring.attempts.size(), 1u) << fixture;  // tp_btf only
        EXPECT_EQ(uring.attempts.front().tracepoints, tracepoints) << fixture;
        EXPECT_TRUE(uring.degraded.empty()) << fixture;
    }
}

TEST(ProbePlan, Debian12And13GetTaskStorageAndNewPrototypes) {
    for (const char* fixture : {"k6.1.txt", "k6.12.txt", "k6.18.txt"}) {
        const Features f = load_fixture(fixture);
        const auto plans = plan_probes(f);
        const auto& sys = plan_of(plans, "syscalls");
        // bpf_rdonly_cast (6.2+) puts the direct build first, the standard one after it.
        std::vector<std::string> objects;
        for (const auto& a : sys.attempts) objects.push_back(a.object + "/" + hook_prefix(a.hook));
        if (f.kfunc_rdonly_cast)
            EXPECT_EQ(objects, (std::vector<std::string>{"syscalls_direct/tp_btf", "syscalls_direct/raw_tp",
                                                         "syscalls/tp_btf", "syscalls/raw_tp"}))
                << fixture;
        else
            EXPECT_EQ(objects, (std::vector<std::string>{"syscalls/tp_btf", "syscalls/raw_tp"})) << fixture;
        EXPECT_EQ(sys.attempts.front().tracepoints,
                  (std::vector<std::string>{"sys_enter", "sys_exit", "sched_process_exit"}))
            << fixture;
        const auto& block = plan_of(plans, "block");
        // 6.5+ names each request's submitter at block_io_start: the sector
        // matching (getrq, frontmerge) is not loaded there.
        if (f.has_btf_tracepoint("block_io_start")) {
            EXPECT_EQ(arities(block.attempts.front()),
                      (std::map<std::string, int>{{"block_rq_insert", 1}, {"block_rq_issue", 1}}))
                << fixture;
            EXPECT_EQ(block.attempts.front().tracepoints,
                      (std::vector<std::string>{"block_io_start", "block_rq_insert", "block_rq_issue",
                                                "block_rq_complete"}))
                << fixture;
        } else {
            EXPECT_EQ(arities(block.attempts.front()),
                      (std::map<std::string, int>{{"block_getrq", 1},
                                                  {"block_bio_frontmerge", 1},
                                                  {"block_rq_insert", 1},
                                                  {"block_rq_issue", 1}}))
                << fixture;
        }
        EXPECT_TRUE(block.degraded.empty()) << fixture;
        EXPECT_EQ(plan_of(plans, "pagecache").attempts.front().object, "pagecache") << fixture;
        EXPECT_EQ(plan_of(plans, "blocking").attempts.size(), 1u) << fixture;  // tp_btf only
    }
}

TEST(ProbePlan, ForcingNarrowsTheAttempts) {
    const Features f = load_fixture("k6.18.txt");
    for (const auto& p : plan_probes(f, {"raw_tp", ""})) {
        for (const auto& a : p.attempts) EXPECT_EQ(a.hook, Hook::RawTp) << p.family;
        EXPECT_EQ(p.attempts.empty(), p.family == "blocking" || p.family == "io_uring")
            << p.family;  // no raw_tp build
        EXPECT_TRUE(p.available) << p.family;
    }
    for (const auto& p : plan_probes(f, {"", "legacy"}))
        for (const auto& a : p.attempts)
            EXPECT_EQ(a.variant, has_build(*p.spec, Variant::Legacy) ? Variant::Legacy : Variant::Standard);
}

TEST(ProbePlan, UnknownPrototypesAreNotGuessed) {
    Features f = load_fixture("k6.18.txt");
    const auto at = [&](const std::string& tp) {
        return static_cast<size_t>(std::lower_bound(f.btf_tracepoints.begin(), f.btf_tracepoints.end(), tp) -
                                   f.btf_tracepoints.begin());
    };
    f.btf_tracepoint_arity[at("block_rq_insert")] = 5;  // optional: degraded
    auto block = plan_family(f, *find_family("block"));
    ASSERT_TRUE(block.available);
    EXPECT_EQ(block.degraded,
              (std::vector<std::string>{"no program fits block_rq_insert (5 arguments): queue time "
                                        "(insert to issue) unavailable"}));
    EXPECT_EQ(arities(block.attempts.front()).count("block_rq_insert"), 0u);
    f.btf_tracepoint_arity[at("block_rq_issue")] = -1;  // required: unavailable
    block = plan_family(f, *find_family("block"));
    EXPECT_FALSE(block.available);
    EXPECT_EQ(block.reason, "no program fits this kernel's prototype of block_rq_issue (arguments unknown)");
}

TEST(ProbePlan, WithoutBtfNothingIsPlanned) {
    Features f = load_fixture("k6.18.txt");
    f.btf = false;
    for (const auto& p : plan_probes(f)) {
        EXPECT_FALSE(p.available) << p.family;
        EXPECT_EQ(p.reason, "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE cannot relocate the programs");
    }
}

TEST(ProbePlan, FixturesCoverEveryTracepointOfTheCatalog) {
    for (const char* fixture : kFixtures) {
        std::ifstream in(kTests / "unit" / "kernels" / fixture);
        std::stringstream ss;
        ss << in.rdbuf();
        for (const auto& spec : family_specs())
            for (const auto& tp : spec.tracepoints)
                EXPECT_NE(ss.str().find("\ntracepoint " + tp.name + " "), std::string::npos)
                    << fixture << ": " << tp.name;
    }
}

// Every build of every family has, for each hook kind it claims, a program
// for each tracepoint the catalog lists, no program the catalog does not
// know, and the arity variable of each tracepoint with several prototypes.
TEST(ProbePlan, CatalogMatchesTheBpfObjects) {
    for (const auto& object : bpf_objects()) {
        const FamilySpec* spec = find_family(object.family);
        ASSERT_NE(spec, nullptr) << object.name;
        auto contents = describe_object(object.name);
        ASSERT_TRUE(contents) << contents.error().message;
        std::set<std::pair<std::string, std::string>> have, want;
        for (const auto& [kind, tp] : contents->programs)
            if (kind != "iter") have.insert({kind, tp});
        for (const auto& tp : spec->tracepoints) {
            if (object.build == Variant::Legacy && !tp.in_legacy) continue;
            want.insert({"tp_btf", tp.name});
            if (spec->has_raw_tp) want.insert({"raw_tp", tp.name});
            if (!tp.arities.empty())
                EXPECT_NE(
                    std::find(contents->rodata.begin(), contents->rodata.end(), "iolens_arity_" + tp.name),
                    contents->rodata.end())
                    << object.name << ": no iolens_arity_" << tp.name;
        }
        EXPECT_EQ(have, want) << object.name;
    }
}

}  // namespace
}  // namespace iolens::probes
