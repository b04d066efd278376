// Streams over real gRPC: state frames (rate, codec error bound, drop accounting, a stalled
// subscriber), tool interaction (replies in order, the newest never lost behind a stalled link,
// the force between steps), and shutdown.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "codec/compact_compliance.h"
#include "codec/tool_contact.h"
#include "tests/server/api_helpers.h"
#include "tests/server/test_server.h"

namespace softbody::test {
namespace {

using Clock = std::chrono::steady_clock;

class Streams : public SharedServerTest<Streams> {};

TEST_F(Streams, FramesHonourTheRateAndAccountForEveryStep) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", false);  // 50 Hz steps
  v1::StreamStateRequest request;
  request.set_session_id(s.id());
  request.set_max_rate_hz(20);
  auto ctx = context();
  auto reader = stub->StreamState(ctx.get(), request);
  v1::StateFrame frame;
  std::vector<v1::StateFrame> frames;
  Clock::time_point first;
  while (frames.size() < 15 && reader->Read(&frame)) {
    if (frames.empty()) first = Clock::now();
    frames.push_back(frame);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - first).count();
  ctx->TryCancel();
  ASSERT_EQ(frames.size(), 15u);
  // Never faster than asked (the server paces); slower only when the machine is.
  EXPECT_LE(14 / seconds, 20 * 1.15);
  // Every step in between was either sent, skipped for the rate or dropped. At 20 Hz of a 50 Hz
  // session a reader this fast is skipped steps by its own choice, not dropped: "dropped" means
  // it was too slow (watch showed "70 dropped" each second at 30 Hz of a 100 Hz session).
  std::uint32_t skipped = 0, dropped = 0;
  for (size_t i = 1; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].stats().step() - frames[i - 1].stats().step(),
              1 + frames[i].frames_dropped() + frames[i].frames_skipped())
        << i;
    EXPECT_EQ(frames[i].sequence(), i);
    skipped += frames[i].frames_skipped();
    dropped += frames[i].frames_dropped();
  }
  EXPECT_GE(skipped, 14u);  // at least one of every 2.5 steps
  // A drop needs the server's writer to stall for a whole step (20 ms): not on loopback, unless
  // the machine is starved.
  EXPECT_LE(dropped, 2u);
}

TEST_F(Streams, QuantizedFramesStayWithinTheirErrorBound) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", true);
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 40).ok());  // deformed by the pusher
  v1::GetTopologyRequest topology_request;
  topology_request.set_session_id(s.id());
  v1::Topology topology;
  ASSERT_TRUE(stub->GetTopology(context().get(), topology_request, &topology).ok());
  EXPECT_EQ(topology.surface_triangles_size() % 3, 0);
  EXPECT_EQ(static_cast<int>(topology.rest_positions_size()), 3 * topology.num_vertices());

  // The exact positions, from a snapshot of the paused session.
  const v1::Snapshot snap = snapshot(*stub, s.id());
  for (const double bound : {1e-3, 1e-4}) {
    v1::StreamStateRequest request;
    request.set_session_id(s.id());
    request.set_error_bound(bound);
    auto ctx = context();
    auto reader = stub->StreamState(ctx.get(), request);
    v1::StateFrame frame;
    ASSERT_TRUE(reader->Read(&frame));
    ctx->TryCancel();
    codec::FrameDecoder decoder;
    const std::vector<double> xyz = decode_frame(decoder, frame);
    ASSERT_EQ(static_cast<int>(xyz.size()), 3 * topology.surface_vertex_ids_size());
    const auto& box = topology.rest_bounds();
    const double diagonal = std::hypot(box.max().x() - box.min().x(), box.max().y() - box.min().y(),
                                       box.max().z() - box.min().z());
    double worst = 0;
    for (int i = 0; i < topology.surface_vertex_ids_size(); ++i) {
      const int v = static_cast<int>(topology.surface_vertex_ids(i));
      double d2 = 0;
      for (int k = 0; k < 3; ++k)
        d2 += std::pow(xyz[static_cast<size_t>(3 * i + k)] - snap.positions(3 * v + k), 2);
      worst = std::max(worst, std::sqrt(d2));
    }
    EXPECT_LE(worst, bound * diagonal) << bound;
    EXPECT_GT(worst, 0.2 * bound * diagonal) << bound;  // really quantized at that bound
    EXPECT_LE(frame.positions().size(),
              codec::kHeaderBytes + codec::kGridBytes + 6 * xyz.size() / 3);
  }
  v1::StreamStateRequest bad;
  bad.set_session_id(s.id());
  bad.set_max_rate_hz(1e9);
  auto ctx = context();
  auto reader = stub->StreamState(ctx.get(), bad);
  v1::StateFrame frame;
  EXPECT_FALSE(reader->Read(&frame));
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("max_rate_hz"), std::string::npos);
}

