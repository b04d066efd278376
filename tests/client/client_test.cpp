// softbody::client::Client against a real softbody-server on loopback: sessions, typed errors,
// deadlines, snapshots, topology, decoded state subscriptions and their reconnection.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tests/client/client_test_support.h"

namespace softbody::client {
namespace {

using test::TestServer;
using testing::options_for;

class ClientApi : public test::SharedServerTest<ClientApi> {
 protected:
  Client client_{options_for(*server_)};
};

TEST_F(ClientApi, SessionLifecycleWithTypedErrors) {
  auto scenes = client_.list_scenes();
  ASSERT_TRUE(scenes) << scenes.error().to_string();
  bool has_cantilever = false;
  for (const auto& s : *scenes) has_cantilever |= s.name() == "cantilever";
  EXPECT_TRUE(has_cantilever);

  auto made = client_.create_session("cantilever", {"dt=0.005"}, true, "lifecycle");
  ASSERT_TRUE(made) << made.error().to_string();
  const std::string id = made->id();
  EXPECT_EQ(made->status(), v1::SESSION_STATUS_PAUSED);
  EXPECT_EQ(made->label(), "lifecycle");
  EXPECT_DOUBLE_EQ(made->settings().dt(), 0.005);

  auto listed = client_.list_sessions();
  ASSERT_TRUE(listed);
  EXPECT_TRUE(std::any_of(listed->begin(), listed->end(), [&](auto& s) { return s.id() == id; }));

  auto stepped = client_.control(id, v1::CONTROL_ACTION_STEP, 5);
  ASSERT_TRUE(stepped) << stepped.error().to_string();
  EXPECT_EQ(stepped->last_step().step(), 5);
  EXPECT_NEAR(stepped->last_step().sim_time(), 0.025, 1e-12);

  v1::SessionSettings settings;
  settings.set_youngs_modulus(3e6);
  auto updated = client_.update_settings(id, settings);
  ASSERT_TRUE(updated) << updated.error().to_string();
  EXPECT_DOUBLE_EQ(updated->settings().youngs_modulus(), 3e6);

  // Errors carry the server's code and a message naming the field or the id at fault.
  settings.set_poisson_ratio(0.7);
  auto bad = client_.update_settings(id, settings);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(bad.error().message.find("poisson_ratio"), std::string::npos) << bad.error().message;

  auto missing = client_.get_session("no-such-session");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(missing.error().message.find("no-such-session"), std::string::npos);
  EXPECT_NE(missing.error().to_string().find("NOT_FOUND: "), std::string::npos);
  try {
    (void)missing.value();
    ADD_FAILURE() << "value() of an error must throw";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.error().code, grpc::StatusCode::NOT_FOUND);
  }

  auto unknown_scene = client_.create_session("no-such-scene");
  ASSERT_FALSE(unknown_scene);
  EXPECT_NE(unknown_scene.error().message.find("no-such-scene"), std::string::npos);

  ASSERT_TRUE(client_.delete_session(id));
  EXPECT_EQ(client_.get_session(id).error().code, grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(client_.delete_session(id).error().code, grpc::StatusCode::NOT_FOUND);
}

TEST_F(ClientApi, EveryCallHasADeadline) {
  auto made = client_.create_session("knight", {}, true);
  ASSERT_TRUE(made);
  Client hasty(options_for(*server_, 20));
  // A thousand knight steps take far longer than 20 ms.
  auto r = hasty.control(made->id(), v1::CONTROL_ACTION_STEP, 1000);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, grpc::StatusCode::DEADLINE_EXCEEDED);
  client_.delete_session(made->id());
}

TEST_F(ClientApi, SnapshotRestoresAndTopologyDescribesTheSurface) {
  auto made = client_.create_session("default", {}, true);
  ASSERT_TRUE(made);
  ASSERT_TRUE(client_.control(made->id(), v1::CONTROL_ACTION_STEP, 10));
  auto snap = client_.snapshot(made->id());
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->step(), 10);
  auto restored = client_.restore(*snap, "copy", true);
  ASSERT_TRUE(restored) << restored.error().to_string();
  EXPECT_EQ(restored->last_step().step(), 10);
  EXPECT_EQ(restored->label(), "copy");
  auto again = client_.snapshot(restored->id());
  ASSERT_TRUE(again);
  ASSERT_EQ(again->positions_size(), snap->positions_size());
  for (int i = 0; i < snap->positions_size(); ++i)
    ASSERT_EQ(again->positions(i), snap->positions(i)) << i;

  auto topology = client_.topology(made->id(), true);
  ASSERT_TRUE(topology);
  EXPECT_EQ(topology->num_vertices, made->num_vertices());
  EXPECT_EQ(static_cast<int>(topology->surface_vertex_ids.size()), made->num_surface_vertices());
  EXPECT_EQ(static_cast<int>(topology->triangles.size()), 3 * made->num_surface_triangles());
  EXPECT_EQ(static_cast<int>(topology->tetrahedra.size()), 4 * made->num_tetrahedra());
  for (auto t : topology->triangles) ASSERT_LT(t, topology->surface_vertex_ids.size());
  const auto rest = topology->surface_rest_positions();
  ASSERT_EQ(rest.size(), 3 * topology->surface_vertex_ids.size());
  for (size_t i = 0; i < rest.size() / 3; ++i)
    for (int k = 0; k < 3; ++k) {
      ASSERT_GE(rest[3 * i + k], topology->bounds_min[k] - 1e-6);
      ASSERT_LE(rest[3 * i + k], topology->bounds_max[k] + 1e-6);
    }
  client_.delete_session(made->id());
  client_.delete_session(restored->id());
}

