// Refuses to run a binary on a CPU that lacks instructions it was compiled for (SOFTBODY_ARCH):
// without this an image built for x86-64-v3 dies with SIGILL somewhere inside Eigen on an older
// CPU. The check runs from a constructor before main() and is compiled for the baseline x86-64,
// so it cannot itself use the instructions it checks for.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace softbody {

// The features in `required` (comma-separated names as __builtin_cpu_supports knows them, e.g.
// "avx2,fma") that `supported` says the CPU lacks.
std::vector<std::string> missing_cpu_features(
    const std::string& required, const std::function<bool(const std::string&)>& supported);

// The features this build needs, and whether the running CPU has `feature`.
const char* required_cpu_features();
bool cpu_supports(const std::string& feature);

}  // namespace softbody
