#include "client-cpp/haptics/haptic_loop.h"

#include <algorithm>
#include <cmath>

#include "client-cpp/client/contact_model_names.h"
#include "codec/compact_compliance.h"

namespace softbody::client {

namespace v1 = softbody::v1;
using Clock = std::chrono::steady_clock;

namespace {

codec::CouplingModel from_proto(const v1::CouplingModel& m) {
  codec::CouplingModel out;
  auto vec = [](const v1::Vec3& v) { return codec::Vec3d{v.x(), v.y(), v.z()}; };
  out.reference_position = vec(m.reference_position());
  out.reference_velocity = vec(m.reference_velocity());
  out.force = vec(m.force());
  for (int i = 0; i < 9 && i < m.dforce_dposition().values_size(); ++i)
    out.dforce_dposition[static_cast<size_t>(i)] = m.dforce_dposition().values(i);
  for (int i = 0; i < 9 && i < m.dforce_dvelocity().values_size(); ++i)
    out.dforce_dvelocity[static_cast<size_t>(i)] = m.dforce_dvelocity().values(i);
  out.step = m.step();
  out.validity_radius = m.validity_radius();
  return out;
}

codec::ToolContactModel from_proto(const v1::ContactProblemModel& m) {
  codec::ToolContactModel out;
  out.reference_position = {m.reference_position().x(), m.reference_position().y(),
                            m.reference_position().z()};
  const auto n = static_cast<size_t>(std::max(0, m.contacts()));
  // A malformed problem (sizes that do not fit its contact count) is ignored, not rendered.
  if ((m.compliance_upper_size() == 0 && static_cast<size_t>(m.compliance_size()) != 9 * n * n) ||
      static_cast<size_t>(m.free_motion_size()) != 3 * n ||
      static_cast<size_t>(m.friction_size()) != n ||
      static_cast<size_t>(m.frames_size()) != 9 * n ||
      static_cast<size_t>(m.forces_size()) != 3 * n)
    return out;
  out.problem.contacts = static_cast<int>(n);
  if (m.compliance_upper_size() > 0) {
    if (!codec::decode_compliance_upper(m.compliance_upper().data(),
                                        static_cast<size_t>(m.compliance_upper_size()),
                                        static_cast<int>(3 * n), out.problem.w))
      return {};
  } else {
    out.problem.w.assign(m.compliance().begin(), m.compliance().end());
  }
  out.problem.delta_free.assign(m.free_motion().begin(), m.free_motion().end());
  out.problem.mu.assign(m.friction().begin(), m.friction().end());
  out.frames.assign(m.frames().begin(), m.frames().end());
  out.lambda.assign(m.forces().begin(), m.forces().end());
  out.step = m.step();
  return out;
}

double distance(const Vec3& a, const Vec3& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                   (a[2] - b[2]) * (a[2] - b[2]));
}

// Whether the server may resolve this tool's contact as constraints (and so wants the coupling
// spring, the candidate reach and the problem's encoding).
bool may_be_constraint(v1::ContactModel model) {
  return model == v1::CONTACT_MODEL_CONSTRAINT || model == v1::CONTACT_MODEL_AUTO;
}

}  // namespace

HapticLoop::HapticLoop(HapticDevice& device, HapticLoopOptions options)
    : device_(device),
      options_(options),
      streak_(std::chrono::milliseconds(static_cast<long>(1e3 * options.give_up_after_s))),
      safety_(options.safety),
      blend_(options.swap_blend_s, options.swap_blend_step),
      passivity_(options.passivity),
      mode_(options.tool.mode) {}

HapticLoop::~HapticLoop() {
  stop();
}

void HapticLoop::connect(Client& client, const std::string& session_id) {
  client_ = &client;
  session_id_ = session_id;
}

double HapticLoop::seconds(Clock::time_point t) const {
  return std::chrono::duration<double>(t - epoch_).count();
}

void HapticLoop::start() {
  if (running_) return;
  stop_ = false;
  running_ = true;
  epoch_ = Clock::now();
  thread_ = std::thread([this] { run(); });
}

void HapticLoop::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool HapticLoop::wait(double timeout_s) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(timeout_s));
  while (running_ && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return !running_;
}

// Adds the stream's counts to the loop's totals and lets it go (it has ended or been closed).
void HapticLoop::retire_stream() {
  commands_sent_ += stream_->sent();
  commands_coalesced_ += stream_->coalesced();
  replies_ += stream_->received();
  replies_superseded_ += stream_->superseded();
  stream_.reset();
}

