// Per-caller quotas (Caller::quota, from the token file or the JWT): refusals and the accounting
// that spans sessions (subscriptions held, tool commands per second). Sessions owned and upload
// sizes are checked where sessions are created (SessionManager::create).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "server/auth/caller.h"
#include "server/metrics.h"

namespace softbody::server {

// Throws ApiError RESOURCE_EXHAUSTED "quota QUOTA of 'SUBJECT': WHAT" and counts it by quota.
[[noreturn]] void refuse_quota(Metrics& metrics, const std::string& quota, const Caller& caller,
                               const std::string& what);
// The same message, for a tool command's `rejected` field; counts it.
std::string quota_rejection(Metrics& metrics, const std::string& quota, const Caller& caller,
                            const std::string& what);

class CallerStreams {
 public:
  explicit CallerStreams(Metrics& metrics) : metrics_(metrics) {}

  // A subscription held by a caller; released when destroyed.
  class Hold {
   public:
    Hold(CallerStreams& owner, std::string subject) : owner_(owner), subject_(std::move(subject)) {}
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    CallerStreams& owner_;
    std::string subject_;
  };
  // Counts a subscription of `caller`; RESOURCE_EXHAUSTED (max_subscriptions) beyond its quota.
  std::unique_ptr<Hold> hold_subscription(const Caller& caller);
  // One tool command of `caller` now: "" when within max_tool_rate_hz (a token bucket holding a
  // tenth of a second of commands, at least 5), else the rejection text.
  std::string admit_tool_command(const Caller& caller);

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point refilled{};
  };
  Metrics& metrics_;
  std::mutex mutex_;
  std::map<std::string, int> subscriptions_;  // by subject; guarded by mutex_
  std::map<std::string, Bucket> buckets_;     // by subject; guarded by mutex_
};

}  // namespace softbody::server
