// Precise periodic wake-ups for the haptic thread: sleep until shortly before the tick, then spin
// for the last part (a sleep alone overshoots by tens of microseconds). Also places the calling
// thread on its own core and, when permitted, at real-time priority.
#pragma once

#include <chrono>
#include <string>

namespace softbody::client {

class PeriodicTimer {
 public:
  using Clock = std::chrono::steady_clock;
  PeriodicTimer(double rate_hz, double spin_s);
  // Waits for the next tick and returns the time it woke. When the caller fell more than one
  // period behind, the schedule restarts from now (counted as an overrun) instead of bursting.
  Clock::time_point wait();
  long overruns() const { return overruns_; }
  Clock::duration period() const { return period_; }

 private:
  Clock::duration period_, spin_;
  Clock::time_point next_;
  long overruns_ = 0;
};

struct ThreadPlacement {
  int cpu = -1;           // -1: the last core when there is more than one; -2: leave as is
  bool realtime = false;  // SCHED_FIFO (needs CAP_SYS_NICE)
};

// Applies `placement` to the calling thread and lowers its timer slack to 1 us. Returns what was
// done, e.g. "cpu 1, SCHED_FIFO 80" or "cpu 1, SCHED_OTHER (SCHED_FIFO refused: ...)".
std::string place_haptic_thread(const ThreadPlacement& placement);

}  // namespace softbody::client