void HapticLoop::open_stream() {
  if (stream_) retire_stream();
  if (!client_) return;
  stream_ = client_->interact(
      session_id_, [this](const v1::ForceReply& r, Clock::time_point t) { on_reply(r, t); });
}

void HapticLoop::on_reply(const v1::ForceReply& reply, Clock::time_point received) {
  const double now_s = seconds(received);
  {
    std::lock_guard lock(reply_mutex_);
    const double rtt = now_s - reply.client_time_s();
    last_round_trip_ms_ = 1e3 * rtt;
    round_trip_.record(rtt);
    server_time_.record(1e-6 * reply.server_time_us());
    if (reply.has_contact_problem()) {
      ++contact_problems_;
      contact_problem_bytes_ += static_cast<double>(reply.contact_problem().ByteSizeLong());
    }
    // RFC 6298's estimator: how long a reply may take on this link.
    if (smoothed_rtt_s_ < 0) {
      smoothed_rtt_s_ = rtt;
      rtt_deviation_s_ = rtt / 2;
    } else {
      rtt_deviation_s_ = 0.75 * rtt_deviation_s_ + 0.25 * std::abs(smoothed_rtt_s_ - rtt);
      smoothed_rtt_s_ = 0.875 * smoothed_rtt_s_ + 0.125 * rtt;
    }
    link_delay_s_.store(smoothed_rtt_s_ + 4 * rtt_deviation_s_, std::memory_order_relaxed);
    // The watchdog's allowance: the longest recent round trip, forgotten over ~10 s, when it
    // exceeds the estimator's. On a lossy link replies stall for a resent segment's round trip;
    // the estimator, pulled down by the fast replies between stalls, then called a live server
    // gone (measured on a 300 ms link with 2 % loss: model ages up to 0.65 s against a watchdog
    // timeout that fell to ~0.5 s; the force ramped to zero mid-press, the hand's spring pushed
    // the pen 4 mm in, and the next reply shot it out at 0.2 m/s).
    const double since = peak_rtt_at_s_ < 0 ? 0 : now_s - peak_rtt_at_s_;
    peak_rtt_s_ = std::max(rtt, peak_rtt_s_ * std::exp(-std::max(since, 0.0) / 10.0));
    peak_rtt_at_s_ = now_s;
    watchdog_delay_s_.store(std::max(peak_rtt_s_, smoothed_rtt_s_ + 4 * rtt_deviation_s_),
                            std::memory_order_relaxed);
  }
  if (!reply.rejected().empty()) {
    {
      std::lock_guard lock(reply_mutex_);
      if (first_rejection_.empty()) first_rejection_ = reply.rejected();
    }
    ++rejected_;
    return;
  }
  if (reply.has_contact_problem()) last_problem_ = from_proto(reply.contact_problem());
  if (reply.contact_model() != v1::CONTACT_MODEL_UNSPECIFIED)
    replied_contact_model_.store(reply.contact_model(), std::memory_order_relaxed);
  TimedModel& m = models_.back();
  m.model = from_proto(reply.model());
  // The problem belongs to the step the reply's model was built from; an older one is dropped,
  // and so is any once the server says the tool is a penalty one (AUTO after the session's
  // solver changed). (Servers before the field leave it unspecified; they also reject AUTO, so
  // a client talking to one sends penalty or constraint.)
  if (!last_problem_.empty() && last_problem_.step == m.model.step &&
      reply.contact_model() != v1::CONTACT_MODEL_PENALTY)
    m.problem = last_problem_;
  else
    m.problem = {};
  m.received_s = now_s;
  m.contacts = reply.contacts();
  models_.publish();
}

