// Admission in process: what a session's steps cost (StepCostMeter) and how a host's capacity,
// its refusal and its hysteresis follow from its sessions' loads (measure_capacity).
#include <gtest/gtest.h>

#include "server/cluster/capacity.h"
#include "server/sessions/step_cost.h"

namespace softbody::server {
namespace {

TEST(StepCost, LeavesTheWarmUpOutAndAveragesTheRecentSteps) {
  StepCostMeter meter;
  // The first steps carry the analysis and the first factorization: 50x a running step.
  for (int i = 0; i < StepCostMeter::kWarmupSteps; ++i) meter.record(0.5, 0.01);
  EXPECT_LT(meter.load(), 0);  // not measured yet
  for (int i = 0; i < StepCostMeter::kMinSamples - 1; ++i) meter.record(0.001, 0.01);
  EXPECT_LT(meter.load(), 0);
  meter.record(0.001, 0.01);
  EXPECT_NEAR(meter.load(), 0.1, 1e-12);  // 1 ms of CPU per 10 ms of simulated time
  // A refactorization every 10th step is part of the running cost: the window's mean holds it.
  for (int i = 0; i < StepCostMeter::kWindow; ++i) meter.record(i % 10 == 0 ? 0.011 : 0.001, 0.01);
  EXPECT_NEAR(meter.load(), (13 * 1.1 + 115 * 0.1) / 128, 1e-12);
  // The window forgets: a session whose cost halved reads half after a window of steps.
  for (int i = 0; i < StepCostMeter::kWindow; ++i) meter.record(0.0005, 0.01);
  EXPECT_NEAR(meter.load(), 0.05, 1e-12);
  meter.restart();  // new settings: warm-up and measure again
  meter.record(0.0005, 0.01);
  EXPECT_LT(meter.load(), 0);
}

SessionLoad running(double load, const std::string& scene = "knight#2000") {
  return {true, load, scene, 1.0};
}

TEST(Capacity, CountsAnUnmeasuredSessionAsItsSceneCostsOnThisHost) {
  SceneCostBook book;
  CapacityLimits limits;  // 0.9 of 1 core
  // Nothing measured yet: a new session counts as nothing (no guess from its first steps).
  Capacity c = measure_capacity({running(-1)}, limits, false, false, book);
  EXPECT_EQ(c.load_cores, 0);
  EXPECT_TRUE(c.accepting());
  // Once one knight is measured, a just-created knight counts as it does.
  c = measure_capacity({running(0.3), running(-1)}, limits, false, false, book);
  EXPECT_DOUBLE_EQ(c.load_cores, 0.6);
  // The book remembers after the measured session is gone; another scene counts as the mean.
  c = measure_capacity({running(-1), running(0.1, "bunny#500"), running(-1, "hand#900")}, limits,
                       false, false, book);
  EXPECT_DOUBLE_EQ(c.load_cores, 0.3 + 0.1 + 0.1);
  EXPECT_EQ(c.free_sessions, 2);  // (0.9 - 0.5) / (0.5 / 3) = 2.4
}

TEST(Capacity, RefusesWhenFullAndAcceptsAgainOnlyBelowTheHysteresis) {
  SceneCostBook book;
  CapacityLimits limits;
  limits.cores = 2;  // capacity 1.8 cores
  Capacity c = measure_capacity({running(1.0), running(0.85)}, limits, false, false, book);
  EXPECT_FALSE(c.accepting());
  EXPECT_TRUE(c.cpu_full);
  EXPECT_EQ(c.free_sessions, 0);
  EXPECT_NE(c.refusal.find("CPU is full: its sessions take 1.85 of 2 cores"), std::string::npos)
      << c.refusal;
  // Just below the limit is not enough once full: it accepts again below 1.62 cores.
  c = measure_capacity({running(1.0), running(0.75)}, limits, false, c.cpu_full, book);
  EXPECT_FALSE(c.accepting());
  EXPECT_NE(c.refusal.find("accepts again below 1.62 cores"), std::string::npos) << c.refusal;
  c = measure_capacity({running(1.0), running(0.6)}, limits, false, c.cpu_full, book);
  EXPECT_TRUE(c.accepting()) << c.refusal;
  EXPECT_FALSE(c.cpu_full);
  // A host that was not full accepts right up to the limit.
  c = measure_capacity({running(1.0), running(0.75)}, limits, false, false, book);
  EXPECT_TRUE(c.accepting());
}

TEST(Capacity, PausedSessionsCostNothingAndCountAgainstMaxSessions) {
  SceneCostBook book;
  CapacityLimits limits;
  limits.max_sessions = 2;
  Capacity c = measure_capacity({{false, 0, "knight#2000", 0}}, limits, false, false, book);
  EXPECT_EQ(c.running, 0);
  EXPECT_EQ(c.load_cores, 0);
  EXPECT_EQ(c.free_sessions, 1);
  c = measure_capacity({{false, 0, "k", 0}, running(0.1)}, limits, false, false, book);
  EXPECT_NE(c.refusal.find("maximum of 2 sessions (--max-sessions)"), std::string::npos);
  c = measure_capacity({}, limits, true, false, book);
  EXPECT_EQ(c.refusal, "the server is shutting down");
  EXPECT_EQ(c.free_sessions, 0);
}

TEST(Capacity, MaxCpuLoadZeroTurnsCpuAdmissionOff) {
  SceneCostBook book;
  CapacityLimits limits;
  limits.max_cpu_load = 0;
  limits.max_sessions = 10;
  const Capacity c = measure_capacity({running(3.0), running(2.0)}, limits, false, true, book);
  EXPECT_TRUE(c.accepting()) << c.refusal;
  EXPECT_FALSE(c.cpu_admission);
  EXPECT_EQ(c.free_sessions, 8);
  EXPECT_DOUBLE_EQ(c.load_cores, 5.0);  // still measured and reported
}

}  // namespace
}  // namespace softbody::server
