#include "server/api/simulation_service.h"

#include <cmath>
#include <thread>

#include "server/api/create_session_convert.h"
#include "server/api/interact_reactor.h"
#include "server/api/obstacle_convert.h"
#include "server/api/proto_convert.h"
#include "server/api/settings_convert.h"
#include "server/api/snapshot_convert.h"
#include "server/api_error.h"
#include "server/auth/access_policy.h"
#include "server/cluster/migration.h"
#include "server/logging.h"
#include "server/sessions/state_stream.h"

namespace softbody::server {
namespace {

// Runs a handler; API errors become their status and nothing else escapes (no request may bring
// the server down).
template <typename Body>
grpc::Status guarded(Metrics& metrics, const char* method, Body&& body) {
  try {
    body();
    return grpc::Status::OK;
  } catch (const ApiError& e) {
    if (e.code() == grpc::StatusCode::UNAUTHENTICATED) metrics.unauthenticated.fetch_add(1);
    if (e.code() == grpc::StatusCode::PERMISSION_DENIED) metrics.permission_denied.fetch_add(1);
    spdlog::debug("event=request_refused method={} code={} error={}", method,
                  static_cast<int>(e.code()), logfmt_value(e.what()));
    return e.status();
  } catch (const std::bad_alloc&) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory while handling the request"};
  } catch (const std::exception& e) {
    spdlog::error("event=internal_error method={} error={}", method, logfmt_value(e.what()));
    return {grpc::StatusCode::INTERNAL, e.what()};
  }
}

}  // namespace

void fill_session_info(const Session& session, v1::SessionInfo& info) {
  info.set_id(session.id());
  info.set_label(session.label());
  info.set_owner(session.owner());
  info.set_audience(audience_text(session.audience()));
  info.set_scene_name(session.scene_name());
  info.set_status(session.running ? v1::SESSION_STATUS_RUNNING : v1::SESSION_STATUS_PAUSED);
  const MeshTopology& topo = session.topology();
  info.set_num_vertices(topo.num_vertices());
  info.set_num_surface_vertices(static_cast<int>(topo.boundary_vertices().size()));
  info.set_num_surface_triangles(static_cast<int>(topo.boundary_faces().size()));
  info.set_num_tetrahedra(static_cast<int>(session.mesh().tets.size()));
  for (const std::string& warning : session.mesh_warnings()) info.add_warnings(warning);
  to_proto(*session.latest(), *info.mutable_last_step());
  info.set_subscribers(session.num_subscribers());
  info.set_tools(session.num_tools());
  // One consistent view: a settings change between separate reads would mix old and new.
  const Session::Settings settings = session.settings();
  const IntegratorOptions& o = settings.options;
  v1::EffectiveSettings& s = *info.mutable_settings();
  const nlohmann::json& document = settings.document;
  const nlohmann::json& material = document.at("material");
  const double length = scene_length_unit(document, session.scene_name());
  // The body's: a constant-Q material's E comes from its fit, not from the document.
  const Material& body_material = settings.material;
  s.set_youngs_modulus(body_material.youngs_modulus);
  s.set_poisson_ratio(body_material.poisson_ratio);
  s.set_damping_alpha(o.alpha);
  s.set_damping_beta(o.beta);
  s.set_dt(o.dt);
  s.set_solver(solver_type_name(o.solver.type));
  s.set_preconditioner(preconditioner_name(o.solver.preconditioner));
  s.set_max_iterations(o.solver.max_iterations);
  s.set_tolerance(o.solver.tolerance);
  s.set_effective_max_iterations(o.solver.max_iterations);
  s.set_effective_tolerance(session.effective_tolerance());
  s.set_refactor(refactor_mode_name(o.solver.refactor));
  s.set_integrator(integrator_type_name(o.type));
  s.set_alleviation_sweeps(o.alleviation_sweeps);
  s.set_iterations(o.iterations);
  s.set_substeps(o.substeps);
  // The document was built into the session's model, so its pressure mode is a valid one.
  const std::string pressure = material.value("pressure", std::string("auto"));
  const PressureMode mode = parse_pressure_mode(pressure);
  s.set_pressure(pressure);
  s.set_nodal_pressure(
      mode == PressureMode::kNodal ||
      (mode == PressureMode::kAuto && material.value("nu", 0.0) >= kNodalPressureFromPoisson));
  if (material.contains("rate_damping")) {
    const nlohmann::json& rate = material["rate_damping"];
    s.set_rate_damping_lambda(rate.value("lambda", 0.0) / (length * length));
    s.set_rate_damping_mu(rate.value("mu", 0.0) / (length * length));
  }
  if (material.contains("viscoelastic") && material["viscoelastic"].contains("constant_q")) {
    const nlohmann::json& constant_q = material["viscoelastic"]["constant_q"];
    s.set_viscous_quality(constant_q.value("Q", 0.0));
    s.set_viscous_modulus(constant_q.value("mu", 0.0) / (length * length));
  }
  effective_prony_terms(document, length, s);
  info.set_age_s(std::chrono::duration<double>(Clock::now() - session.created()).count());
  info.set_idle_s(session.idle_seconds());
  to_proto(session.rest_bounds(), *info.mutable_rest_bounds());
}

