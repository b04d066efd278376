#include "engine/parallel/parallel.h"

#include <omp.h>

namespace softbody {
namespace {
int default_threads() {
  static const int n = omp_get_max_threads();
  return n;
}
}  // namespace

void set_num_threads(int n) {
  default_threads();  // capture the default before overriding it
  omp_set_num_threads(n > 0 ? n : default_threads());
}

int num_threads() {
  return omp_get_max_threads();
}

}  // namespace softbody