// What a client draws besides the body: the scene's obstacles with the topology, and the poses of
// those that move with each frame, at the frame's time (the clamp's jaws close linearly from
// y = +-10.5 mm to +-2.4 mm over 0.6 s).
TEST_F(Streams, ObstaclesComeWithTheTopologyAndMovingOnesWithEachFrame) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "clamp", true);
  v1::GetTopologyRequest topology_request;
  topology_request.set_session_id(s.id());
  v1::Topology topology;
  ASSERT_TRUE(stub->GetTopology(context().get(), topology_request, &topology).ok());
  ASSERT_EQ(topology.obstacles_size(), 2);
  for (int i = 0; i < 2; ++i) {
    const v1::ObstacleGeometry& jaw = topology.obstacles(i);
    const double side = i == 0 ? 1 : -1;  // the upper jaw faces down
    EXPECT_EQ(jaw.shape(), v1::OBSTACLE_SHAPE_PLATE);
    EXPECT_EQ(jaw.normal().y(), -side);
    EXPECT_EQ(std::abs(jaw.tangent().x()), 1);  // half_extent[0]: 6 mm across the tube
    ASSERT_EQ(jaw.half_extent_size(), 2);
    EXPECT_DOUBLE_EQ(jaw.half_extent(0), 0.006);
    EXPECT_DOUBLE_EQ(jaw.half_extent(1), 0.025);
    EXPECT_TRUE(jaw.moves());
    EXPECT_EQ(jaw.contact_model(), "constraint");
    EXPECT_DOUBLE_EQ(jaw.pose().position().y(), side * 0.0105);
    EXPECT_EQ(jaw.pose().orientation().w(), 1);
  }
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 30).ok());
  v1::StreamStateRequest request;
  request.set_session_id(s.id());
  auto ctx = context();
  auto reader = stub->StreamState(ctx.get(), request);
  v1::StateFrame frame;
  ASSERT_TRUE(reader->Read(&frame));
  ctx->TryCancel();
  const double t = frame.stats().sim_time();
  EXPECT_NEAR(t, 0.3, 1e-9);
  ASSERT_EQ(frame.obstacle_poses_size(), 2);
  const double closing = 0.0105 + t / 0.6 * (0.0024 - 0.0105);
  EXPECT_NEAR(frame.obstacle_poses(0).position().y(), closing, 1e-12);
  EXPECT_NEAR(frame.obstacle_poses(1).position().y(), -closing, 1e-12);
  EXPECT_EQ(frame.obstacle_poses(0).position().x(), 0);

  // The blade: a mesh in its own frame (millimetres read as metres x 1e-3), moving down.
  const v1::SessionInfo blade = create_session(*stub, "blade", true);
  topology_request.set_session_id(blade.id());
  ASSERT_TRUE(stub->GetTopology(context().get(), topology_request, &topology).ok());
  ASSERT_EQ(topology.obstacles_size(), 1);
  const v1::ObstacleGeometry& mesh = topology.obstacles(0);
  EXPECT_EQ(mesh.shape(), v1::OBSTACLE_SHAPE_MESH);
  ASSERT_GT(mesh.mesh_triangles_size(), 0);
  EXPECT_EQ(mesh.mesh_triangles_size() % 3, 0);
  EXPECT_EQ(mesh.mesh_vertices_size() % 3, 0);
  double lowest = 1, highest = -1;
  for (int i = 0; i < mesh.mesh_vertices_size(); i += 3) {
    lowest = std::min(lowest, mesh.mesh_vertices(i + 1));
    highest = std::max(highest, mesh.mesh_vertices(i + 1));
  }
  for (int v : mesh.mesh_triangles()) EXPECT_LT(3 * v, mesh.mesh_vertices_size());
  EXPECT_EQ(lowest, 0);              // the edge is at the reference point
  EXPECT_DOUBLE_EQ(highest, 0.008);  // 8 mm tall, in metres
  EXPECT_DOUBLE_EQ(mesh.pose().position().y(), 0.031);

  // A scene whose obstacles all stand still sends no poses with its frames.
  const v1::SessionInfo knight = create_session(*stub, "knight", true);
  topology_request.set_session_id(knight.id());
  ASSERT_TRUE(stub->GetTopology(context().get(), topology_request, &topology).ok());
  ASSERT_GE(topology.obstacles_size(), 1);
  for (const auto& o : topology.obstacles()) EXPECT_FALSE(o.moves());
  request.set_session_id(knight.id());
  auto knight_ctx = context();
  auto knight_reader = stub->StreamState(knight_ctx.get(), request);
  ASSERT_TRUE(knight_reader->Read(&frame));
  knight_ctx->TryCancel();
  EXPECT_EQ(frame.obstacle_poses_size(), 0);
}

TEST_F(Streams, AStalledSubscriberSlowsNobody) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", false);
  v1::StreamStateRequest request;
  request.set_session_id(s.id());
  request.set_vertices(v1::VERTEX_SET_ALL);
  request.set_encoding(v1::POSITION_ENCODING_RAW_FLOAT32);  // big frames fill the windows fast
  // The stalled client gets its own connection with small HTTP/2 windows, so the server's
  // writes block after a few frames instead of filling megabytes of buffers.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16 * 1024);
  args.SetInt("grpc.stalled_test_channel", 1);  // never shared with the live channel
  auto stalled_stub = v1::Simulation::NewStub(
      grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(server_->grpc_port()),
                                grpc::InsecureChannelCredentials(), args));
  auto stalled_ctx = context(120);
  auto stalled = stalled_stub->StreamState(stalled_ctx.get(), request);  // never read (yet)

  auto live_ctx = context();
  auto live = stub->StreamState(live_ctx.get(), request);
  v1::StateFrame frame;
  long first_step = -1, last_step = -1;
  int frames = 0;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(3) && live->Read(&frame)) {
    if (first_step < 0) first_step = frame.stats().step();
    last_step = frame.stats().step();
    ++frames;
  }
  live_ctx->TryCancel();
  // The session went on stepping (50 Hz) and the live subscriber saw it: at least a third of the
  // real-time rate even on a loaded machine.
  EXPECT_GT(last_step - first_step, 50);
  EXPECT_GT(frames, 50);
  // The stalled one now reads: after what was buffered in transit it gets the newest state, with
  // the missed steps counted.
  long sum = 0, first = -1, last = -1;
  std::uint32_t max_dropped = 0;
  const long session_step = get_session(*stub, s.id()).last_step().step();
  while (stalled->Read(&frame)) {
    if (first < 0)
      first = frame.stats().step();
    else
      sum += 1 + frame.frames_dropped() + frame.frames_skipped();
    last = frame.stats().step();
    max_dropped = std::max(max_dropped, frame.frames_dropped());
    EXPECT_EQ(frame.frames_skipped(), 0u);  // no rate asked: nothing skipped by choice
    if (last >= session_step) break;
  }
  stalled_ctx->TryCancel();
  EXPECT_GT(max_dropped, 20u);
  EXPECT_EQ(sum, last - first);
}

