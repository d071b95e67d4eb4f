// -o templates for one recording per node (issue #16): %h %j %r %p %t %%,
// values made safe as file-name parts, bad templates refused.
#include <gtest/gtest.h>

#include <map>

#include "capture/output_template.h"

namespace iolens::capture {
namespace {

TEST(OutputTemplate, EverySequence) {
    const TemplateFacts f{"node07", "123456", "3", 4242, 1796531473000000000ull};
    auto r = expand_output_template("job-%j/%h-r%r-p%p-%t-100%%.iolens", f);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, "job-123456/node07-r3-p4242-20261206T043113Z-100%.iolens");
    EXPECT_EQ(*expand_output_template("plain.iolens", f), "plain.iolens");
    EXPECT_FALSE(has_template("plain.iolens"));
    EXPECT_TRUE(has_template("%h.iolens"));
}

TEST(OutputTemplate, MissingValuesAndUnsafeBytes) {
    const TemplateFacts none{"", "", "", 1, 0};
    EXPECT_EQ(*expand_output_template("%j-%h-%r", none), "nojob-nohost-norank");
    // A job id may hold anything: never a directory of its own, never "..".
    const TemplateFacts odd{"a b", "12/../x", "..", 1, 0};
    EXPECT_EQ(*expand_output_template("%j_%h_%r", odd), "12_.._x_a_b__");
}

TEST(OutputTemplate, BadTemplatesAreRefused) {
    const TemplateFacts f{"h", "j", "r", 1, 0};
    for (const char* bad : {"x%", "x%q.iolens", "%"}) EXPECT_FALSE(expand_output_template(bad, f)) << bad;
}

TEST(OutputTemplate, JobIdFromTheBatchSystems) {
    std::map<std::string, std::string> env;
    const auto get = [&](const char* k) -> const char* {
        auto it = env.find(k);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    EXPECT_FALSE(job_id_from_env(get));
    env["FLUX_JOB_ID"] = "f1";
    EXPECT_EQ(job_id_from_env(get)->source, "FLUX_JOB_ID");
    env["PBS_JOBID"] = "77.pbs";
    env["SLURM_JOB_ID"] = "";  // set but empty: skipped
    auto j = job_id_from_env(get);
    EXPECT_EQ(j->id, "77.pbs");
    EXPECT_EQ(j->source, "PBS_JOBID");
    env["SLURM_JOB_ID"] = "9";
    EXPECT_EQ(job_id_from_env(get)->id, "9");
}

}  // namespace
}  // namespace iolens::capture
