// Unit tests of the haptic loop's parts that need no server: the model hand-over, the histogram,
// the safety filter, the swap blend, the passivity controller and the periodic timer.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "client-cpp/haptics/force_safety.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/haptics/passivity_controller.h"
#include "client-cpp/haptics/periodic_timer.h"
#include "client-cpp/haptics/swap_blend.h"
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
  // Before the first model no force; the first model's force fades in over the ramp.
  f = safety.filter({2, 0, 0}, 1e-3, std::numeric_limits<double>::infinity(), true);
  EXPECT_EQ(f[0], 0);
  f = safety.filter({2, 0, 0}, 1e-3, 0.01, true);
  EXPECT_NEAR(f[0], 2 * 1e-3 / 0.05, 1e-12);
  for (int i = 0; i < 60; ++i) f = safety.filter({2, 0, 0}, 1e-3, 0.01, true);
  EXPECT_NEAR(f[0], 2, 1e-12);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.1), 1);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.125), 0.5);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.2), 0);
  f = safety.filter({2, 0, 0}, 1e-3, 0.125, true);
  EXPECT_NEAR(f[0], 1, 1e-12);
  f = safety.filter({2, 0, 0}, 1e-3, 0.151, true);
  EXPECT_EQ(f[0], 0);
  EXPECT_GT(safety.watchdog_ticks(), 0);
  // Models again: the force comes back over the ramp (50 ticks), not at once.
  double before = 0;
  for (int i = 1; i <= 60; ++i) {
    f = safety.filter({2, 0, 0}, 1e-3, 0, true);
    EXPECT_LE(f[0] - before, 2 * 1e-3 / 0.05 + 1e-12) << "tick " << i;
    before = f[0];
  }
  EXPECT_NEAR(f[0], 2, 1e-12);
  f = safety.filter({2, 0, 0}, 1e-3, 0, false);
  EXPECT_EQ(f[0], 0) << "a lost connection zeroes the force without a ramp";
  f = safety.filter({2, 0, 0}, 1e-3, std::numeric_limits<double>::infinity(), true);
  EXPECT_EQ(f[0], 0) << "no model yet: no force";
}

TEST(ForceSafety, OnASlowLinkTheWatchdogWaitsTheLinksDelayLonger) {
  SafetyLimits limits;
  limits.watchdog_timeout_s = 0.1;
  limits.watchdog_ramp_s = 0.05;
  ForceSafety safety(limits);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.2), 0);
  safety.allow_link_delay(0.3);  // replies up to ~300 ms apart are the link, not a dead server
  EXPECT_DOUBLE_EQ(safety.watchdog_timeout(), 0.4);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.35), 1);
  EXPECT_NEAR(safety.watchdog_scale(0.425), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(safety.watchdog_scale(0.5), 0);
  safety.allow_link_delay(-1);
  EXPECT_DOUBLE_EQ(safety.watchdog_timeout(), 0.1);
}