// A sphere tool command at (x, y, z).
v1::ToolCommand poke(const std::string& session, std::uint64_t seq, double x, double y,
                     double radius, double z = 0) {
  v1::ToolCommand c;
  c.set_session_id(session);
  c.set_sequence(seq);
  c.set_client_time_s(static_cast<double>(seq));
  c.mutable_pose()->mutable_position()->set_x(x);
  c.mutable_pose()->mutable_position()->set_y(y);
  c.mutable_pose()->mutable_position()->set_z(z);
  c.set_mode(v1::TOOL_MODE_POKE);
  c.set_radius(radius);
  return c;
}

// A constraint-contact sphere (issue 22) pressed into the cantilever between its vertices, a step
// per millimetre: the force on the tool points out of the body at every depth, once in contact
// grows with depth, and the coupling model's stiffness is the contact's (dFy/dy < 0). A bad
// friction coefficient and a session whose solver keeps no factor are refused naming the field.
TEST_F(Streams, AConstraintToolIsPushedOutOfTheBodyAtEveryDepth) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "cantilever", true);
  const double radius = 0.01, x = 0.105, z = 0.025;  // above a face, between vertices
  const double y0 = s.rest_bounds().max().y() + radius + 0.002;
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  auto constraint_poke = [&](std::uint64_t seq, double y) {
    v1::ToolCommand c = poke(s.id(), seq, x, y, radius, z);
    c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
    c.set_friction_coefficient(0.3);
    return c;
  };
  v1::ForceReply reply;
  std::vector<double> fy;
  for (int i = 0; i < 10; ++i) {  // 1 mm per step, down to 7 mm into the beam
    const double y = y0 - 1e-3 * i;
    ASSERT_TRUE(stream->Write(constraint_poke(static_cast<std::uint64_t>(2 * i), y)));
    ASSERT_TRUE(stream->Read(&reply));
    ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
    ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
    ASSERT_TRUE(stream->Write(constraint_poke(static_cast<std::uint64_t>(2 * i + 1), y)));
    ASSERT_TRUE(stream->Read(&reply));
    fy.push_back(reply.force().y());
    EXPECT_GE(reply.force().y(), 0) << "depth step " << i;  // never pulls the tool in
  }
  EXPECT_EQ(fy[0], 0.0);  // 2 mm above: no contact
  // The beam sags under gravity meanwhile; from the first contact on, the force grows.
  const auto first = static_cast<size_t>(
      std::find_if(fy.begin(), fy.end(), [](double f) { return f > 0; }) - fy.begin());
  ASSERT_LT(first + 3, fy.size());
  for (size_t i = first + 1; i < fy.size(); ++i) EXPECT_GT(fy[i], fy[i - 1]) << i;
  EXPECT_GT(reply.contacts(), 0);
  EXPECT_LT(reply.model().dforce_dposition().values(4), 0);
  // Between steps (the session paused) the force is the step's contact problem re-solved at each
  // pose: deeper, it grows, never pulling in; the problem comes once per step on the stream.
  double last = fy.back();
  for (int k = 1; k <= 4; ++k) {
    ASSERT_TRUE(stream->Write(
        constraint_poke(static_cast<std::uint64_t>(50 + k), y0 - 1e-3 * (9 + 0.25 * k))));
    ASSERT_TRUE(stream->Read(&reply));
    EXPECT_GT(reply.force().y(), last) << k;
    EXPECT_FALSE(reply.has_contact_problem()) << "sent with the step's first reply";
    last = reply.force().y();
  }
  // It is the force of the same step with the tool there, not yet the next step's: the beam keeps
  // moving within a step (measured 12.9 N rendered against 8.8 N stepped at the same pose; issue
  // 22's notes). Only that the next step's force is positive too is asserted.
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
  ASSERT_TRUE(stream->Write(constraint_poke(60, y0 - 1e-3 * 10)));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_TRUE(reply.has_contact_problem());
  EXPECT_GT(reply.contact_problem().contacts(), 0);
  EXPECT_GT(reply.force().y(), 0);

  v1::ToolCommand bad = constraint_poke(100, y0);
  bad.set_friction_coefficient(-1);
  ASSERT_TRUE(stream->Write(bad));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.rejected(), "friction_coefficient: must lie in [0, 10]");
  for (double reach : {-1e-3, 0.2, std::nan("")}) {
    bad = constraint_poke(101, y0);
    bad.set_candidate_reach(reach);
    ASSERT_TRUE(stream->Write(bad));
    ASSERT_TRUE(stream->Read(&reply));
    EXPECT_EQ(reply.rejected(), "candidate_reach: must lie in [0, 0.1] m") << reach;
  }
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());

  const v1::SessionInfo iterative = create_session(*stub, "cantilever", true, {"solver.type=cg"});
  auto ctx2 = context();
  auto stream2 = stub->Interact(ctx2.get());
  v1::ToolCommand refused = poke(iterative.id(), 1, x, y0, radius, z);
  refused.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
  ASSERT_TRUE(stream2->Write(refused));
  ASSERT_TRUE(stream2->Read(&reply));
  EXPECT_NE(reply.rejected().find("contact_model: constraint contact needs a step that solves it"),
            std::string::npos)
      << reply.rejected();
  stream2->WritesDone();
  EXPECT_TRUE(stream2->Finish().ok());
}

