// Steps sessions in real time on a fixed pool of worker threads (sessions >> cores). Each running
// session has one entry in an earliest-due-first queue; a worker pops the most overdue entry, runs
// one step and requeues it one dt later. When the machine is overloaded every session lags alike
// (no starvation): each reports its real-time factor and sheds solver iterations (Session::step).
#pragma once

#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "server/sessions/session.h"

namespace softbody::server {

struct SchedulerOptions {
  int workers = 0;            // 0: one per core
  int threads_per_step = 1;   // OpenMP threads inside one step
  int worker_nice = 5;        // workers run below gRPC threads so haptic replies preempt physics
  double max_debt_steps = 5;  // a session further behind forgets the debt (no catch-up bursts)
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerOptions options);
  ~Scheduler();
  int workers() const { return static_cast<int>(threads_.size()); }

  // Starts stepping a session in real time from now (session.running must be true).
  void start(const std::shared_ptr<Session>& session);
  // Runs `steps` steps of a paused session on a worker; returns when they are done.
  void run_steps(const std::shared_ptr<Session>& session, int steps);
  void stop();

 private:
  struct Entry {
    Clock::time_point due;
    std::shared_ptr<Session> session;
    long generation = 0;
    int remaining = 0;  // > 0: a one-off run of this many steps
    std::shared_ptr<std::promise<void>> done;
    // Lateness forgiven when the debt was dropped [s]: the next step still reports it, or a
    // session too slow for its dt would look on time forever after each reset.
    double forgiven_s = 0;
    bool operator>(const Entry& o) const { return due > o.due; }
  };
  void work();

  SchedulerOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace softbody::server
