#include "engine/solvers/background_factorizer.h"

namespace softbody {

BackgroundFactorizer::BackgroundFactorizer(const SymmetricCsc& pattern)
    : matrix_(pattern), thread_([this] { run(); }) {}

BackgroundFactorizer::~BackgroundFactorizer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool BackgroundFactorizer::submit(const std::vector<double>& values, std::vector<Mat3> diagonal,
                                  std::unique_ptr<SparseCholesky> spare) {
  {
    std::lock_guard lock(mutex_);
    if (job_ || done_) return false;
    matrix_.values() = values;
    diagonal_ = std::move(diagonal);
    if (spare) factor_ = std::move(spare);
    job_ = true;
  }
  wake_.notify_all();
  return true;
}

std::unique_ptr<SparseCholesky> BackgroundFactorizer::take(std::vector<Mat3>& diagonal) {
  std::lock_guard lock(mutex_);
  if (!done_) return nullptr;
  done_ = false;
  diagonal = std::move(diagonal_);
  return std::move(factor_);
}

bool BackgroundFactorizer::idle() const {
  std::lock_guard lock(mutex_);
  return !job_ && !done_;
}

void BackgroundFactorizer::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || job_; });
    if (stop_) return;
    // The job's data is ours until done_ is set: the solving thread only submits when idle.
    lock.unlock();
    if (!factor_) {
      factor_ = std::make_unique<SparseCholesky>();
      factor_->analyze(matrix_);
    }
    factor_->factorize(matrix_);
    lock.lock();
    job_ = false;
    done_ = true;
  }
}

}  // namespace softbody
