#include "server/sessions/session.h"

#include <malloc.h>
#include <algorithm>
#include <cmath>

#include "engine/parallel/team_cpu_clock.h"
#include "engine/scene/contact_section.h"
#include "engine/scene/settings_table.h"
#include "server/api_error.h"
#include "server/logging.h"

namespace softbody::server {
namespace {

// A scene error met while applying settings, named by the setting at fault where the table has
// one ("custom: /damping/beta: must be 0 with ..." becomes "settings.damping_beta (/damping/beta):
// must be 0 with ..."): a change can be refused for another setting's value.
std::string settings_error(const std::string& scene_message) {
  for (const SettingSpec& spec : live_settings()) {
    const std::string marker = std::string(": ") + spec.path + ": ";
    const size_t at = scene_message.find(marker);
    if (at != std::string::npos)
      return std::string("settings.") + spec.name + " (" + spec.path +
             "): " + scene_message.substr(at + marker.size());
  }
  return "settings: " + scene_message;
}

}  // namespace

bool valid_session_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true;
}

Session::ReturnsFreedMemory::~ReturnsFreedMemory() {
  malloc_trim(0);
}

Session::Session(std::string id, std::string label, Scene scene, SessionSource source,
                 SessionLimits limits, BodyProvider bodies, Metrics& metrics)
    : id_(std::move(id)),
      label_(std::move(label)),
      limits_(limits),
      bodies_(std::move(bodies)),
      metrics_(metrics),
      mesh_body_(scene.body),
      source_(std::move(source)),
      model_(scene.model),
      integrator_(make_integrator(model_)),
      state_(rest_state(*model_)) {
  options_ = model_->options;
  material_ = scene.body->material;
  document_ = source_.document;
  rest_bounds_ = bounding_box(model_->rest);
  validity_cap_ = rest_bounds_.diagonal();
  effective_tolerance_ = model_->options.solver.tolerance;
  publish(state_, StepStats{}, 0);
}

Session::~Session() = default;

double Session::dt() const {
  std::lock_guard lock(settings_mutex_);
  return options_.dt;
}

IntegratorOptions Session::options() const {
  std::lock_guard lock(settings_mutex_);
  return options_;
}

bool Session::steps_constraint_contact() const {
  std::lock_guard lock(settings_mutex_);
  return softbody::steps_constraint_contact(options_);
}

nlohmann::json Session::document() const {
  std::lock_guard lock(settings_mutex_);
  return document_;
}

Session::Settings Session::settings() const {
  std::lock_guard lock(settings_mutex_);
  return {options_, material_, document_};
}

double Session::cpu_load() const {
  return running ? cost_.load() : 0.0;
}

std::shared_ptr<const PublishedState> Session::latest() const {
  std::lock_guard lock(published_mutex_);
  return published_;
}

void Session::pause_stepping() {
  running = false;
  ++schedule_generation;
  std::lock_guard lock(state_mutex_);  // waits for a step in flight
}

void Session::step(double lag_s, bool scheduled) {
  StepStats stats;
  double cpu_seconds = 0;
  {
    std::lock_guard lock(state_mutex_);
    if (scheduled && !running) return;
    // Under the state mutex: the tools meet the model this step runs (a settings change swaps it
    // under the same mutex).
    StepInputs inputs = tool_inputs();
    inputs.tolerance = effective_tolerance_.load();
    const double cpu_before = team_cpu_seconds();
    stats = integrator_->step(state_, inputs);
    cpu_seconds = team_cpu_seconds() - cpu_before;
    total_rollbacks_ += stats.rolled_back;
    publish(state_, stats, real_time_factor(Clock::now(), state_.t));
  }
  adapt_tolerance(lag_s);
  if (scheduled) cost_.record(cpu_seconds, dt());
  metrics_.steps.fetch_add(1, std::memory_order_relaxed);
  metrics_.rollbacks.fetch_add(static_cast<std::uint64_t>(stats.rolled_back));
  if (stats.failed) {
    metrics_.failed_steps.fetch_add(1);
    spdlog::warn("event=step_failed session={} step={} rollbacks={}", id_, stats.step,
                 stats.rolled_back);
  }
  metrics_.step_seconds.observe(stats.step_ms * 1e-3);
  metrics_.solve_residual.observe(stats.residual);
  if (!stats.converged) metrics_.tolerance_unmet_steps.fetch_add(1, std::memory_order_relaxed);
  metrics_.factorizations.fetch_add(static_cast<std::uint64_t>(stats.factorizations),
                                    std::memory_order_relaxed);
  const std::shared_ptr<const PublishedState> published = latest();
  if (published->real_time_factor > 0)
    metrics_.real_time_factor.observe(published->real_time_factor);
  rebuild_coupling_models(*published);
  std::lock_guard lock(streams_mutex_);
  for (const auto& s : subscribers_) s->offer(published);
}