// CONTACT_MODEL_AUTO (what the project's clients send unless told otherwise): a constraint tool
// where the session's step solves constraint contact (the cantilever: Newton with a factor), a
// penalty one where it does not (the same beam on CG), decided at each command, so a live change of
// the solver moves the tool to penalty contact without a rejection; each reply names the model.
TEST_F(Streams, AnAutoToolIsAConstraintOneWhereTheStepSolvesItAndAPenaltyOneElsewhere) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "cantilever", true);
  const double top = s.rest_bounds().max().y();
  auto auto_poke = [&](const std::string& id, std::uint64_t seq, double x, double y, double z,
                       double radius) {
    v1::ToolCommand c = poke(id, seq, x, y, radius, z);
    c.set_contact_model(v1::CONTACT_MODEL_AUTO);
    c.set_friction_coefficient(0.3);
    return c;
  };
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  v1::ForceReply reply;
  // A 1 cm sphere above a face, between vertices, lowered 1 mm a step to 5 mm below the top: the
  // steps meet it as a constraint obstacle (the force grows with depth; as in
  // AConstraintToolIsPushedOutOfTheBodyAtEveryDepth, not repeated here).
  const double x = 0.105, z = 0.025, radius = 0.01;
  std::uint64_t seq = 0;
  for (int i = 0; i <= 7; ++i) {
    ASSERT_TRUE(
        stream->Write(auto_poke(s.id(), seq++, x, top + radius + 2e-3 - 1e-3 * i, z, radius)));
    ASSERT_TRUE(stream->Read(&reply));
    ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
    EXPECT_EQ(reply.contact_model(), v1::CONTACT_MODEL_CONSTRAINT) << i;
    ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
  }
  ASSERT_TRUE(stream->Write(auto_poke(s.id(), seq++, x, top + radius - 5e-3, z, radius)));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.contact_model(), v1::CONTACT_MODEL_CONSTRAINT);
  ASSERT_TRUE(reply.has_contact_problem()) << "a constraint tool's reply carries its problem";
  EXPECT_GT(reply.contact_problem().contacts(), 0);
  EXPECT_GT(reply.force().y(), 0);
  v1::SessionInfo info = get_session(*stub, s.id());
  EXPECT_GT(info.last_step().constraint_contacts(), 0);

  // The solver changed to CG (no factor): the same tool's commands are penalty ones, not
  // refused. A 2 cm sphere pressed 8 mm into the frozen beam (paused: no step) meets its vertices
  // through the penalty spring (whose force there may even point into the beam: vertex contact,
  // the defect constraint contact removes); the next step presses the beam with it as a penalty
  // obstacle.
  v1::UpdateSettingsRequest update;
  update.set_session_id(s.id());
  update.mutable_settings()->set_solver("cg");
  ASSERT_TRUE(stub->UpdateSettings(context().get(), update, &info).ok());
  ASSERT_TRUE(stream->Write(auto_poke(s.id(), seq++, 0.15, top + 0.02 - 8e-3, 0.02, 0.02)));
  ASSERT_TRUE(stream->Read(&reply));
  ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
  EXPECT_EQ(reply.contact_model(), v1::CONTACT_MODEL_PENALTY);
  EXPECT_FALSE(reply.has_contact_problem());
  EXPECT_GT(reply.contacts(), 0);
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
  info = get_session(*stub, s.id());
  EXPECT_EQ(info.last_step().constraint_contacts(), 0);
  EXPECT_GT(info.last_step().contacts(), 0) << "the tool pressed as a penalty obstacle";

  // Back on a factor (auto), the same tool is a constraint one again from the next step on, before
  // any command: the step re-resolves it; the next reply says so and carries that step's problem.
  update.mutable_settings()->set_solver("auto");
  ASSERT_TRUE(stub->UpdateSettings(context().get(), update, &info).ok());
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
  info = get_session(*stub, s.id());
  EXPECT_GT(info.last_step().constraint_contacts(), 0);
  ASSERT_TRUE(stream->Write(auto_poke(s.id(), seq++, 0.15, top + 0.02 - 8e-3, 0.02, 0.02)));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.contact_model(), v1::CONTACT_MODEL_CONSTRAINT);
  EXPECT_TRUE(reply.has_contact_problem());
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());

  // The replies to `commands`, sent on a stream of their own.
  auto replies_on_new_stream = [&](const std::vector<v1::ToolCommand>& commands) {
    auto own_ctx = context();
    auto own = stub->Interact(own_ctx.get());
    std::vector<v1::ForceReply> replies(commands.size());
    for (size_t i = 0; i < commands.size(); ++i) {
      EXPECT_TRUE(own->Write(commands[i]));
      EXPECT_TRUE(own->Read(&replies[i]));
    }
    own->WritesDone();
    EXPECT_TRUE(own->Finish().ok());
    return replies;
  };

  // A session created on CG: auto is penalty from its first command, where an explicit
  // constraint tool is refused (AConstraintToolIsPushedOutOfTheBodyAtEveryDepth).
  const v1::SessionInfo iterative = create_session(*stub, "cantilever", true, {"solver.type=cg"});
  reply =
      replies_on_new_stream({auto_poke(iterative.id(), 1, x, top + radius + 2e-3, z, radius)})[0];
  EXPECT_TRUE(reply.rejected().empty()) << reply.rejected();
  EXPECT_EQ(reply.contact_model(), v1::CONTACT_MODEL_PENALTY);

  // Under an integrator without a contact stage (VBD; its solver is auto, with a factor) auto is
  // penalty too, and an explicit constraint tool is refused naming the integrators that solve it.
  const v1::SessionInfo fast =
      create_session(*stub, "cantilever", true, {"integrator.type=vbd", "material.model=stvk-tl"});
  v1::ToolCommand explicit_constraint = poke(fast.id(), 2, x, top + radius + 2e-3, radius, z);
  explicit_constraint.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
  const std::vector<v1::ForceReply> on_vbd = replies_on_new_stream(
      {auto_poke(fast.id(), 1, x, top + radius + 2e-3, z, radius), explicit_constraint});
  EXPECT_TRUE(on_vbd[0].rejected().empty()) << on_vbd[0].rejected();
  EXPECT_EQ(on_vbd[0].contact_model(), v1::CONTACT_MODEL_PENALTY);
  EXPECT_NE(
      on_vbd[1].rejected().find("contact_model: constraint contact needs a step that solves it"),
      std::string::npos)
      << on_vbd[1].rejected();
  EXPECT_NE(on_vbd[1].rejected().find("implicit-euler"), std::string::npos) << on_vbd[1].rejected();
}