namespace {
const Authenticator kDevelopmentMode;
}  // namespace

SimulationService::SimulationService(SessionManager& sessions, Metrics& metrics,
                                     StreamLimits limits, const Authenticator* auth)
    : sessions_(sessions),
      metrics_(metrics),
      limits_(limits),
      auth_(auth ? *auth : kDevelopmentMode) {}

Caller SimulationService::caller_of(const grpc::ServerContextBase* context) const {
  if (!auth_.enabled()) return Caller::anonymous();
  std::string authorization;
  if (context) {
    const auto& metadata = context->client_metadata();
    if (auto it = metadata.find("authorization"); it != metadata.end())
      authorization.assign(it->second.data(), it->second.size());
  }
  return auth_.authenticate(authorization);
}

// --- unary calls: the gRPC handlers authenticate, the caller-taking forms do the work (and serve
// the browser gateway, which authenticates its connection once) ---

#define SOFTBODY_AUTHENTICATED_UNARY(Method, Request, Response)                                \
  grpc::Status SimulationService::Method(grpc::ServerContext* context, const Request* request, \
                                         Response* response) {                                 \
    Caller caller;                                                                             \
    const grpc::Status authenticated =                                                         \
        guarded(metrics_, #Method, [&] { caller = caller_of(context); });                      \
    if (!authenticated.ok()) return authenticated;                                             \
    return Method(caller, request, response);                                                  \
  }

SOFTBODY_AUTHENTICATED_UNARY(ListScenes, v1::ListScenesRequest, v1::ListScenesResponse)
SOFTBODY_AUTHENTICATED_UNARY(CreateSession, v1::CreateSessionRequest, v1::SessionInfo)
SOFTBODY_AUTHENTICATED_UNARY(GetSession, v1::GetSessionRequest, v1::SessionInfo)
SOFTBODY_AUTHENTICATED_UNARY(ListSessions, v1::ListSessionsRequest, v1::ListSessionsResponse)
SOFTBODY_AUTHENTICATED_UNARY(DeleteSession, v1::DeleteSessionRequest, v1::DeleteSessionResponse)
SOFTBODY_AUTHENTICATED_UNARY(ControlSession, v1::ControlSessionRequest, v1::SessionInfo)
SOFTBODY_AUTHENTICATED_UNARY(UpdateSettings, v1::UpdateSettingsRequest, v1::SessionInfo)
SOFTBODY_AUTHENTICATED_UNARY(SnapshotSession, v1::SnapshotRequest, v1::Snapshot)
SOFTBODY_AUTHENTICATED_UNARY(GetTopology, v1::GetTopologyRequest, v1::Topology)
SOFTBODY_AUTHENTICATED_UNARY(GetServerStatus, v1::GetServerStatusRequest, v1::ServerStatus)
#undef SOFTBODY_AUTHENTICATED_UNARY

grpc::Status SimulationService::ListScenes(const Caller&, const v1::ListScenesRequest*,
                                           v1::ListScenesResponse* response) {
  return guarded(metrics_, "ListScenes", [&] {
    for (const SceneListing& s : sessions_.list_scenes()) {
      v1::SceneEntry* e = response->add_scenes();
      e->set_name(s.name);
      e->set_description(s.description);
    }
    describe_settings(*response->mutable_settings());
    for (const ToolMeshes::Entry& tool : sessions_.tool_meshes().entries()) {
      v1::ToolMeshEntry* e = response->add_tool_meshes();
      e->set_name(tool.name);
      e->set_description(tool.description);
      Obstacle shape;
      shape.shape = ObstacleShape::kMesh;
      shape.surface = tool.surface;
      shape.trajectory = make_constant_trajectory(Vec3::Zero());  // a shape, not a moving thing
      to_proto(shape, ObstaclePose{}, *e->mutable_geometry());
    }
  });
}

grpc::Status SimulationService::CreateSession(const Caller& caller,
                                              const v1::CreateSessionRequest* request,
                                              v1::SessionInfo* info) {
  return guarded(metrics_, "CreateSession", [&] {
    fill_session_info(*sessions_.create(new_session_from_proto(*request), caller), *info);
    const HostIdentity self = identity.get();
    if (self.advertised) {
      info->set_host_grpc_address(self.grpc_address);
      info->set_host_http_url(self.http_url);
    }
  });
}

grpc::Status SimulationService::GetSession(const Caller& caller,
                                           const v1::GetSessionRequest* request,
                                           v1::SessionInfo* info) {
  return guarded(metrics_, "GetSession", [&] {
    fill_session_info(*sessions_.find_for(caller, request->session_id(), SessionUse::kWatch),
                      *info);
  });
}

grpc::Status SimulationService::ListSessions(const Caller& caller, const v1::ListSessionsRequest*,
                                             v1::ListSessionsResponse* response) {
  return guarded(metrics_, "ListSessions", [&] {
    // A trainee sees its own sessions and those open to it; instructors and admins everyone's.
    for (const auto& s : sessions_.list())
      if (may_use_session(caller, s->owner(), s->audience(), SessionUse::kWatch))
        fill_session_info(*s, *response->add_sessions());
  });
}

grpc::Status SimulationService::DeleteSession(const Caller& caller,
                                              const v1::DeleteSessionRequest* request,
                                              v1::DeleteSessionResponse*) {
  return guarded(metrics_, "DeleteSession", [&] {
    sessions_.find_for(caller, request->session_id(), SessionUse::kDelete);
    sessions_.remove(request->session_id(),
                     grpc::Status(grpc::StatusCode::CANCELLED, "session deleted"));
  });
}

grpc::Status SimulationService::ControlSession(const Caller& caller,
                                               const v1::ControlSessionRequest* request,
                                               v1::SessionInfo* info) {
  return guarded(metrics_, "ControlSession", [&] {
    auto session = sessions_.find_for(caller, request->session_id(), SessionUse::kSteer);
    switch (request->action()) {
      case v1::CONTROL_ACTION_PAUSE:
        sessions_.pause(session);
        break;
      case v1::CONTROL_ACTION_RESUME:
        sessions_.resume(session);
        break;
      case v1::CONTROL_ACTION_RESET:
        session->reset();
        break;
      case v1::CONTROL_ACTION_STEP: {
        const int steps = request->steps() == 0 ? 1 : request->steps();
        if (steps < 1 || steps > 1000) invalid_argument("steps", "must lie in [1, 1000]");
        sessions_.run_steps(session, steps);
        break;
      }
      default:
        invalid_argument("action", "must be PAUSE, RESUME, RESET or STEP");
    }
    spdlog::info("event=session_control session={} action={} by={}", session->id(),
                 v1::ControlAction_Name(request->action()), logfmt_value(caller.subject));
    fill_session_info(*session, *info);
  });
}

grpc::Status SimulationService::UpdateSettings(const Caller& caller,
                                               const v1::UpdateSettingsRequest* request,
                                               v1::SessionInfo* info) {
  return guarded(metrics_, "UpdateSettings", [&] {
    auto session = sessions_.find_for(caller, request->session_id(), SessionUse::kSteer);
    session->update_settings(settings_from_proto(request->settings()));
    fill_session_info(*session, *info);
  });
}

grpc::Status SimulationService::SnapshotSession(const Caller& caller,
                                                const v1::SnapshotRequest* request,
                                                v1::Snapshot* out) {
  return guarded(metrics_, "SnapshotSession", [&] {
    to_proto(sessions_.find_for(caller, request->session_id(), SessionUse::kWatch)->snapshot(),
             *out);
  });
}

grpc::Status SimulationService::GetTopology(const Caller& caller,
                                            const v1::GetTopologyRequest* request,
                                            v1::Topology* out) {
  return guarded(metrics_, "GetTopology", [&] {
    auto session = sessions_.find_for(caller, request->session_id(), SessionUse::kWatch);
    const MeshTopology& topo = session->topology();
    const TetMesh& mesh = session->mesh();
    out->set_num_vertices(topo.num_vertices());
    std::vector<std::int32_t> local(static_cast<size_t>(topo.num_vertices()), -1);
    for (Index v : topo.boundary_vertices()) {
      local[static_cast<size_t>(v)] = out->surface_vertex_ids_size();
      out->add_surface_vertex_ids(static_cast<std::uint32_t>(v));
    }
    for (const Triangle& t : topo.boundary_faces())
      for (Index v : t)
        out->add_surface_triangles(static_cast<std::uint32_t>(local[static_cast<size_t>(v)]));
    for (const Vec3& x : mesh.vertices) out->mutable_rest_positions()->Add(x.data(), x.data() + 3);
    if (request->include_tetrahedra()) {
      for (const Tet& t : mesh.tets)
        for (Index v : t) out->add_tetrahedra(static_cast<std::uint32_t>(v));
    }
    to_proto(session->rest_bounds(), *out->mutable_rest_bounds());
    const std::shared_ptr<const PublishedState> state = session->latest();
    for (const Obstacle& o : state->model->obstacles)
      to_proto(o, obstacle_pose(o, state->t), *out->add_obstacles());
  });
}

grpc::Status SimulationService::GetServerStatus(const Caller& caller,
                                                const v1::GetServerStatusRequest*,
                                                v1::ServerStatus* out) {
  return guarded(metrics_, "GetServerStatus", [&] {
    require_role(caller, Role::kAdmin, "GetServerStatus (host capacity)");
    *out = server_status(sessions_, identity.get());
  });
}

grpc::Status SimulationService::StreamState(grpc::ServerContext* context,
                                            const v1::StreamStateRequest* request,
                                            grpc::ServerWriter<v1::StateFrame>* writer) {
  std::shared_ptr<Session> session;
  std::shared_ptr<Subscriber> subscriber;
  Caller caller;
  std::unique_ptr<CallerStreams::Hold> hold;
  const grpc::Status opened = guarded(metrics_, "StreamState", [&] {
    caller = caller_of(context);
    validate_stream_request(*request, limits_.max_rate_hz);
    if (sessions_.shutting_down())
      throw ApiError(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
    session = sessions_.find_for(caller, request->session_id(), SessionUse::kWatch);
    hold = streams_.hold_subscription(caller);
    subscriber = session->subscribe();
  });
  if (!opened.ok()) return opened;
  struct Unsubscribe {
    Session& s;
    std::shared_ptr<Subscriber> sub;
    ~Unsubscribe() { s.unsubscribe(sub); }
  } unsubscribe{*session, subscriber};

  StateStream stream(*session, *request);
  spdlog::info("event=subscribed session={} vertices={} rate_hz={}", session->id(),
               stream.num_vertices(), request->max_rate_hz());
  v1::StateFrame frame;
  const auto cancelled = [context] { return context->IsCancelled(); };
  for (;;) {
    FrameGaps gaps;
    grpc::Status closed = grpc::Status::OK;
    const auto state = stream.next(*subscriber, cancelled, gaps, closed);
    if (!state) return closed;
    stream.build(*state, gaps, frame);
    if (!writer->Write(frame)) break;  // the client went away
    metrics_.count_frame(gaps.dropped, gaps.skipped, frame.positions().size());
  }
  return grpc::Status::OK;
}

grpc::ServerBidiReactor<v1::ToolCommand, v1::ForceReply>* SimulationService::Interact(
    grpc::CallbackServerContext* context) {
  Caller caller;
  const grpc::Status authenticated =
      guarded(metrics_, "Interact", [&] { caller = caller_of(context); });
  return new InteractReactor(sessions_, metrics_, limits_.max_pending_replies, caller,
                             authenticated, streams_);
}

grpc::Status SimulationService::MigrateSession(grpc::ServerContext* context,
                                               const v1::MigrateSessionRequest* request,
                                               v1::MigrateSessionResponse* out) {
  return guarded(metrics_, "MigrateSession", [&] {
    require_role(caller_of(context), Role::kAdmin, "MigrateSession");
    // The target host is asked with the same credentials (an admin's on both hosts).
    std::string authorization;
    if (auto it = context->client_metadata().find("authorization");
        it != context->client_metadata().end())
      authorization.assign(it->second.data(), it->second.size());
    *out = migrate_session(sessions_, request->session_id(), request->target(), peer_dialing,
                           identity.get().host, authorization);
  });
}

}  // namespace softbody::server