void Session::publish(const SimulationState& state, const StepStats& stats, double rtf) {
  auto p = std::make_shared<PublishedState>();
  p->step = state.step;
  p->t = state.t;
  p->p = state.p;
  p->v = state.v;
  p->stats = stats;
  p->real_time_factor = rtf;
  p->effective_tolerance = effective_tolerance_.load();
  p->max_iterations = model_->options.solver.max_iterations;
  p->total_rollbacks = total_rollbacks_;
  p->finished = Clock::now();
  p->model = model_;
  if (std::any_of(model_->obstacles.begin(), model_->obstacles.end(), obstacle_moves)) {
    p->obstacle_poses.reserve(model_->obstacles.size());
    for (const Obstacle& o : model_->obstacles)
      p->obstacle_poses.push_back(obstacle_pose(o, state.t));
  }
  std::lock_guard lock(published_mutex_);
  published_ = std::move(p);
}

double Session::real_time_factor(Clock::time_point now, double t) {
  rtf_window_.emplace_back(now, t);
  while (rtf_window_.size() > 2 && now - rtf_window_.front().first > std::chrono::seconds(1))
    rtf_window_.pop_front();
  if (rtf_window_.size() < 2) return 0;
  const double wall = std::chrono::duration<double>(now - rtf_window_.front().first).count();
  return wall > 0 ? (t - rtf_window_.front().second) / wall : 0;
}

void Session::reset_real_time_window() {
  std::lock_guard lock(state_mutex_);
  rtf_window_.clear();
}

// Degrade predictably, and in accuracy rather than in iterations: a session that starts its steps
// late loosens its solve tolerance tenfold (never beyond limits_.loosest_tolerance, the accuracy
// floor; every step still converges to the tolerance it reports) and tightens it back tenfold
// after 20 steps on time. A fixed iteration count would stop solves wherever it happened to.
void Session::adapt_tolerance(double lag_s) {
  const IntegratorOptions o = options();
  const double configured = o.solver.tolerance;
  const double floor = std::max(configured, limits_.loosest_tolerance);
  double tolerance = std::clamp(effective_tolerance_.load(), configured, floor);
  if (lag_s > o.dt) {
    tolerance = std::min(floor, tolerance * 10);
    on_time_steps_ = 0;
  } else if (lag_s < 0.2 * o.dt && ++on_time_steps_ >= 20) {
    tolerance = std::max(configured, tolerance / 10);
    on_time_steps_ = 0;
  }
  effective_tolerance_ = tolerance;
}

