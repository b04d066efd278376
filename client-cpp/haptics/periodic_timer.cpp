#include "client-cpp/haptics/periodic_timer.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <cstring>
#include <thread>

namespace softbody::client {

PeriodicTimer::PeriodicTimer(double rate_hz, double spin_s)
    : period_(
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / rate_hz))),
      spin_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spin_s))),
      next_(Clock::now()) {}

PeriodicTimer::Clock::time_point PeriodicTimer::wait() {
  next_ += period_;
  Clock::time_point now = Clock::now();
  if (now > next_ + period_) {
    ++overruns_;
    next_ = now;
    return now;
  }
  if (next_ - now > spin_) std::this_thread::sleep_until(next_ - spin_);
  while ((now = Clock::now()) < next_) {
  }
  return now;
}

std::string place_haptic_thread(const ThreadPlacement& placement) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // 1 ns: wake as close to the deadline as possible
  std::string report;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  int cpu = placement.cpu;
  if (cpu == -1) cpu = cores > 1 ? cores - 1 : -2;
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0)
      report = "cpu " + std::to_string(cpu);
    else
      report = "cpu unpinned (cpu " + std::to_string(cpu) + " refused)";
  } else {
    report = "cpu unpinned";
  }
  if (placement.realtime) {
    sched_param p{};
    p.sched_priority = 80;
    const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
    report += rc == 0
                  ? ", SCHED_FIFO 80"
                  : std::string(", SCHED_OTHER (SCHED_FIFO refused: ") + std::strerror(rc) + ")";
  } else {
    report += ", SCHED_OTHER";
  }
  return report;
}

}  // namespace softbody::client
