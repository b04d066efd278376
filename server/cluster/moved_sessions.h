// Where sessions this host handed to other hosts went (migration): requests naming one are
// answered NOT_FOUND with the SessionMoved detail so clients follow. Bounded, because a
// long-running host migrates without end: an entry is forgotten after `max_age`, and beyond
// `max_entries` the oldest goes first. A forgotten id is plain NOT_FOUND (clients follow a move
// within seconds; a link older than a day names a session that is likely gone anyway).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "softbody/v1/cluster.pb.h"

namespace softbody::server {

class MovedSessions {
 public:
  using Clock = std::chrono::steady_clock;

  explicit MovedSessions(std::size_t max_entries = 4096,
                         Clock::duration max_age = std::chrono::hours(24))
      : max_entries_(max_entries), max_age_(max_age) {}

  void add(const std::string& id, const v1::SessionMoved& moved, Clock::time_point now);
  std::optional<v1::SessionMoved> find(const std::string& id, Clock::time_point now) const;
  void erase(const std::string& id) { entries_.erase(id); }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    v1::SessionMoved moved;
    Clock::time_point at;
  };
  void prune(Clock::time_point now);

  std::size_t max_entries_;
  Clock::duration max_age_;
  std::map<std::string, Entry> entries_;
};

}  // namespace softbody::server