StepInputs Session::tool_inputs() {
  StepInputs inputs;
  // Constraint obstacles are resolved in the step's order: the model's, then the inputs'.
  int constraint_obstacles = static_cast<int>(std::count_if(
      model_->obstacles.begin(), model_->obstacles.end(),
      [](const Obstacle& o) { return o.contact.model == ContactModel::kConstraint; }));
  const bool solvable = softbody::steps_constraint_contact(model_->options);
  std::lock_guard lock(streams_mutex_);
  for (const auto& tool : tools_) {
    std::lock_guard tool_lock(tool->mutex);
    tool->stepping = {};
    if (!tool->has_input) continue;
    // An auto tool follows a settings change from this step on, before its next command.
    resolve_contact_model(tool->input, solvable);
    const ToolInput& in = tool->input;
    if (in.mode == ToolMode::kPoke) {
      ToolInput stepped = in;
      // An explicit constraint tool on a step that no longer solves constraint contact (its
      // next command is refused, naming why) presses as a penalty obstacle meanwhile.
      if (!solvable) stepped.contact.model = ContactModel::kPenalty;
      if (stepped.contact.model == ContactModel::kConstraint)
        tool->stepping = {constraint_obstacles++, in.position};
      inputs.obstacles.push_back(tool_obstacle(stepped));
    } else if (in.mode == ToolMode::kGrab && tool->grab_vertex >= 0) {
      inputs.anchors.push_back({tool->grab_vertex,
                                make_sampled_trajectory(in.position, in.velocity),
                                in.grab_stiffness, in.grab_damping});
    }
  }
  return inputs;
}

void Session::rebuild_coupling_models(const PublishedState& state) {
  std::lock_guard lock(streams_mutex_);
  for (const auto& tool : tools_) {
    std::lock_guard tool_lock(tool->mutex);
    tool->published = tool->stepping;
    if (!tool->has_input) continue;
    tool->model = build_coupling_model(tool->input, tool->grab_vertex, state, validity_cap_,
                                       tool->published, tool->contacts);
    tool->contact_problem = tool_contact_problem(tool->input, state, tool->published);
    tool->model_input = tool->input;
    tool->has_model = true;
  }
}

codec::Vec3d Session::answer(Tool& tool, const ToolInput& input, int& contacts,
                             codec::CouplingModel& model, codec::ToolContactModel* problem) {
  const std::shared_ptr<const PublishedState> state = latest();
  std::lock_guard lock(tool.mutex);
  const bool grabbing = input.mode == ToolMode::kGrab;
  const bool grab_started =
      grabbing && (!tool.has_input || tool.input.mode != ToolMode::kGrab ||
                   tool.input.requested_grab_vertex != input.requested_grab_vertex);
  if (!grabbing) {
    tool.grab_vertex = -1;
  } else if (grab_started) {
    const auto n = static_cast<Index>(state->p.size());
    if (input.requested_grab_vertex >= 0 && input.requested_grab_vertex < n) {
      tool.grab_vertex = input.requested_grab_vertex;
    } else {
      // The surface vertex nearest the tool now.
      Index best = -1;
      double best_d2 = std::numeric_limits<double>::infinity();
      for (Index v : topology().boundary_vertices()) {
        const double d2 = (state->p[static_cast<size_t>(v)] - input.position).squaredNorm();
        if (d2 < best_d2) best_d2 = d2, best = v;
      }
      tool.grab_vertex = best;
    }
  }
  // A tool turned from penalty to constraint contact (auto after a settings change) gets its
  // step's contact problem again, though that step's was sent while it was a penalty one.
  if (tool.has_input && tool.input.contact.model != input.contact.model)
    tool.problem_sent_step = -1;
  tool.input = input;
  tool.has_input = true;
  const codec::Vec3d x{input.position.x(), input.position.y(), input.position.z()};
  const codec::Vec3d v{input.velocity.x(), input.velocity.y(), input.velocity.z()};
  // Between steps the model built after the last step answers, as long as the tool stays inside
  // its validity radius and keeps its configuration; otherwise a new model is built at this pose
  // against the newest state (exact for the frozen body, and the contact set is current).
  const bool valid = tool.has_model && !grab_started && tool.model.step == state->step &&
                     same_tool_configuration(tool.model_input, input) &&
                     codec::distance_from_reference(tool.model, x) <= tool.model.validity_radius;
  if (!valid) {
    tool.model = build_coupling_model(input, tool.grab_vertex, *state, validity_cap_,
                                      tool.published, tool.contacts);
    tool.contact_problem = tool_contact_problem(input, *state, tool.published);
    tool.model_input = input;
    tool.has_model = true;
    metrics_.model_relinearizations.fetch_add(1, std::memory_order_relaxed);
  }
  contacts = tool.contacts;
  model = tool.model;
  touch();
  if (problem) {
    *problem = {};
    if (!tool.contact_problem.empty() && tool.problem_sent_step != tool.contact_problem.step) {
      *problem = tool.contact_problem;
      tool.problem_sent_step = tool.contact_problem.step;
    }
  }
  if (input.mode == ToolMode::kPoke && input.contact.model == ContactModel::kConstraint)
    return codec::evaluate(tool.contact_problem, x);  // zero without contacts
  return codec::evaluate(tool.model, x, v);
}