v1::ToolCommand HapticLoop::command(double time_s, const Vec3& position, const Vec3& velocity,
                                    const DeviceState& device, double reach) const {
  const ToolSettings& t = options_.tool;
  v1::ToolCommand c;
  c.set_sequence(sequence_);
  c.set_client_time_s(time_s);
  auto* p = c.mutable_pose();
  p->mutable_position()->set_x(position[0]);
  p->mutable_position()->set_y(position[1]);
  p->mutable_position()->set_z(position[2]);
  p->mutable_orientation()->set_w(device.orientation[0]);
  p->mutable_orientation()->set_x(device.orientation[1]);
  p->mutable_orientation()->set_y(device.orientation[2]);
  p->mutable_orientation()->set_z(device.orientation[3]);
  c.mutable_velocity()->set_x(velocity[0]);
  c.mutable_velocity()->set_y(velocity[1]);
  c.mutable_velocity()->set_z(velocity[2]);
  c.set_shape(t.shape);
  c.set_mode(mode_.load(std::memory_order_relaxed));
  c.set_radius(t.radius);
  c.set_half_length(t.half_length);
  if (t.shape == v1::TOOL_SHAPE_MESH) c.set_tool_mesh(t.tool_mesh);
  c.set_buttons(device.buttons);
  c.set_contact_stiffness(t.contact_stiffness);
  c.set_contact_damping(t.contact_damping);
  c.set_contact_friction(t.contact_friction);
  c.set_contact_model(t.contact_model);
  c.set_friction_coefficient(t.friction_coefficient);
  // A hand feels constraint contact through a spring it can render (virtual coupling). (A
  // penalty tool ignores these fields: AUTO sends them for whichever the server picks.)
  if (may_be_constraint(t.contact_model)) {
    c.set_coupling_stiffness(t.contact_stiffness);
    c.set_candidate_reach(reach);
    c.set_contact_problem_encoding(t.compact_contact_problem
                                       ? v1::CONTACT_PROBLEM_ENCODING_UPPER_FLOAT
                                       : v1::CONTACT_PROBLEM_ENCODING_FULL);
  }
  c.set_grab_stiffness(t.grab_stiffness);
  c.set_grab_damping(t.grab_damping);
  return c;
}

double HapticLoop::command_interval() const {
  // Each command is a TCP segment or more; on a lossy link every lost one holds back all that
  // follow for a round trip (head-of-line blocking), so at 1 kHz a 300 ms link with 2 % loss is
  // blocked most of the time. The force is rendered from the local model at every tick whatever
  // the rate; the server needs the pose once per step, and on a slow link a command a
  // thirtieth of the delay staler is immaterial. Fast links keep one command per tick.
  return std::min(kMaxCommandInterval, link_delay_s_.load(std::memory_order_relaxed) / 30);
}

double HapticLoop::candidate_reach(const Vec3& velocity, double dt) {
  const double speed = std::hypot(velocity[0], velocity[1], velocity[2]);
  // A device's non-finite velocity is ignored (a NaN peak would make every later command's reach
  // NaN, which the server rejects).
  const double decay = std::isfinite(dt) && dt > 0 ? std::exp(-dt / 1.0) : 1.0;
  peak_speed_ = std::max(std::isfinite(speed) ? speed : 0.0, peak_speed_ * decay);
  const double requested = options_.tool.candidate_reach;
  // The problem this command gets is built around this pose and used from its arrival, a round
  // trip later, until a newer one replaces it, up to another when a loss holds the link back:
  // the tool may travel its speed times twice the link's delay meanwhile. The peak (not the
  // present) speed, since a hand that just stopped at the surface may start again, and 1.5x for
  // the acceleration within that time (measured: 1.5x one delay left the pen 1-2 mm inside the
  // surface at first touch on a 150 ms link with loss). At least kOnsetSpeed: a hand at rest
  // has no recent speed, yet the problem built for its resting pose still serves a round trip
  // or more after it starts to move (measured on a 300 ms link with 2 % loss, round trips
  // 0.6-0.9 s: a pen that hovered and then pressed at 20 mm/s sank 2-5 mm into a surface its
  // problem did not hold and the next one pushed it out, +1 to +5 mJ in half the runs).
  const double reach = requested >= 0 ? requested
                                      : 3 * std::max(peak_speed_, kOnsetSpeed) *
                                            link_delay_s_.load(std::memory_order_relaxed);
  return std::isfinite(reach) ? std::clamp(reach, 0.0, 0.1) : 0.0;
}

Vec3 HapticLoop::model_force(TimedModel& m, const Vec3& position, const Vec3& velocity) {
  return m.problem.empty() ? codec::evaluate(m.model, position, velocity)
                           : codec::evaluate(m.problem, position);
}

