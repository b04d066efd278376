// A worker thread that factorizes a copy of the step matrix while the solving thread keeps using
// the previous factor as its preconditioner: the asynchronous preconditioner of Courtecuisse et
// al. (SOFA's haptic pipeline). The finished factor is taken at the start of a later solve, so a
// factorization never delays a step. Results then depend on timing (which factor a step saw), not
// only on the inputs: a choice the scene makes ("refactor": "background"); the default is sync.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/solvers/sparse_cholesky.h"

namespace softbody {

class BackgroundFactorizer {
 public:
  // Copies the pattern; the topology it refers to must outlive this object.
  explicit BackgroundFactorizer(const SymmetricCsc& pattern);
  ~BackgroundFactorizer();
  BackgroundFactorizer(const BackgroundFactorizer&) = delete;
  BackgroundFactorizer& operator=(const BackgroundFactorizer&) = delete;

  // Starts factorizing `values` (same pattern) unless a job is running or a result waits; `spare`
  // is a factor object to reuse (analysed for this pattern) or null. False when it was busy.
  bool submit(const std::vector<double>& values, std::vector<Mat3> diagonal,
              std::unique_ptr<SparseCholesky> spare);
  // The finished factor and the diagonal blocks it was made from, or null while none is ready.
  std::unique_ptr<SparseCholesky> take(std::vector<Mat3>& diagonal);
  bool idle() const;

 private:
  void run();

  SymmetricCsc matrix_;
  std::vector<Mat3> diagonal_;
  std::unique_ptr<SparseCholesky> factor_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool job_ = false, done_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace softbody
