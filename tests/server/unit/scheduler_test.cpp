// The real-time scheduler in process, with real sessions of a small scene: one-off runs step a
// paused session exactly as often as asked; a running session is stepped on schedule until it is
// paused, after which no step runs; sessions sharing one worker advance alike (earliest due first).
#include "server/sessions/scheduler.h"

#include <gtest/gtest.h>

#include <thread>

namespace softbody::server {
namespace {

std::shared_ptr<Session> small_session(const std::string& id, Metrics& metrics) {
  const nlohmann::json document = nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
    "material": {"model": "stvk-tl", "E": 1e5, "nu": 0.3, "density": 1000},
    "dt": 0.01, "fixed": [{"set": "xmin"}]})");
  Scene scene = build_scene(document, id, ".");
  SessionSource source;
  source.scene_name = id;
  source.document = document;
  source.base_dir = ".";
  return std::make_shared<Session>(id, "", std::move(scene), std::move(source), SessionLimits{},
                                   BodyProvider{}, metrics);
}

long steps_of(const Session& s) {
  return s.latest()->step;
}

// Waits up to 60 s (a slow machine steps slowly; the outcome does not depend on it).
bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 6000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(Scheduler, RunsExactlyTheStepsAskedOfAPausedSession) {
  Metrics metrics;
  Scheduler scheduler({.workers = 2});
  auto session = small_session("paused", metrics);
  session->running = false;
  scheduler.run_steps(session, 7);
  EXPECT_EQ(steps_of(*session), 7);
  scheduler.run_steps(session, 3);
  EXPECT_EQ(steps_of(*session), 10);
}

TEST(Scheduler, StepsARunningSessionUntilItIsPaused) {
  Metrics metrics;
  Scheduler scheduler({.workers = 1});
  auto session = small_session("running", metrics);
  session->running = true;
  scheduler.start(session);
  ASSERT_TRUE(eventually([&] { return steps_of(*session) >= 5; }));
  session->pause_stepping();  // when it returns no scheduled step runs or will run
  const long paused_at = steps_of(*session);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // ten of its dt
  EXPECT_EQ(steps_of(*session), paused_at);
  // Resuming starts a new schedule; the old queue entry stays invalid.
  session->running = true;
  scheduler.start(session);
  ASSERT_TRUE(eventually([&] { return steps_of(*session) >= paused_at + 3; }));
  scheduler.stop();
  const long stopped_at = steps_of(*session);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(steps_of(*session), stopped_at);
}

TEST(Scheduler, SessionsSharingAWorkerAdvanceAlike) {
  Metrics metrics;
  Scheduler scheduler({.workers = 1});
  auto a = small_session("a", metrics), b = small_session("b", metrics);
  a->running = b->running = true;
  scheduler.start(a);
  scheduler.start(b);
  ASSERT_TRUE(eventually([&] { return steps_of(*a) >= 30 && steps_of(*b) >= 30; }));
  a->pause_stepping();
  b->pause_stepping();
  // Earliest due first: with equal dt neither runs ahead of the other by more than a step or two,
  // whether the worker keeps up or not.
  EXPECT_LE(std::abs(steps_of(*a) - steps_of(*b)), 2) << steps_of(*a) << " vs " << steps_of(*b);
}

}  // namespace
}  // namespace softbody::server