// A tool of the server's own shape (ToolShape MESH, meshes/tools/tools.json): ListScenes offers the
// blade in metres, and pressed edge first into the cantilever (constraint contact) its force
// never pulls it in and grows with depth; an unknown surface is refused naming the field.
TEST_F(Streams, AMeshToolFromTheServersListPressesTheBody) {
  auto stub = server_->stub();
  v1::ListScenesResponse listed;
  ASSERT_TRUE(stub->ListScenes(context().get(), v1::ListScenesRequest(), &listed).ok());
  ASSERT_EQ(listed.tool_meshes_size(), 1);
  const v1::ToolMeshEntry& blade = listed.tool_meshes(0);
  EXPECT_EQ(blade.name(), "blade");
  EXPECT_EQ(blade.geometry().shape(), v1::OBSTACLE_SHAPE_MESH);
  double top = -1;
  for (int i = 1; i < blade.geometry().mesh_vertices_size(); i += 3)
    top = std::max(top, blade.geometry().mesh_vertices(i));
  EXPECT_DOUBLE_EQ(top, 0.008);  // 8 mm tall, read in millimetres

  const v1::SessionInfo s = create_session(*stub, "cantilever", true);
  const double x = 0.105, z = 0.025, y0 = s.rest_bounds().max().y() + 0.002;
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  const auto press = [&](std::uint64_t seq, double y, const std::string& tool) {
    v1::ToolCommand c = poke(s.id(), seq, x, y, 0, z);
    c.set_shape(v1::TOOL_SHAPE_MESH);
    c.set_tool_mesh(tool);
    c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
    c.set_friction_coefficient(0.3);
    return c;
  };
  v1::ForceReply reply;
  std::vector<double> fy;
  for (int i = 0; i < 8; ++i) {  // 1 mm per step, down to 5 mm into the beam
    const double y = y0 - 1e-3 * i;
    ASSERT_TRUE(stream->Write(press(static_cast<std::uint64_t>(2 * i), y, "blade")));
    ASSERT_TRUE(stream->Read(&reply));
    ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
    ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
    ASSERT_TRUE(stream->Write(press(static_cast<std::uint64_t>(2 * i + 1), y, "blade")));
    ASSERT_TRUE(stream->Read(&reply));
    fy.push_back(reply.force().y());
    EXPECT_GE(reply.force().y(), 0) << "depth step " << i;  // never pulls the tool in
    EXPECT_LT(std::abs(reply.force().x()) + std::abs(reply.force().z()), reply.force().y() + 1e-9);
  }
  EXPECT_EQ(fy[0], 0.0);  // 2 mm above: no contact
  EXPECT_GE(reply.contacts(), 1);
  const auto first = static_cast<size_t>(
      std::find_if(fy.begin(), fy.end(), [](double f) { return f > 0; }) - fy.begin());
  ASSERT_LT(first + 2, fy.size());
  EXPECT_GT(fy.back(), fy[first + 1]);
  EXPECT_GT(fy[first + 1], fy[first]);

  ASSERT_TRUE(stream->Write(press(100, y0, "scalpel")));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.rejected(),
            "tool_mesh: no tool surface 'scalpel' on this server (available: blade)");
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

// A client on a slow link asks for the contact problem's compliance as float32 upper triangle
// (ContactProblemEncoding UPPER_FLOAT): the reply carries that instead of the whole matrix, in
// under 40 % of the bytes, and re-solving the decoded problem at the stepped pose gives the force
// the server replied with (computed from the whole problem in doubles). An unknown encoding is
// refused naming the field.
TEST_F(Streams, AContactProblemComesAsAFloatUpperTriangleWhenAsked) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "cantilever", true, {"gravity=[0,0,0]"});
  const double radius = 0.01, x = 0.105, z = 0.025;
  const double y0 = s.rest_bounds().max().y() + radius;
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  v1::ToolCommand c;
  v1::ForceReply reply;
  double y = y0;
  for (int i = 1; i <= 5; ++i) {  // 1 mm at a time, three steps each: pressed in, settled
    y = y0 - 1e-3 * i;
    c = poke(s.id(), static_cast<std::uint64_t>(i), x, y, radius, z);
    c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
    c.set_friction_coefficient(0.3);
    c.set_contact_problem_encoding(v1::CONTACT_PROBLEM_ENCODING_UPPER_FLOAT);
    ASSERT_TRUE(stream->Write(c));
    ASSERT_TRUE(stream->Read(&reply));
    ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
    for (int steps = 0; steps < 3; ++steps)
      ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
  }
  c.set_sequence(10);
  ASSERT_TRUE(stream->Write(c));
  ASSERT_TRUE(stream->Read(&reply));
  ASSERT_TRUE(reply.has_contact_problem());
  const v1::ContactProblemModel& p = reply.contact_problem();
  const int rows = 3 * p.contacts();
  ASSERT_GT(p.contacts(), 0);
  EXPECT_EQ(p.compliance_size(), 0);
  ASSERT_EQ(p.compliance_upper_size(), rows * (rows + 1) / 2);

  codec::ToolContactModel model;
  model.reference_position = {p.reference_position().x(), p.reference_position().y(),
                              p.reference_position().z()};
  model.problem.contacts = p.contacts();
  ASSERT_TRUE(codec::decode_compliance_upper(p.compliance_upper().data(),
                                             static_cast<size_t>(p.compliance_upper_size()), rows,
                                             model.problem.w));
  model.problem.delta_free.assign(p.free_motion().begin(), p.free_motion().end());
  model.problem.mu.assign(p.friction().begin(), p.friction().end());
  model.frames.assign(p.frames().begin(), p.frames().end());
  model.lambda.assign(p.forces().begin(), p.forces().end());
  const std::array<double, 3> f = codec::evaluate(model, {x, y, z});
  ASSERT_GT(reply.force().y(), 0);
  EXPECT_NEAR(f[0], reply.force().x(), 1e-4 * reply.force().y());
  EXPECT_NEAR(f[1], reply.force().y(), 1e-4 * reply.force().y());
  EXPECT_NEAR(f[2], reply.force().z(), 1e-4 * reply.force().y());
  // The same problem with the whole matrix in doubles (what CONTACT_PROBLEM_ENCODING_FULL sends).
  v1::ContactProblemModel full = p;
  full.clear_compliance_upper();
  full.mutable_compliance()->Add(model.problem.w.begin(), model.problem.w.end());
  EXPECT_LT(static_cast<double>(p.ByteSizeLong()), 0.4 * static_cast<double>(full.ByteSizeLong()));

  v1::ToolCommand bad = c;
  bad.set_sequence(11);
  bad.set_contact_problem_encoding(static_cast<v1::ContactProblemEncoding>(7));
  ASSERT_TRUE(stream->Write(bad));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.rejected(), "contact_problem_encoding: unknown encoding 7");
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

