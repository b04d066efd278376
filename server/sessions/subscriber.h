// A state subscriber's mailbox: one slot holding the newest published state. The session offers
// every step's state without ever waiting; the subscriber's stream takes the newest when it is
// ready to send and learns how many it missed. Memory per subscriber: one shared pointer.
#pragma once

#include <grpcpp/support/status.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace softbody::server {

struct PublishedState;

class Subscriber {
 public:
  // Newest wins: an untaken state is replaced and counted as dropped.
  void offer(std::shared_ptr<const PublishedState> state) {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      if (pending_) ++dropped_;
      pending_ = std::move(state);
    }
    ready_.notify_one();
  }

  // Ends the stream with `status` (session deleted, server shutting down).
  void close(const grpc::Status& status) {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      closed_ = true;
      close_status_ = status;
    }
    ready_.notify_one();
  }

  // Waits until a state is pending, the mailbox is closed, or `deadline`. Returns the state (and
  // the drop count since the last take) or null.
  std::shared_ptr<const PublishedState> take(std::chrono::steady_clock::time_point deadline,
                                             std::uint32_t& dropped) {
    std::unique_lock lock(mutex_);
    ready_.wait_until(lock, deadline, [&] { return closed_ || pending_ != nullptr; });
    if (closed_) return nullptr;
    dropped = dropped_;
    dropped_ = 0;
    return std::move(pending_);
  }

  // Counts a state taken but not sent (rate limiting replaced it with a newer one).
  void count_dropped(std::uint32_t n) {
    std::lock_guard lock(mutex_);
    dropped_ += n;
  }

  bool closed(grpc::Status& status) const {
    std::lock_guard lock(mutex_);
    if (closed_) status = close_status_;
    return closed_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::shared_ptr<const PublishedState> pending_;
  std::uint32_t dropped_ = 0;
  bool closed_ = false;
  grpc::Status close_status_;
};

}  // namespace softbody::server
