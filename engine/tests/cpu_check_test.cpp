#include "engine/cpu/cpu_check.h"

#include <gtest/gtest.h>

#include <set>

namespace softbody {
namespace {

TEST(CpuCheck, NamesEveryRequiredFeatureTheCpuLacks) {
  const std::set<std::string> old_cpu = {"sse4.2", "popcnt"};
  auto has = [&](const std::string& f) { return old_cpu.count(f) > 0; };
  EXPECT_EQ(missing_cpu_features("sse4.2,popcnt,avx,avx2,fma", has),
            (std::vector<std::string>{"avx", "avx2", "fma"}));
  EXPECT_TRUE(missing_cpu_features("sse4.2,popcnt", has).empty());
  EXPECT_TRUE(missing_cpu_features("", has).empty());
}

// The running test binary passed its own start-up check, so this CPU has every feature the build
// needs; the list names real features (a typo would read as "assume present" and check nothing).
TEST(CpuCheck, ThisBuildsRequirementsAreKnownAndMet) {
  const std::set<std::string> known = {"sse4.2", "popcnt",  "avx",      "avx2",     "fma",
                                       "bmi2",   "avx512f", "avx512vl", "avx512bw", "avx512dq"};
  const std::string required = required_cpu_features();
  EXPECT_TRUE(missing_cpu_features(required, cpu_supports).empty());
  EXPECT_TRUE(
      missing_cpu_features(required, [&](const std::string& f) { return known.count(f) > 0; })
          .empty())
      << required;
}

}  // namespace
}  // namespace softbody