// The same press with the tool on a 1 kN/m coupling spring (virtual coupling, as the haptic
// client sends): the force never grows faster than the spring, between steps (the contact
// problem re-solved) or across them; pressed in, spring and beam act in series; what is rendered
// between steps is the next step's force at that pose within 10 %. A coupling stiffness out of
// range is refused naming the field.
TEST_F(Streams, AToolOnACouplingSpringFeelsAtMostItsStiffness) {
  auto stub = server_->stub();
  const double radius = 0.01, x = 0.105, z = 0.025, k = 1000;
  std::vector<double> rigid, coupled;
  for (const double coupling : {0.0, k}) {
    const v1::SessionInfo s = create_session(*stub, "cantilever", true, {"gravity=[0,0,0]"});
    const double y0 = s.rest_bounds().max().y() + radius + 0.002;
    auto ctx = context();
    auto stream = stub->Interact(ctx.get());
    v1::ForceReply reply;
    std::vector<double>& fy = coupling > 0 ? coupled : rigid;
    for (int i = 0; i < 8; ++i) {
      v1::ToolCommand c =
          poke(s.id(), static_cast<std::uint64_t>(2 * i), x, y0 - 1e-3 * i, radius, z);
      c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
      c.set_coupling_stiffness(coupling);
      ASSERT_TRUE(stream->Write(c));
      ASSERT_TRUE(stream->Read(&reply));
      ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
      for (int steps = 0; steps < 3; ++steps)  // let the beam settle under the tool
        ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
      c.set_sequence(static_cast<std::uint64_t>(2 * i + 1));
      ASSERT_TRUE(stream->Write(c));
      ASSERT_TRUE(stream->Read(&reply));
      fy.push_back(reply.force().y());
    }
    if (coupling > 0) {
      // Paused, 0.25 mm deeper at a time: the re-solved problem's slope is at most the spring's.
      double last = fy.back();
      for (int j = 1; j <= 4; ++j) {
        v1::ToolCommand c = poke(s.id(), static_cast<std::uint64_t>(100 + j), x,
                                 y0 - 1e-3 * (7 + 0.25 * j), radius, z);
        c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
        c.set_coupling_stiffness(coupling);
        ASSERT_TRUE(stream->Write(c));
        ASSERT_TRUE(stream->Read(&reply));
        EXPECT_GT(reply.force().y(), last);
        EXPECT_LE(reply.force().y() - last, k * 0.25e-3 + 1e-9) << j;
        last = reply.force().y();
      }
      // The force rendered between steps is the next full step's at the same pose, within 10 %
      // (measured 3.58 N re-solved, 3.54 N stepped; a rigid tool: 12.9 against 8.8 N, since
      // the beam's own motion within a step is stiff, and the spring takes it in series).
      ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
      v1::ToolCommand stepped = poke(s.id(), 150, x, y0 - 8e-3, radius, z);
      stepped.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
      stepped.set_coupling_stiffness(coupling);
      ASSERT_TRUE(stream->Write(stepped));
      ASSERT_TRUE(stream->Read(&reply));
      EXPECT_TRUE(reply.has_contact_problem());
      EXPECT_NEAR(reply.force().y(), last, 0.1 * last);
      v1::ToolCommand bad = poke(s.id(), 200, x, y0, radius, z);
      bad.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
      bad.set_coupling_stiffness(5);
      ASSERT_TRUE(stream->Write(bad));
      ASSERT_TRUE(stream->Read(&reply));
      EXPECT_EQ(reply.rejected(), "coupling_stiffness: must be 0 (rigid) or in [10, 1e7] N/m");
    }
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
  }
  // Once pressed in (past the first touch, which is an impact), the beam and the spring act in
  // series: the coupled slope is 1 / (1/k + 1/k_beam), k_beam the rigid tool's slope (measured
  // 1.31 kN/m: 567 N/m expected, 563 measured).
  ASSERT_EQ(rigid.size(), coupled.size());
  const size_t n = rigid.size();
  ASSERT_GT(rigid[n - 3], 0);
  ASSERT_GT(coupled[n - 3], 0);
  const double beam = (rigid[n - 1] - rigid[n - 2]) / 1e-3;
  const double series = 1 / (1 / k + 1 / beam);
  EXPECT_NEAR((coupled[n - 1] - coupled[n - 2]) / 1e-3, series, 0.05 * series);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_GE(coupled[i], 0);
    if (i > 0) {
      EXPECT_LE(coupled[i] - coupled[i - 1], k * 1e-3) << i;
    }
  }
  EXPECT_LT(coupled.back(), rigid.back());
}