TEST(SwapBlend, TheForceDoesNotJumpAndTheOffsetFadesLinearly) {
  SwapBlend blend(0.02, 0);
  EXPECT_EQ(blend.advance(1e-3), (Vec3{0, 0, 0}));
  // The old model says 1 N up, the new one 3 N up: the rendered force stays 1 N at the swap and
  // reaches 3 N after 20 ticks, 0.1 N per tick.
  blend.swap({0, 1, 0}, {0, 3, 0});
  std::vector<double> rendered;
  for (int i = 0; i < 25; ++i) rendered.push_back(3 + blend.advance(1e-3)[1]);
  EXPECT_NEAR(rendered[0], 1.1, 1e-12);
  EXPECT_NEAR(rendered[9], 2.0, 1e-12);
  EXPECT_NEAR(rendered[19], 3.0, 1e-12);
  EXPECT_EQ(rendered[24], 3.0);
  EXPECT_NEAR(blend.largest_step(), 0.1, 1e-12);
  // A swap in the middle of a blend adds its difference to what is left and starts over.
  blend.swap({0, 3, 0}, {0, 2, 0});                      // offset +1 N
  EXPECT_NEAR(2 + blend.advance(1e-3)[1], 2.95, 1e-12);  // 1/20 of it gone
  blend.swap({0, 2, 0}, {0, 2.5, 0});                    // 0.95 - 0.5: still 2.95 N rendered
  EXPECT_NEAR(2.5 + blend.offset()[1], 2.95, 1e-12);
  EXPECT_NEAR(2.5 + blend.advance(1e-3)[1], 2.5 + 0.45 * 0.95, 1e-12);
  // Blending off: the new force at once.
  SwapBlend off(0, 0);
  off.swap({0, 1, 0}, {0, 3, 0});
  EXPECT_EQ(off.advance(1e-3), (Vec3{0, 0, 0}));
  // A large disagreement (a burst of replies skipped many steps) fades by at most 0.1 N a tick,
  // late ticks included: 6 N takes 60 ticks.
  SwapBlend limited(0.02, 0.1);
  limited.swap({0, 8, 0}, {0, 2, 0});
  int ticks = 0;
  while (std::hypot(limited.offset()[0], limited.offset()[1], limited.offset()[2]) > 1e-12 ||
         ticks == 0) {
    limited.advance(ticks % 7 == 3 ? 4e-3 : 1e-3);  // some ticks late
    ++ticks;
  }
  EXPECT_EQ(ticks, 60);
  EXPECT_NEAR(limited.largest_step(), 0.1, 1e-9);
}

// A spring whose force comes one tick late (a delayed model): pressing feels it weaker than
// releasing, so a press-release cycle hands the user energy; the controller takes it back.
TEST(PassivityController, ADelayedSpringGivesNoEnergyBackWithTheController) {
  // Uncapped and without a deadband, it pays every tick's excess at once: E never dips.
  auto cycle = [](bool enabled) {
    PassivityOptions o;
    o.enabled = enabled;
    o.max_damping = 1e9;
    o.min_speed = 0;
    PassivityController pc(o);
    const double k = 500, dt = 1e-3, delay = 0.05;  // 50 ms late
    std::vector<double> x;
    for (int i = 0; i <= 2000; ++i) x.push_back(0.01 * std::sin(M_PI * i * dt));  // in and out
    for (size_t i = 1; i < x.size(); ++i) {
      const size_t late = i >= 50 ? i - static_cast<size_t>(delay / dt) : 0;
      const Vec3 desired{-k * x[late], 0, 0};
      // The motion over the coming tick is v dt exactly here (x is sampled at the ticks and v is
      // its forward difference), so the observer's prediction holds and E never dips.
      const double v_next = i + 1 < x.size() ? (x[i + 1] - x[i]) / dt : 0;
      const Vec3 f = pc.filter(desired, {x[i], 0, 0}, {v_next, 0, 0}, dt);
      pc.record_output(f, {x[i], 0, 0});
      EXPECT_GE(pc.stored_energy(), enabled ? -1e-12 : -1e9);
    }
    return pc;
  };
  const PassivityController without = cycle(false), with = cycle(true);
  EXPECT_GT(without.delivered_to_user(), 1e-3) << "the delayed spring is active";
  EXPECT_LE(with.delivered_to_user(), 1e-12);
  EXPECT_GT(with.active_ticks(), 0);
  EXPECT_GT(with.dissipated(), 0.5 * without.delivered_to_user());
  // With the default cap (50 N s/m) the damping it adds never exceeds that times the speed.
  PassivityController capped(PassivityOptions{});
  capped.record_output({0, 0, 0}, {0, 0, 0});
  capped.filter({1, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1e-3);
  capped.record_output({1, 0, 0}, {0.001, 0, 0});  // 1 mJ delivered: a debt
  const Vec3 paid = capped.filter({1, 0, 0}, {0.001, 0, 0}, {0.01, 0, 0}, 1e-3);
  EXPECT_NEAR(paid[0], 1 - 50 * 0.01, 1e-12);
  // Held still, no energy flows and the force is the model's, untouched.
  PassivityController held(PassivityOptions{});
  const Vec3 f = held.filter({0, 5, 0}, {0, 0.01, 0}, {0, 0, 0}, 1e-3);
  EXPECT_EQ(f, (Vec3{0, 5, 0}));
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