void Session::reset() {
  {
    std::lock_guard lock(state_mutex_);
    state_ = rest_state(*model_);
    total_rollbacks_ = 0;
    rtf_window_.clear();
    publish(state_, StepStats{}, 0);
  }
  effective_tolerance_ = options().solver.tolerance;
  const std::shared_ptr<const PublishedState> published = latest();
  rebuild_coupling_models(*published);
  std::lock_guard lock(streams_mutex_);
  for (const auto& s : subscribers_) s->offer(published);
}

void Session::update_settings(const SettingsUpdate& u) {
  std::lock_guard lock(state_mutex_);
  nlohmann::json document = source_.document;
  double length = 1;
  try {
    length = scene_length_unit(document, source_.scene_name);
  } catch (const SceneError& e) {
    throw ApiError(grpc::StatusCode::FAILED_PRECONDITION, e.what());
  }
  for (const SettingsUpdate::Value& setting : u.values) {
    const std::string problem = setting_scope_problem(*setting.spec, document);
    if (!problem.empty())
      throw ApiError(grpc::StatusCode::FAILED_PRECONDITION,
                     std::string("settings.") + setting.spec->name + ": " + problem);
    write_setting(document, *setting.spec, setting.value, length);
  }
  Scene scene;
  try {
    scene = build_scene(document, source_.scene_name, source_.base_dir,
                        {source_.uploaded_mesh.get(), source_.uploaded_key, bodies_});
  } catch (const SceneError& e) {
    throw ApiError(grpc::StatusCode::INVALID_ARGUMENT, settings_error(e.what()));
  }
  if (scene.model->rest.size() != state_.p.size())
    throw ApiError(grpc::StatusCode::FAILED_PRECONDITION, "settings: the mesh changed");
  source_.document = std::move(document);
  model_ = scene.model;
  // A new viscous law may need another memory (a refitted constant-Q material can keep fewer
  // Prony terms): memory that does not fit the new law is dropped, the body then starts relaxed,
  // rather than every later step failing on it.
  const size_t memory_size = model_->viscous ? model_->viscous->memory_size() : 0;
  if (!state_.material_memory.empty() && state_.material_memory.size() != memory_size) {
    state_.material_memory.clear();
    spdlog::info("event=viscous_memory_reset session={} reason=settings", id_);
  }
  {
    std::lock_guard settings_lock(settings_mutex_);
    options_ = model_->options;
    material_ = scene.body->material;
    document_ = source_.document;
  }
  // The factor's confirmation for contact stands for the old model's matrix (a new material changes
  // it at the same positions): the next contact step evaluates the matrix again.
  state_.confirmed_factor.reset();
  // BDF's history holds states of the old equations: a multistep formula over them would mix two
  // models, so it starts over at order 1 (as after a new dt or a retry with substeps). A refused
  // update (thrown above) keeps it.
  state_.history = {};
  integrator_ = make_integrator(model_);  // the state keeps every memory the old one had
  effective_tolerance_ = model_->options.solver.tolerance;
  rtf_window_.clear();
  cost_.restart();  // the settings change what a step costs
  spdlog::info("event=settings_updated session={}", id_);
}