double interact_replies_coalesced(const TestServer& server) {
  const std::string text = http_get(server.http_port(), "/metrics").second;
  const std::string name = "softbody_interact_force_replies_coalesced_total ";
  const size_t at = text.find("\n" + name);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + 1 + name.size()));
}

// Replies come in command order; a reply is left out only when a newer one replaced it while the
// stream's write was in flight (each one counted), so a reader that keeps up gets one per command
// and the last command is always answered.
TEST_F(Streams, RepliesComeInOrderAndEveryCommandIsAnsweredOrSuperseded) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", false);
  const double coalesced_before = interact_replies_coalesced(*server_);
  ASSERT_GE(coalesced_before, 0);
  auto ctx = context(60);
  auto stream = stub->Interact(ctx.get());
  constexpr int kCommands = 2000;
  std::thread writer([&] {
    for (int i = 0; i < kCommands; ++i)
      stream->Write(poke(s.id(), static_cast<std::uint64_t>(i), 0.2 - 1e-4 * (i % 500), 0.1, 0.02));
    stream->WritesDone();
  });
  v1::ForceReply reply;
  int received = 0;
  std::int64_t last = -1;
  while (stream->Read(&reply)) {
    EXPECT_GT(static_cast<std::int64_t>(reply.sequence()), last);
    last = static_cast<std::int64_t>(reply.sequence());
    EXPECT_EQ(reply.client_time_s(), static_cast<double>(reply.sequence()));
    EXPECT_TRUE(reply.rejected().empty());
    EXPECT_EQ(reply.model().dforce_dposition().values_size(), 9);
    ++received;
  }
  writer.join();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(last, kCommands - 1);
  EXPECT_EQ(received + interact_replies_coalesced(*server_) - coalesced_before, kCommands);
}

// A client that stops reading (a stalled link) while its device keeps sending: the replies
// waiting behind the blocked write are replaced by the newest instead of queueing (before, up to
// 8192 of them, every one staler than the last: round trips of 0.8 s on a 300 ms link with 2 %
// loss). A rejection among them still arrives, and a constraint tool's contact problem, sent
// once per step, is carried by whichever reply of the step gets through.
TEST_F(Streams, RepliesBehindAStalledReaderAreSupersededExceptRejections) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "cantilever", true);
  const double coalesced_before = interact_replies_coalesced(*server_);
  auto ctx = context(60);
  auto stream = stub->Interact(ctx.get());
  const double radius = 0.01, x = 0.105, z = 0.025;
  const double y = s.rest_bounds().max().y() + radius - 0.002;  // 2 mm into the beam
  constexpr int kCommands = 300000, kBad = 150000;
  v1::ForceReply reply;
  int received = 0, rejections = 0;
  std::int64_t last = -1, last_problem_step = -1;
  for (int i = 0; i < kCommands; ++i) {  // nothing read meanwhile but the first reply
    v1::ToolCommand c = poke(s.id(), static_cast<std::uint64_t>(i), x, y, radius, z);
    c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
    if (i == kBad) c.set_friction_coefficient(-1);
    ASSERT_TRUE(stream->Write(c));
    if (i == 10) {
      // The step must see the tool: the stream's commands and this unary call race, and on a
      // loaded machine the step came first (no tool, no contact problem). One reply means a
      // command was applied (all place the tool alike).
      ASSERT_TRUE(stream->Read(&reply));
      last = static_cast<std::int64_t>(reply.sequence());
      ++received;
      ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 1).ok());
    }
  }
  stream->WritesDone();
  while (stream->Read(&reply)) {
    EXPECT_GT(static_cast<std::int64_t>(reply.sequence()), last);
    last = static_cast<std::int64_t>(reply.sequence());
    if (!reply.rejected().empty()) {
      ++rejections;
      EXPECT_EQ(reply.sequence(), static_cast<std::uint64_t>(kBad));
      EXPECT_EQ(reply.rejected(), "friction_coefficient: must lie in [0, 10]");
    }
    if (reply.has_contact_problem()) last_problem_step = reply.contact_problem().step();
    ++received;
  }
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(last, kCommands - 1);
  EXPECT_EQ(rejections, 1);
  // The step taken with the tool in the beam (the session is paused: the only one) made a contact
  // problem, sent once; it got through although the reply it came with was superseded.
  EXPECT_GE(last_problem_step, 1);
  const double coalesced = interact_replies_coalesced(*server_) - coalesced_before;
  EXPECT_EQ(received + coalesced, kCommands);
  // 300,000 replies (45 MB) do not fit the stream's flow-control window (gRPC's grows to a few
  // MB): replies were superseded (measured: 20,000 commands, 14,391 replies).
  EXPECT_LT(received, kCommands);
}

