// The load tester's errors by status code name, from any thread, with a few examples.
#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client-cpp/client/result.h"

namespace softbody::client {

class ErrorCounter {
 public:
  void add(const Error& e) {
    std::lock_guard lock(mutex_);
    ++counts_[status_code_name(e.code)];
    if (examples_.size() < 5) examples_.push_back(e.to_string());
  }
  nlohmann::json json() const {
    std::lock_guard lock(mutex_);
    long total = 0;
    for (const auto& [name, n] : counts_) total += n;
    return {{"total", total}, {"by_status", counts_}, {"examples", examples_}};
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, long> counts_;
  std::vector<std::string> examples_;
};

}  // namespace softbody::client