SessionSnapshot Session::snapshot() {
  // Under the state mutex: a step in progress is waited for (steps take milliseconds). The state
  // carries every memory of the simulation, the solver's included.
  std::lock_guard lock(state_mutex_);
  return {source_.scene_name,          document(),    source_.uploaded, state_,
          effective_tolerance_.load(), on_time_steps_};
}

void Session::restore(const SessionSnapshot& snapshot) {
  std::lock_guard lock(state_mutex_);
  const SimulationState& state = snapshot.state;
  if (state.p.size() != state_.p.size() || state.v.size() != state_.v.size()) {
    invalid_argument("snapshot.positions", "has " + std::to_string(state.p.size()) +
                                               " vertices, the scene " +
                                               std::to_string(state_.p.size()));
  }
  const size_t memory = model_->viscous ? model_->viscous->memory_size() : 0;
  if (!state.material_memory.empty() && state.material_memory.size() != memory) {
    invalid_argument("snapshot.material_memory",
                     "has " + std::to_string(state.material_memory.size()) +
                         " values, the scene's material keeps " + std::to_string(memory));
  }
  state_ = state;
  cost_.restart();
  if (snapshot.effective_tolerance > 0)
    effective_tolerance_ =
        std::clamp(snapshot.effective_tolerance, model_->options.solver.tolerance,
                   std::max(model_->options.solver.tolerance, limits_.loosest_tolerance));
  on_time_steps_ = std::max(0, snapshot.on_time_steps);
  publish(state_, StepStats{}, 0);
}

std::shared_ptr<Subscriber> Session::subscribe() {
  std::lock_guard lock(streams_mutex_);
  if (static_cast<int>(subscribers_.size()) >= limits_.max_subscribers) {
    metrics_.requests_refused.fetch_add(1);
    throw ApiError(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "session " + id_ + " has its maximum of " +
                       std::to_string(limits_.max_subscribers) + " subscribers");
  }
  auto s = std::make_shared<Subscriber>();
  subscribers_.push_back(s);
  s->offer(latest());  // a new subscriber starts with the current state
  touch();
  return s;
}

void Session::unsubscribe(const std::shared_ptr<Subscriber>& s) {
  std::lock_guard lock(streams_mutex_);
  std::erase(subscribers_, s);
  touch();
}

int Session::num_subscribers() const {
  std::lock_guard lock(streams_mutex_);
  return static_cast<int>(subscribers_.size());
}

std::shared_ptr<Tool> Session::attach_tool() {
  std::lock_guard lock(streams_mutex_);
  if (static_cast<int>(tools_.size()) >= limits_.max_tools) {
    metrics_.requests_refused.fetch_add(1);
    throw ApiError(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        "session " + id_ + " has its maximum of " + std::to_string(limits_.max_tools) + " tools");
  }
  auto tool = std::make_shared<Tool>("tool-" + std::to_string(++next_tool_));
  tools_.push_back(tool);
  touch();
  return tool;
}

void Session::detach_tool(const std::shared_ptr<Tool>& tool) {
  std::lock_guard lock(streams_mutex_);
  std::erase(tools_, tool);
  touch();
}

int Session::num_tools() const {
  std::lock_guard lock(streams_mutex_);
  return static_cast<int>(tools_.size());
}

void Session::close_streams(const grpc::Status& status) {
  std::vector<std::shared_ptr<Subscriber>> subscribers;
  std::vector<std::shared_ptr<Tool>> tools;
  {
    std::lock_guard lock(streams_mutex_);
    subscribers = subscribers_;
    tools = tools_;
  }
  // Outside the lock: closing a tool's stream may detach it at once.
  for (const auto& s : subscribers) s->close(status);
  for (const auto& t : tools) {
    std::function<void(const grpc::Status&)> close;
    {
      std::lock_guard lock(t->mutex);
      close = t->close;
    }
    if (close) close(status);
  }
}

double Session::idle_seconds() const {
  if (num_subscribers() > 0 || num_tools() > 0) return 0;
  const Clock::time_point last{Clock::duration(last_activity_ns_.load())};
  return std::chrono::duration<double>(Clock::now() - last).count();
}

}  // namespace softbody::server
