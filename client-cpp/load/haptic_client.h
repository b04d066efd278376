// One scripted haptic client of the load tester: a tool stream sending commands at a fixed rate,
// measured as a user feels it. Besides the round trip of the replies that came back, at every
// tick of its command clock it records the age of the newest force it holds (tick time minus the
// client time of the command that force answers): a stalled server shows as old forces, not as
// fewer measured commands (no coordinated omission).
#pragma once

#include <atomic>
#include <chrono>

#include "client-cpp/client/client.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/load/error_counter.h"
#include "client-cpp/load/load_run.h"

namespace softbody::client {

using LoadClock = std::chrono::steady_clock;

// What every client adds to as it goes, for the live progress line.
struct LiveCounters {
  std::atomic<long> ticks{0}, deadline_misses{0}, replies{0}, frames{0};
  std::atomic<double> oldest_force_s{0};  // the oldest force age since the last line
  void note_age(double age_s);
};

struct MeasuredWindow {
  LoadClock::time_point from, until;
  bool measuring(LoadClock::time_point t) const { return t >= from && t < until; }
};

struct HapticClientResult {
  Histogram round_trip, server_time, force_age;
  long sent = 0, received = 0, coalesced = 0, rejected = 0, reconnects = 0;
  long superseded = 0;  // replies the server replaced by newer ones (ForceReply.superseded)
  long ticks = 0, deadline_misses = 0;  // measured ticks; those whose newest force was too old
  long generator_overruns = 0;          // ticks this load generator itself woke too late for
};

// Runs until `window.until`; `epoch` is the client clock's zero.
void run_haptic_client(Client& client, const v1::SessionInfo& session, const LoadOptions& options,
                       double phase, const MeasuredWindow& window, LoadClock::time_point epoch,
                       HapticClientResult& out, ErrorCounter& errors, LiveCounters& live);

}  // namespace softbody::client