void HapticLoop::tick(double time_s, double dt) {
  const Workspace& w = options_.workspace;
  const DeviceState device = device_.read(time_s);
  Vec3 position, velocity;
  for (size_t k = 0; k < 3; ++k) {
    position[k] = w.offset[k] + w.scale * device.position[k];
    velocity[k] = w.scale * device.velocity[k];
  }

  // A new model: note how far the force would jump at this pose when it replaces the old one,
  // and let the blend carry the difference instead.
  if (models_.update()) {
    const Vec3 before = have_model_ ? model_force(model_, position, velocity) : Vec3{0, 0, 0};
    model_ = models_.front();
    if (have_model_) {
      const Vec3 after = model_force(model_, position, velocity);
      swap_jump_.record(distance(before, after));
      blend_.swap(before, after);
    }
    have_model_ = true;
  }

  const bool connected = stream_ && !stream_->ended();
  Vec3 desired{0, 0, 0};
  double age = std::numeric_limits<double>::infinity();
  if (have_model_) {
    desired = model_force(model_, position, velocity);
    if (!model_.problem.empty()) ++problem_ticks_;
    const Vec3 offset = blend_.advance(dt);
    for (int k = 0; k < 3; ++k) desired[k] += offset[k];
    desired = passivity_.filter(desired, position, velocity, dt);
    age = time_s - model_.received_s;
    model_age_.record(age);
    if (codec::distance_from_reference(model_.model, position) > model_.model.validity_radius)
      ++beyond_validity_;
  }
  safety_.allow_link_delay(watchdog_delay_s_.load(std::memory_order_relaxed));
  if (have_model_) watchdog_timeout_.record(safety_.watchdog_timeout());
  const Vec3 force = safety_.filter(desired, dt, age, connected);
  passivity_.record_output(force, position);
  if (have_model_ && model_.contacts > 0) ++contact_ticks_;
  largest_force_ = std::max(largest_force_, std::hypot(force[0], force[1], force[2]));
  device_.write_force(
      {w.force_scale * force[0], w.force_scale * force[1], w.force_scale * force[2]}, time_s);

  const double reach = candidate_reach(velocity, dt);
  if (connected) {
    if (time_s >= next_command_s_) {
      next_command_s_ = time_s + command_interval();
      if (stream_->send(command(time_s, position, velocity, device, reach))) {
        ++sequence_;
        if (may_be_constraint(options_.tool.contact_model))
          largest_reach_ = std::max(largest_reach_, reach);
      }
    }
  } else {
    ++disconnected_ticks_;
    if (client_ && options_.reconnect && time_s >= next_reconnect_s_) {
      // Reopen with exponential backoff; non-blocking (gRPC's callback API).
      if (stream_) {
        const Error error =
            stream_->end_error().value_or(Error{grpc::StatusCode::UNKNOWN, "tool stream ended"});
        if (link_error_.empty()) link_error_ = error.to_string();  // the cause, not the echoes
        // The session may have moved to another host: the client follows it before reopening.
        if (!client_->follow(error, stream_->host()) && !streak_.failed(error)) {
          std::lock_guard lock(snapshot_mutex_);
          failure_ = streak_.verdict();
          stop_ = true;  // the loop ends after this tick, with zero force
          return;
        }
        ++reconnects_;
      }
      open_stream();
      stream_opened_s_ = time_s;
      next_reconnect_s_ = time_s + reconnect_backoff_s_;
      reconnect_backoff_s_ = std::min(2 * reconnect_backoff_s_, 2.0);
    }
  }
  // A stream works once a reply came on it (a stream still connecting is not yet working).
  if (connected && have_model_ && model_.received_s >= stream_opened_s_) {
    reconnect_backoff_s_ = 0.1;
    streak_.succeeded();
    link_error_.clear();
  }

  ++rate_window_ticks_;
  if (time_s - rate_window_start_ >= 1) {
    loop_rate_ = static_cast<double>(rate_window_ticks_) / (time_s - rate_window_start_);
    rate_window_start_ = time_s;
    rate_window_ticks_ = 0;
  }
  std::unique_lock lock(snapshot_mutex_, std::try_to_lock);
  if (lock.owns_lock()) {
    snapshot_.tool_position = position;
    snapshot_.force = force;
    snapshot_.time_s = time_s;
    snapshot_.loop_rate_hz = loop_rate_;
    snapshot_.model_age_ms = 1e3 * age;
    snapshot_.contacts = have_model_ ? model_.contacts : 0;
    snapshot_.connected = connected;
    snapshot_.link_error = connected ? std::string() : link_error_;
    snapshot_.ticks = ticks_;
    snapshot_.ticks_in_contact = contact_ticks_;
  }
}

