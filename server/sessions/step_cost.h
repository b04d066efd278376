// What a session's real-time stepping costs the host: the CPU seconds of its steps (its worker's
// thread clock and its OpenMP team's, not wall-clock time, which would also count what other
// tenants took) per second of simulated time. Admission, readiness and /status read it.
#pragma once

#include <array>
#include <mutex>

namespace softbody::server {

class StepCostMeter {
 public:
  // The first steps carry one-off costs (symbolic analysis, the first factorization, first-touch
  // allocation): they are not the session's running cost and are left out.
  static constexpr int kWarmupSteps = 3;
  // The cost is the mean over this many recent steps: long enough to span the solver's refactor
  // cycle (a factorization every few dozen steps), short enough to follow a settings change.
  static constexpr int kWindow = 128;
  // Steps after the warm-up before the mean counts as a measure.
  static constexpr int kMinSamples = 8;

  // One real-time step that took `cpu_seconds` of CPU for `dt` seconds of simulated time.
  void record(double cpu_seconds, double dt);
  // Cores the session's stepping takes (mean CPU seconds per simulated second over the window);
  // negative until measured.
  double load() const;
  // Forgets the measure (the session's cost changed: new settings, a restored state).
  void restart();

 private:
  mutable std::mutex mutex_;
  std::array<double, kWindow> samples_{};
  int seen_ = 0;       // steps recorded since the start or the last restart, warm-up included
  int samples_n_ = 0;  // samples in the window
  int next_ = 0;       // where the next sample goes
};

}  // namespace softbody::server
