// Small helpers over the generated stubs shared by the server integration tests.
#pragma once

#include <gtest/gtest.h>

#include "codec/frame_codec.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::test {

namespace v1 = softbody::v1;

inline std::unique_ptr<grpc::ClientContext> context(double timeout_s = 30) {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() +
                  std::chrono::milliseconds(static_cast<int>(timeout_s * 1000)));
  return c;
}

inline v1::SessionInfo create_session(v1::Simulation::Stub& stub, const std::string& scene,
                                      bool paused, std::vector<std::string> overrides = {}) {
  v1::CreateSessionRequest request;
  request.set_scene_name(scene);
  request.set_start_paused(paused);
  for (const auto& o : overrides) request.add_overrides(o);
  v1::SessionInfo info;
  const grpc::Status status = stub.CreateSession(context().get(), request, &info);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return info;
}

inline grpc::Status control(v1::Simulation::Stub& stub, const std::string& id,
                            v1::ControlAction action, int steps = 0,
                            v1::SessionInfo* out = nullptr) {
  v1::ControlSessionRequest request;
  request.set_session_id(id);
  request.set_action(action);
  request.set_steps(steps);
  v1::SessionInfo info;
  grpc::Status status = stub.ControlSession(context().get(), request, out ? out : &info);
  return status;
}

inline v1::Snapshot snapshot(v1::Simulation::Stub& stub, const std::string& id) {
  v1::SnapshotRequest request;
  request.set_session_id(id);
  v1::Snapshot snap;
  const grpc::Status status = stub.SnapshotSession(context().get(), request, &snap);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return snap;
}

inline v1::SessionInfo get_session(v1::Simulation::Stub& stub, const std::string& id) {
  v1::GetSessionRequest request;
  request.set_session_id(id);
  v1::SessionInfo info;
  const grpc::Status status = stub.GetSession(context().get(), request, &info);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return info;
}

// The positions of a state frame, decoded by `decoder` (which keeps the reference for deltas).
inline std::vector<double> decode_frame(codec::FrameDecoder& decoder, const v1::StateFrame& frame) {
  std::vector<double> xyz;
  std::string error;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(frame.positions().data());
  EXPECT_TRUE(decoder.decode({bytes, frame.positions().size()}, xyz, error)) << error;
  return xyz;
}

}  // namespace softbody::test