// Collects decoded frames for a test.
struct FrameLog {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<DecodedFrame> frames;
  std::optional<Error> end;

  StateSubscription::FrameHandler on_frame() {
    return [this](const DecodedFrame& f) {
      std::lock_guard lock(mutex);
      frames.push_back(f);
      cv.notify_all();
    };
  }
  StateSubscription::EndHandler on_end() {
    return [this](const Error& e) {
      std::lock_guard lock(mutex);
      end = e;
      cv.notify_all();
    };
  }
  template <typename Predicate>
  bool wait(Predicate p, double seconds = 30) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return p(*this); });
  }
};

TEST_F(ClientApi, SubscriptionDecodesFramesWithinTheErrorBound) {
  auto made = client_.create_session("default", {}, true);
  ASSERT_TRUE(made);
  const std::string id = made->id();
  ASSERT_TRUE(client_.control(id, v1::CONTROL_ACTION_STEP, 40));  // deformed by the pusher
  auto snap = client_.snapshot(id);
  auto topology = client_.topology(id);
  ASSERT_TRUE(snap && topology);

  FrameLog log;
  SubscriptionOptions o;
  o.error_bound = 1e-4;
  auto subscription = client_.subscribe(id, o, log.on_frame(), log.on_end());
  ASSERT_TRUE(log.wait([](FrameLog& l) { return !l.frames.empty(); }));
  double worst = 0;
  {
    std::lock_guard lock(log.mutex);
    const DecodedFrame& f = log.frames.front();
    EXPECT_TRUE(f.keyframe);
    EXPECT_EQ(f.stats.step(), 40);
    ASSERT_EQ(f.positions.size(), 3 * topology->surface_vertex_ids.size());
    for (size_t i = 0; i < topology->surface_vertex_ids.size(); ++i) {
      const auto v = topology->surface_vertex_ids[i];
      double d2 = 0;
      for (size_t k = 0; k < 3; ++k)
        d2 += std::pow(double(f.positions[3 * i + k]) - snap->positions(int(3 * v + k)), 2);
      worst = std::max(worst, std::sqrt(d2));
    }
  }
  double diagonal = 0;
  for (int k = 0; k < 3; ++k)
    diagonal += std::pow(topology->bounds_max[k] - topology->bounds_min[k], 2);
  diagonal = std::sqrt(diagonal);
  // float32 positions add at most ~1e-8 m to the codec's bound.
  EXPECT_LE(worst, 1e-4 * diagonal + 1e-7);
  EXPECT_GT(worst, 0);

  // Stepping the paused session produces frames of the new steps, decoded as deltas.
  ASSERT_TRUE(client_.control(id, v1::CONTROL_ACTION_STEP, 3));
  ASSERT_TRUE(log.wait([](FrameLog& l) { return l.frames.back().stats.step() == 43; }));
  {
    std::lock_guard lock(log.mutex);
    EXPECT_FALSE(log.frames.back().keyframe);
  }
  subscription->stop();
  EXPECT_EQ(subscription->end_error()->code, grpc::StatusCode::CANCELLED);
  EXPECT_EQ(subscription->decode_errors(), 0);

  // A subscription to a missing session ends at once with NOT_FOUND (not retried).
  FrameLog none;
  auto bad = client_.subscribe("no-such-session", o, none.on_frame(), none.on_end());
  ASSERT_TRUE(none.wait([](FrameLog& l) { return l.end.has_value(); }));
  EXPECT_EQ(none.end->code, grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(bad->reconnects(), 0);
  client_.delete_session(id);
}

TEST(ClientReconnection, ASubscriptionRetriesWhileTheServerIsDownAndResumes) {
  auto first = std::make_unique<TestServer>();
  const int port = first->grpc_port();
  Client client(options_for(*first));
  auto made = client.create_session("cantilever", {}, false);
  ASSERT_TRUE(made);
  auto snap = client.snapshot(made->id());
  ASSERT_TRUE(snap);

  FrameLog log;
  SubscriptionOptions o;
  o.max_rate_hz = 30;
  o.initial_backoff = std::chrono::milliseconds(50);
  o.max_backoff = std::chrono::milliseconds(200);
  auto subscription = client.subscribe(made->id(), o, log.on_frame(), log.on_end());
  ASSERT_TRUE(log.wait([](FrameLog& l) { return l.frames.size() >= 3; }));

  // The server goes away (SIGTERM ends streams with UNAVAILABLE): the subscription keeps trying.
  EXPECT_EQ(first->terminate(), 0);
  first.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_TRUE(subscription->running());
  EXPECT_GE(subscription->reconnects(), 1);

  // A new server on the same port does not know the session: the retried stream ends with
  // NOT_FOUND, a permanent error, and the subscription gives up.
  TestServer second({"--grpc", "127.0.0.1:" + std::to_string(port)});
  ASSERT_EQ(second.grpc_port(), port);
  ASSERT_TRUE(log.wait([](FrameLog& l) { return l.end.has_value(); }));
  EXPECT_EQ(log.end->code, grpc::StatusCode::NOT_FOUND) << log.end->to_string();

  // The same Client object works against the new server.
  auto restored = client.restore(*snap);
  ASSERT_TRUE(restored) << restored.error().to_string();
  FrameLog resumed;
  auto again = client.subscribe(restored->id(), o, resumed.on_frame(), resumed.on_end());
  ASSERT_TRUE(resumed.wait([](FrameLog& l) { return l.frames.size() >= 2; }));
}

}  // namespace
}  // namespace softbody::client
