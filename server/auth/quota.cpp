#include "server/auth/quota.h"

#include <algorithm>
#include <cstdio>

#include "server/api_error.h"

namespace softbody::server {

namespace {

std::string message(Metrics& metrics, const std::string& quota, const Caller& caller,
                    const std::string& what) {
  auto& counter = quota == "max_sessions"          ? metrics.quota_max_sessions
                  : quota == "max_upload_vertices" ? metrics.quota_max_upload_vertices
                  : quota == "max_subscriptions"   ? metrics.quota_max_subscriptions
                                                   : metrics.quota_max_tool_rate_hz;
  counter.fetch_add(1, std::memory_order_relaxed);
  return "quota " + quota + " of '" + caller.subject + "': " + what;
}

}  // namespace

void refuse_quota(Metrics& metrics, const std::string& quota, const Caller& caller,
                  const std::string& what) {
  throw ApiError(grpc::StatusCode::RESOURCE_EXHAUSTED, message(metrics, quota, caller, what));
}

std::string quota_rejection(Metrics& metrics, const std::string& quota, const Caller& caller,
                            const std::string& what) {
  return "RESOURCE_EXHAUSTED: " + message(metrics, quota, caller, what);
}

CallerStreams::Hold::~Hold() {
  std::lock_guard lock(owner_.mutex_);
  if (--owner_.subscriptions_[subject_] <= 0) owner_.subscriptions_.erase(subject_);
}

std::unique_ptr<CallerStreams::Hold> CallerStreams::hold_subscription(const Caller& caller) {
  std::lock_guard lock(mutex_);
  int& held = subscriptions_[caller.subject];
  if (caller.quota.max_subscriptions > 0 && held >= caller.quota.max_subscriptions) {
    if (held == 0) subscriptions_.erase(caller.subject);
    refuse_quota(metrics_, "max_subscriptions", caller,
                 "holds " + std::to_string(caller.quota.max_subscriptions) +
                     " state subscriptions, its limit");
  }
  ++held;
  return std::make_unique<Hold>(*this, caller.subject);
}

std::string CallerStreams::admit_tool_command(const Caller& caller) {
  const double rate = caller.quota.max_tool_rate_hz;
  if (rate <= 0) return {};
  const double capacity = std::max(5.0, 0.1 * rate);
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  auto [it, fresh] = buckets_.try_emplace(caller.subject);
  Bucket& b = it->second;
  if (fresh) b = {capacity, now};
  b.tokens =
      std::min(capacity, b.tokens + rate * std::chrono::duration<double>(now - b.refilled).count());
  b.refilled = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return {};
  }
  char what[96];
  std::snprintf(what, sizeof what, "more than %g tool commands per second", rate);
  return quota_rejection(metrics_, "max_tool_rate_hz", caller, what);
}

}  // namespace softbody::server
