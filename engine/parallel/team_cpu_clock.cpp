#include "engine/parallel/team_cpu_clock.h"

#include <omp.h>
#include <time.h>

#include <vector>

namespace softbody {
namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

double team_cpu_seconds() {
  const int threads = omp_get_max_threads();
  if (threads <= 1) return thread_cpu_seconds();  // no team: only this thread steps
  std::vector<double> per_thread(static_cast<std::size_t>(threads), 0.0);
#pragma omp parallel num_threads(threads)
  per_thread[static_cast<std::size_t>(omp_get_thread_num())] = thread_cpu_seconds();
  double total = 0;
  for (double s : per_thread) total += s;
  return total;
}

}  // namespace softbody
