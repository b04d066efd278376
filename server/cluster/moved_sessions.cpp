#include "server/cluster/moved_sessions.h"

#include <algorithm>

namespace softbody::server {

void MovedSessions::add(const std::string& id, const v1::SessionMoved& moved,
                        Clock::time_point now) {
  entries_[id] = {moved, now};
  prune(now);
}

std::optional<v1::SessionMoved> MovedSessions::find(const std::string& id,
                                                    Clock::time_point now) const {
  auto it = entries_.find(id);
  if (it == entries_.end() || now - it->second.at > max_age_) return std::nullopt;
  return it->second.moved;
}

void MovedSessions::prune(Clock::time_point now) {
  std::erase_if(entries_, [&](const auto& e) { return now - e.second.at > max_age_; });
  // Migrations are rare next to lookups: a linear search for the oldest is cheap enough.
  while (entries_.size() > max_entries_) {
    auto oldest =
        std::min_element(entries_.begin(), entries_.end(),
                         [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
    entries_.erase(oldest);
  }
}

}  // namespace softbody::server
