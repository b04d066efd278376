#include "engine/cpu/cpu_check.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#ifndef SOFTBODY_REQUIRED_CPU_FEATURES
#define SOFTBODY_REQUIRED_CPU_FEATURES ""
#endif
#ifndef SOFTBODY_ARCH_NAME
#define SOFTBODY_ARCH_NAME ""
#endif

// Referenced by a link option of softbody_engine (-Wl,-u) so that every program pulls this file,
// and with it the constructor, out of the static library.
extern "C" const int softbody_cpu_check_anchor = 0;

namespace softbody {

std::vector<std::string> missing_cpu_features(
    const std::string& required, const std::function<bool(const std::string&)>& supported) {
  std::vector<std::string> missing;
  std::stringstream names(required);
  std::string name;
  while (std::getline(names, name, ','))
    if (!name.empty() && !supported(name)) missing.push_back(name);
  return missing;
}

const char* required_cpu_features() {
  return SOFTBODY_REQUIRED_CPU_FEATURES;
}

bool cpu_supports(const std::string& f) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // __builtin_cpu_supports takes string literals only.
  if (f == "sse4.2") return __builtin_cpu_supports("sse4.2");
  if (f == "popcnt") return __builtin_cpu_supports("popcnt");
  if (f == "avx") return __builtin_cpu_supports("avx");
  if (f == "avx2") return __builtin_cpu_supports("avx2");
  if (f == "fma") return __builtin_cpu_supports("fma");
  if (f == "bmi2") return __builtin_cpu_supports("bmi2");
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx512vl") return __builtin_cpu_supports("avx512vl");
  if (f == "avx512bw") return __builtin_cpu_supports("avx512bw");
  if (f == "avx512dq") return __builtin_cpu_supports("avx512dq");
#endif
  (void)f;
  return true;  // not a feature this check knows: assume present
}

namespace {

__attribute__((constructor(101))) void refuse_unsupported_cpu() {
  const std::vector<std::string> missing =
      missing_cpu_features(required_cpu_features(), cpu_supports);
  if (missing.empty()) return;
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  const std::string message =
      std::string("softbody: this build was compiled for -march=") + SOFTBODY_ARCH_NAME +
      " and needs CPU features this machine lacks: " + list +
      ". Use a build for an older baseline (SOFTBODY_ARCH=x86-64-v2, the default of the container "
      "images).\n";
  // write(2): nothing else of the program (iostreams, logging) has been set up yet.
  [[maybe_unused]] const ssize_t n = write(2, message.data(), message.size());
  _exit(70);  // EX_SOFTWARE
}

}  // namespace
}  // namespace softbody