void HapticLoop::run() {
  placement_report_ = place_haptic_thread(options_.placement);
  if (client_) open_stream();
  PeriodicTimer timer(options_.rate_hz, options_.spin_s);
  const double nominal = 1 / options_.rate_hz;
  Clock::time_point previous = Clock::now();
  while (!stop_) {
    const Clock::time_point now = timer.wait();
    const double dt = std::chrono::duration<double>(now - previous).count();
    if (ticks_ > 0) {
      period_.record(dt);
      jitter_.record(std::abs(dt - nominal));
    }
    previous = now;
    const double time_s = seconds(now);
    tick(time_s, ticks_ > 0 ? dt : nominal);
    ++ticks_;
    if (device_.finished() || (options_.duration_s > 0 && time_s >= options_.duration_s)) break;
  }
  overruns_ = timer.overruns();
  device_.write_force({0, 0, 0}, seconds(Clock::now()));
  if (stream_) {
    stream_->close(std::chrono::milliseconds(2000));
    retire_stream();
  }
  {
    std::lock_guard lock(snapshot_mutex_);
    snapshot_.force = {0, 0, 0};
    snapshot_.connected = false;
  }
  running_ = false;
}

std::optional<Error> HapticLoop::failure() const {
  std::lock_guard lock(snapshot_mutex_);
  return failure_;
}

std::string HapticLoop::first_rejection() const {
  std::lock_guard lock(reply_mutex_);
  return first_rejection_;
}

HapticSnapshot HapticLoop::snapshot() const {
  HapticSnapshot s;
  {
    std::lock_guard lock(snapshot_mutex_);
    s = snapshot_;
  }
  std::lock_guard lock(reply_mutex_);
  s.round_trip_ms = last_round_trip_ms_;
  return s;
}

nlohmann::json HapticLoop::report() const {
  std::lock_guard lock(reply_mutex_);
  const double duration = ticks_ > 1 ? period_.mean() * static_cast<double>(period_.count()) : 0;
  return {
      {"rate_hz", options_.rate_hz},
      {"placement", placement_report_},
      {"ticks", ticks_},
      {"duration_s", duration},
      {"achieved_rate_hz", duration > 0 ? static_cast<double>(period_.count()) / duration : 0},
      {"overruns", overruns_},
      {"period_us", period_.summary(1e6)},
      {"jitter_us", jitter_.summary(1e6)},
      {"round_trip_ms", round_trip_.summary(1e3)},
      {"server_reply_us", server_time_.summary(1e6)},
      {"model_age_ms", model_age_.summary(1e3)},
      {"model_swap_force_jump_n", swap_jump_.summary(1)},
      {"model_swap_largest_rendered_step_n", blend_.largest_step()},
      {"energy_to_user_j", passivity_.delivered_to_user()},
      {"passivity_dissipated_j", passivity_.dissipated()},
      {"passivity_active_ticks", passivity_.active_ticks()},
      {"largest_candidate_reach_m", largest_reach_},
      {"passivity_observed_energy_j", passivity_.stored_energy()},
      {"watchdog_timeout_ms", watchdog_timeout_.summary(1e3)},
      {"commands_sent", commands_sent_},
      {"commands_coalesced", commands_coalesced_},
      {"replies_received", replies_},
      {"replies_superseded", replies_superseded_},
      {"replies_missing", commands_sent_ - replies_ - replies_superseded_},
      {"commands_rejected", rejected_.load()},
      {"first_rejection", first_rejection_},
      {"ticks_beyond_validity_radius", beyond_validity_},
      {"ticks_disconnected", disconnected_ticks_},
      {"ticks_in_contact", contact_ticks_},
      {"ticks_rendered_by_contact_problem", problem_ticks_},
      {"contact_model", contact_model_name(replied_contact_model_.load(std::memory_order_relaxed))},
      {"contact_problems_received", contact_problems_},
      {"contact_problem_bytes_mean",
       contact_problems_ > 0 ? contact_problem_bytes_ / static_cast<double>(contact_problems_)
                             : 0.0},
      {"largest_force_n", largest_force_},
      {"reconnects", reconnects_},
      {"force_magnitude_clamps", safety_.magnitude_clamps()},
      {"force_rate_clamps", safety_.rate_clamps()},
      {"watchdog_ticks", safety_.watchdog_ticks()},
  };
}

}  // namespace softbody::client
