// Unit tests of the haptic loop's parts that need no server: the model hand-over, the histogram,
// the safety filter and the periodic timer.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "client-cpp/haptics/force_safety.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/haptics/periodic_timer.h"
#include "client-cpp/haptics/triple_buffer.h"

namespace softbody::client {
namespace {

// A value whose fields must all agree: a torn read would show different numbers.
struct Stamped {
  long a = 0;
  double b[16] = {};
  long c = 0;
};

TEST(TripleBuffer, ReaderSeesWholeValuesInOrderAndTheNewestLast) {
  TripleBuffer<Stamped> buffer;
  constexpr long kValues = 200000;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (long v = 1; v <= kValues; ++v) {
      Stamped& s = buffer.back();
      s.a = v;
      for (double& x : s.b) x = static_cast<double>(v);
      s.c = v;
      buffer.publish();
    }
    done = true;
  });
  long last = 0, torn = 0, backwards = 0, seen = 0;
  while (true) {
    const bool finished = done.load();
    if (buffer.update()) {
      const Stamped& s = buffer.front();
      ++seen;
      if (s.a != s.c || s.b[7] != static_cast<double>(s.a)) ++torn;
      if (s.a <= last) ++backwards;
      last = s.a;
    }
    if (finished && !buffer.update()) break;
  }
  writer.join();
  EXPECT_EQ(torn, 0);
  EXPECT_EQ(backwards, 0);
  EXPECT_GT(seen, 0);
  EXPECT_EQ(buffer.front().a, kValues) << "the newest value must arrive";
}

TEST(Histogram, PercentilesWithinTheResolution) {
  Histogram h;
  for (int i = 1; i <= 10000; ++i) h.record(i * 1e-6);  // 1 us .. 10 ms uniformly
  EXPECT_EQ(h.count(), 10000);
  EXPECT_NEAR(h.percentile(0.5), 5e-3, 5e-3 * 0.011);
  EXPECT_NEAR(h.percentile(0.99), 9.9e-3, 9.9e-3 * 0.011);
  EXPECT_DOUBLE_EQ(h.max(), 1e-2);
  EXPECT_NEAR(h.mean(), 5.0005e-3, 1e-9);
  Histogram other;
  other.record(1.0);
  h.merge(other);
  EXPECT_DOUBLE_EQ(h.max(), 1.0);
  EXPECT_EQ(h.summary(1e3)["count"], 10001);
  EXPECT_EQ(Histogram().percentile(0.5), 0);
}

TEST(ForceSafety, ClampsMagnitudeAndRate) {
  SafetyLimits limits;
  limits.max_force = 5;
  limits.max_force_rate = 1000;  // 1 N per ms
  ForceSafety safety(limits);
  // A 20 N step: the output rises by 1 N per 1 ms tick and never exceeds 5 N.
  Vec3 f{};
  for (int i = 1; i <= 4; ++i) {
    f = safety.filter({0, 20, 0}, 1e-3, 0, true);
    EXPECT_NEAR(f[1], i, 1e-12);
  }
  for (int i = 0; i < 10; ++i) f = safety.filter({0, 20, 0}, 1e-3, 0, true);
  EXPECT_NEAR(f[1], 5, 1e-12);
  EXPECT_GT(safety.magnitude_clamps(), 0);
  EXPECT_GT(safety.rate_clamps(), 0);
  // NaN from a broken model becomes zero force (reached at the rate limit).
  for (int i = 0; i < 10; ++i) f = safety.filter({NAN, NAN, 0}, 1e-3, 0, true);
  EXPECT_EQ(f[1], 0);
}

TEST(ForceSafety, WatchdogRampsToZeroAndDisconnectZeroesAtOnce) {
  SafetyLimits limits;
  limits.watchdog_timeout_s = 0.1;
  limits.watchdog_ramp_s = 0.05;
  ForceSafety safety(limits);
  Vec3 f{};
  for (int i = 0; i < 10; ++i) f = safety.filter({2, 0, 0}, 1e-3, 0.01, true);
  EXPECT_NEAR(f[0], 2, 1e-12);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.1), 1);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.125), 0.5);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.2), 0);
  f = safety.filter({2, 0, 0}, 1e-3, 0.125, true);
  EXPECT_NEAR(f[0], 1, 1e-12);
  f = safety.filter({2, 0, 0}, 1e-3, 0.151, true);
  EXPECT_EQ(f[0], 0);
  EXPECT_GT(safety.watchdog_ticks(), 0);
  for (int i = 0; i < 10; ++i) f = safety.filter({2, 0, 0}, 1e-3, 0, true);
  f = safety.filter({2, 0, 0}, 1e-3, 0, false);
  EXPECT_EQ(f[0], 0) << "a lost connection zeroes the force without a ramp";
  f = safety.filter({2, 0, 0}, 1e-3, std::numeric_limits<double>::infinity(), true);
  EXPECT_EQ(f[0], 0) << "no model yet: no force";
}

TEST(PeriodicTimer, KeepsTheAverageRate) {
  // Not a timing test: only the average over many ticks, which a slow machine keeps too (the
  // timer restarts its schedule after an overrun, so the count can only fall short by overruns).
  PeriodicTimer timer(1000, 100e-6);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) timer.wait();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed, 0.199);
  EXPECT_LE(timer.overruns(), 200);
}

}  // namespace
}  // namespace softbody::client