TEST_F(Streams, ForceFollowsTheToolBetweenSteps) {
  auto stub = server_->stub();
  // The cantilever beam (0.2 x 0.04 x 0.04 m), paused: no step happens while the tool moves, so
  // every change of force is the coupling model's (the SOFA #5158 class of bug would give a
  // constant force here).
  const v1::SessionInfo s = create_session(*stub, "cantilever", true);
  const double radius = 0.02, x = 0.15, z = 0.02;
  const double y0 = s.rest_bounds().max().y() + radius + 0.003;
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  std::vector<double> fy;
  v1::ForceReply reply;
  for (int i = 0; i < 19; ++i) {  // down 1 mm per command, at most 15 mm deep
    ASSERT_TRUE(
        stream->Write(poke(s.id(), static_cast<std::uint64_t>(i), x, y0 - 1e-3 * i, radius, z)));
    ASSERT_TRUE(stream->Read(&reply));
    ASSERT_TRUE(reply.rejected().empty()) << reply.rejected();
    EXPECT_EQ(reply.model().step(), 0);
    fy.push_back(reply.force().y());
  }
  EXPECT_EQ(fy[0], 0.0);  // starts out of contact
  EXPECT_EQ(fy[2], 0.0);
  // Pushing down, the beam pushes the tool up, harder with every millimetre.
  for (size_t i = 4; i < fy.size(); ++i) {
    EXPECT_GT(fy[i], fy[i - 1]) << i;
  }
  EXPECT_GT(fy.back(), 5 * fy[4]);
  // The model's stiffness says the same: dFy/dy < 0 in contact.
  EXPECT_LT(reply.model().dforce_dposition().values(4), 0);

  // The next step uses the newest pose: the beam is pushed down.
  const v1::Snapshot before = snapshot(*stub, s.id());
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 3).ok());
  const v1::Snapshot after = snapshot(*stub, s.id());
  double most_pushed = 0;
  for (int i = 1; i < after.positions_size(); i += 3)
    most_pushed = std::min(most_pushed, after.positions(i) - before.positions(i));
  EXPECT_LT(most_pushed, -1e-3);
  const double y = y0;

  // A NaN pose is answered (zero force, the reason) and the stream goes on.
  v1::ToolCommand nan = poke(s.id(), 100, std::nan(""), y, radius, z);
  ASSERT_TRUE(stream->Write(nan));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_EQ(reply.sequence(), 100u);
  EXPECT_EQ(reply.rejected(), "pose.position: not finite");
  EXPECT_EQ(reply.force().x(), 0.0);
  v1::ToolCommand huge = poke(s.id(), 101, x, y, 50.0, z);  // absurd radius
  ASSERT_TRUE(stream->Write(huge));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_NE(reply.rejected().find("radius"), std::string::npos);
  ASSERT_TRUE(stream->Write(poke(s.id(), 102, x, y0 - 0.02, radius, z)));
  ASSERT_TRUE(stream->Read(&reply));
  EXPECT_TRUE(reply.rejected().empty());
  EXPECT_GT(reply.force().y(), 0);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(Streams, GrabPullsTheNearestSurfaceVertex) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", true, {"obstacles=[]"});
  const double top = s.rest_bounds().max().y();
  auto ctx = context();
  auto stream = stub->Interact(ctx.get());
  v1::ToolCommand grab;
  grab.set_session_id(s.id());
  grab.set_mode(v1::TOOL_MODE_GRAB);
  grab.mutable_pose()->mutable_position()->set_y(top + 0.01);  // 1 cm above the top
  grab.set_grab_stiffness(100);
  v1::ForceReply reply;
  ASSERT_TRUE(stream->Write(grab));
  ASSERT_TRUE(stream->Read(&reply));
  // The spring pulls the tool down toward the grabbed vertex: F = k (p - x).
  EXPECT_LT(reply.force().y(), 0);
  EXPECT_NEAR(reply.model().dforce_dposition().values(4), -100, 1e-9);
  ASSERT_TRUE(control(*stub, s.id(), v1::CONTROL_ACTION_STEP, 10).ok());
  const v1::Snapshot snap = snapshot(*stub, s.id());
  double highest = -1;
  for (int i = 1; i < snap.positions_size(); i += 3) highest = std::max(highest, snap.positions(i));
  EXPECT_GT(highest, top + 1e-4);  // lifted toward the tool
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

// A session's state stream and tool stream, both open and carrying data.
struct OpenStreams {
  std::unique_ptr<grpc::ClientContext> state_ctx = context(), tool_ctx = context();
  std::unique_ptr<grpc::ClientReader<v1::StateFrame>> state;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ToolCommand, v1::ForceReply>> tool;

  OpenStreams(v1::Simulation::Stub& stub, const std::string& session) {
    v1::StreamStateRequest request;
    request.set_session_id(session);
    state = stub.StreamState(state_ctx.get(), request);
    tool = stub.Interact(tool_ctx.get());
    v1::ForceReply reply;
    EXPECT_TRUE(tool->Write(poke(session, 0, 1, 1, 0.01)));
    EXPECT_TRUE(tool->Read(&reply));
    v1::StateFrame frame;
    EXPECT_TRUE(state->Read(&frame));
  }

  // Reads both streams to their end; each must end with `code` and `message`.
  void expect_both_end(grpc::StatusCode code, const std::string& message) {
    v1::StateFrame frame;
    while (state->Read(&frame)) {
    }
    grpc::Status status = state->Finish();
    EXPECT_EQ(status.error_code(), code);
    EXPECT_EQ(status.error_message(), message);
    v1::ForceReply reply;
    while (tool->Read(&reply)) {
    }
    status = tool->Finish();
    EXPECT_EQ(status.error_code(), code);
    EXPECT_EQ(status.error_message(), message);
  }
};

TEST_F(Streams, DeletingASessionEndsItsStreams) {
  auto stub = server_->stub();
  const v1::SessionInfo s = create_session(*stub, "default", false);
  OpenStreams streams(*stub, s.id());
  v1::DeleteSessionRequest del;
  del.set_session_id(s.id());
  v1::DeleteSessionResponse response;
  ASSERT_TRUE(stub->DeleteSession(context().get(), del, &response).ok());
  streams.expect_both_end(grpc::StatusCode::CANCELLED, "session deleted");
  // A stream for a missing session is refused at once.
  v1::ForceReply reply;
  auto late_ctx = context();
  auto late = stub->Interact(late_ctx.get());
  late->Write(poke(s.id(), 0, 1, 1, 0.01));
  EXPECT_FALSE(late->Read(&reply));
  EXPECT_EQ(late->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(Shutdown, SigtermEndsStreamsWithAClearStatusAndExitsCleanly) {
  TestServer server;
  auto stub = server.stub();
  const v1::SessionInfo s = create_session(*stub, "default", false);
  OpenStreams streams(*stub, s.id());
  std::thread stop([&] { EXPECT_EQ(server.terminate(), 0) << server.log(); });
  streams.expect_both_end(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
  stop.join();
  EXPECT_NE(server.log().find("event=shutdown_complete"), std::string::npos);
}

}  // namespace
}  // namespace softbody::test
