#include "server/sessions/scheduler.h"

#include <utility>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/parallel/parallel.h"
#include "server/logging.h"

namespace softbody::server {

Scheduler::Scheduler(SchedulerOptions options) : options_(options) {
  int n = options_.workers > 0 ? options_.workers
                               : static_cast<int>(std::thread::hardware_concurrency());
  n = std::max(1, n);
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
}

Scheduler::~Scheduler() {
  stop();
}

void Scheduler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    // Wake anyone waiting on a one-off run.
    while (!queue_.empty()) {
      if (queue_.top().done) queue_.top().done->set_value();
      queue_.pop();
    }
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Scheduler::start(const std::shared_ptr<Session>& session) {
  session->reset_real_time_window();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push({Clock::now(), session, ++session->schedule_generation, 0, nullptr});
  }
  wake_.notify_one();
}

void Scheduler::run_steps(const std::shared_ptr<Session>& session, int steps) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push({Clock::now(), session, 0, steps, done});
  }
  wake_.notify_one();
  finished.wait();
}

void Scheduler::work() {
  // Physics yields to the threads answering haptic commands (best effort: raising the nice value
  // needs no privilege).
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), options_.worker_nice);
  set_num_threads(options_.threads_per_step);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (queue_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const Clock::time_point now = Clock::now();
    if (queue_.top().due > now) {
      wake_.wait_until(lock, queue_.top().due);
      continue;
    }
    Entry entry = queue_.top();
    queue_.pop();
    const bool one_off = entry.remaining > 0;
    if (!one_off && (entry.generation != entry.session->schedule_generation.load() ||
                     !entry.session->running.load())) {
      continue;  // paused or deleted since it was queued
    }
    lock.unlock();
    const double lag =
        std::chrono::duration<double>(now - entry.due).count() + std::exchange(entry.forgiven_s, 0);
    try {
      entry.session->step(one_off ? 0.0 : lag, !one_off);
    } catch (const std::exception& e) {
      // The engine rolls diverging steps back itself; anything else must not kill the worker.
      spdlog::error("event=step_error session={} error={}", entry.session->id(),
                    logfmt_value(e.what()));
    }
    const double dt = entry.session->dt();
    lock.lock();
    if (one_off) {
      if (--entry.remaining > 0) {
        entry.due = Clock::now();
        queue_.push(entry);
      } else {
        entry.done->set_value();
      }
      continue;
    }
    const auto step =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dt));
    entry.due += step;
    const Clock::time_point after = Clock::now();
    if (after - entry.due > options_.max_debt_steps * step) {
      entry.forgiven_s = std::chrono::duration<double>(after - entry.due).count();
      entry.due = after;
    }
    queue_.push(entry);
  }
}

}  // namespace softbody::server
