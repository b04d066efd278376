#include "engine/contact/constraint_contact.h"

#include <Eigen/SparseCore>
#include <algorithm>
#include <chrono>
#include <cmath>

#include "codec/contact_pgs.h"
#include "engine/contact/contact_frames.h"
#include "engine/linalg/lapack_dense_solve.h"
#include "engine/solvers/unit_compliance.h"

namespace softbody {
namespace {

// The share of contact.fresh_tolerance within which a kept factor's matrix is confirmed for the
// configuration (FreeMotionMatrix::confirm).
constexpr double kConfirmedShare = 0.5;

double rest_diagonal(const Vec3Array& rest) {
  Box3 box;
  for (const Vec3& p : rest) box.grow(p);
  return rest.empty() ? 1.0 : (box.max - box.min).norm();
}

// J^T (3n x 3m) of the proximity points, or H^T = J^T C^T when `frames` are given.
Eigen::SparseMatrix<double> jacobian_transpose(const std::vector<ContactPoint>& points, Index n,
                                               const std::vector<Mat3>* frames) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(points.size() * 27);
  for (size_t k = 0; k < points.size(); ++k) {
    const ContactPoint& c = points[k];
    const auto column = 3 * static_cast<Eigen::Index>(k);
    const auto add = [&](Index vertex, double w) {
      const auto row = 3 * static_cast<Eigen::Index>(vertex);
      for (int r = 0; r < 3; ++r)
        for (int d = 0; d < 3; ++d) {
          const double value = frames ? w * (*frames)[k](r, d) : (r == d ? w : 0.0);
          if (value != 0) entries.emplace_back(row + d, column + r, value);
        }
    };
    for (int i = 0; i < c.count; ++i)
      add(c.vertices[static_cast<size_t>(i)], c.weights[static_cast<size_t>(i)]);
  }
  Eigen::SparseMatrix<double> jt(3 * n, 3 * static_cast<Eigen::Index>(points.size()));
  jt.setFromTriplets(entries.begin(), entries.end());
  return jt;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Eigen::VectorXd proximity_points(const std::vector<ContactPoint>& points, const Vec3Array& x) {
  Eigen::VectorXd p(3 * static_cast<Eigen::Index>(points.size()));
  for (size_t k = 0; k < points.size(); ++k)
    p.segment<3>(3 * static_cast<Eigen::Index>(k)) = points[k].position(x);
  return p;
}

void flatten(const Eigen::MatrixXd& w, std::vector<double>& out) {
  out.resize(static_cast<size_t>(w.size()));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      out.data(), w.rows(), w.cols()) = w;
}

// A coupled obstacle (a haptic tool's proxy on a spring to its pose) yields to its contacts'
// forces: the proxy moves by -(1/k) sum_l C_l^T lambda_l, opening contact k's gap and slip by
// (1/k) C_k C_l^T lambda_l for every pair of its contacts.
void add_virtual_coupling(std::span<const Obstacle> obstacles,
                          const std::vector<ContactPoint>& points, const std::vector<Mat3>& frames,
                          Eigen::MatrixXd& w) {
  for (size_t k = 0; k < points.size(); ++k) {
    if (points[k].obstacle == ContactPoint::kSelf) continue;
    const double stiffness =
        obstacles[static_cast<size_t>(points[k].obstacle)].contact.coupling_stiffness;
    if (!(stiffness > 0)) continue;
    for (size_t l = 0; l < points.size(); ++l)
      if (points[l].obstacle == points[k].obstacle)
        w.block<3, 3>(3 * static_cast<Eigen::Index>(k), 3 * static_cast<Eigen::Index>(l)) +=
            frames[k] * frames[l].transpose() / stiffness;
  }
}

// Obstacle i's own contact problem: its rows of W and of the free motion, with the other
// obstacles' forces held (their share of the motion added to the free gaps).
codec::ToolContactModel obstacle_model(int obstacle, const Vec3& position,
                                       const std::vector<ContactPoint>& points,
                                       const std::vector<Mat3>& frames, const Eigen::MatrixXd& w,
                                       const codec::ContactProblem& problem,
                                       const std::vector<double>& lambda) {
  codec::ToolContactModel model;
  std::vector<Eigen::Index> mine;
  for (size_t k = 0; k < points.size(); ++k)
    if (points[k].obstacle == obstacle) mine.push_back(static_cast<Eigen::Index>(k));
  if (mine.empty() || mine.size() > static_cast<size_t>(ContactResult::kMaxModelContacts))
    return model;
  const auto a = mine.size(), all = 3 * points.size();
  std::vector<char> is_mine(points.size(), 0);
  for (Eigen::Index k : mine) is_mine[static_cast<size_t>(k)] = 1;
  model.reference_position = {position.x(), position.y(), position.z()};
  model.problem.contacts = static_cast<int>(a);
  model.problem.w.resize(9 * a * a);
  model.problem.delta_free.resize(3 * a);
  for (size_t i = 0; i < a; ++i) {
    const auto k = static_cast<size_t>(mine[i]);
    model.problem.mu.push_back(points[k].mu);
    for (int r = 0; r < 3; ++r) {
      const auto row = static_cast<Eigen::Index>(3 * k) + r;
      double free = problem.delta_free[static_cast<size_t>(row)];
      for (size_t l = 0; l < all; ++l)
        if (!is_mine[l / 3]) free += w(row, static_cast<Eigen::Index>(l)) * lambda[l];
      model.problem.delta_free[3 * i + static_cast<size_t>(r)] = free;
      model.lambda.push_back(lambda[static_cast<size_t>(row)]);
      for (size_t j = 0; j < a; ++j)
        for (int c = 0; c < 3; ++c)
          model.problem
              .w[(3 * i + static_cast<size_t>(r)) * 3 * a + 3 * j + static_cast<size_t>(c)] =
              w(row, 3 * mine[j] + c);
      for (int c = 0; c < 3; ++c) model.frames.push_back(frames[k](r, c));
    }
  }
  return model;
}

// A reach (ContactParameters::reach) widens an obstacle's candidates to features that may close
// before a haptic client's next reply: on a finely meshed body that can be hundreds, each a row
// of W (half-solves every step), of the problem re-solved at 1 kHz and of the reply that carries
// it (W is dense: 64 contacts are 300 kB a step, 30 MB/s at 100 Hz, on the slow links the reach
// is for). So the features beyond the plain margin are capped at their kMaxReachedCandidates
// nearest; those within `margin` (and any penetrating) are the step's own contacts and all stay.
constexpr size_t kMaxReachedCandidates = 16;

void keep_nearest_reached(std::span<const Obstacle> obstacles, double margin,
                          std::vector<ContactPoint>& points) {
  for (size_t i = 0; i < obstacles.size(); ++i) {
    if (!(obstacles[i].contact.reach > 0)) continue;
    std::vector<size_t> reached;  // beyond the margin
    for (size_t k = 0; k < points.size(); ++k)
      if (points[k].obstacle == static_cast<int>(i) && !(points[k].gap < margin))
        reached.push_back(k);
    if (reached.size() <= kMaxReachedCandidates) continue;
    std::stable_sort(reached.begin(), reached.end(),
                     [&](size_t a, size_t b) { return points[a].gap < points[b].gap; });
    std::vector<char> drop(points.size(), 0);
    for (size_t k = kMaxReachedCandidates; k < reached.size(); ++k) drop[reached[k]] = 1;
    size_t kept = 0;
    for (size_t k = 0; k < points.size(); ++k)
      if (!drop[k]) points[kept++] = points[k];
    points.resize(kept);
  }
}

}  // namespace

bool ConstraintContact::held(const ContactPoint& c) const {
  const std::vector<std::uint8_t>& fixed = model_.fixed;
  if (fixed.empty()) return false;
  const auto is_fixed = [&](Index v) { return fixed[static_cast<size_t>(v)] != 0; };
  for (int i = 0; i < c.count; ++i)
    if (!is_fixed(c.vertices[static_cast<size_t>(i)])) return false;
  return true;
}

const char* contact_scheme_name(ContactScheme scheme) {
  return scheme == ContactScheme::kFast ? "fast" : "standard";
}

ConstraintContact::ConstraintContact(const SimulationModel& model)
    : model_(model), detector_(*model.topology, model.rest), diagonal_(rest_diagonal(model.rest)) {}

bool ConstraintContact::resolve(std::span<const Obstacle> obstacles, double t_start, double t_next,
                                double h, const Vec3Array& p_start,
                                const ConstrainedBlockOperator& a, StepSolver& solver, Vec3Array& p,
                                Vec3Array& v, std::vector<SimulationState::ContactMemory>& memory,
                                ContactResult& result, const FreeMotionMatrix& matrix) {
  result = {};
  const std::vector<SimulationState::ContactMemory> previous = std::move(memory);
  memory.clear();
  result.obstacle_forces.assign(obstacles.size(), Vec3::Zero());
  result.obstacle_stiffness.assign(obstacles.size(), Mat3::Zero());
  result.obstacle_contacts.assign(obstacles.size(), 0);
  result.obstacle_models.assign(obstacles.size(), {});
  const ContactOptions& o = model_.contact;
  if (obstacles.empty() && !o.self) return true;
  const double diagonal = diagonal_;
  // The obstacles as they are at the step's end (turned, for spinning ones) and, to measure slip,
  // where each obstacle point now at x was at the step's start: c0 + R0 R1^T (x - c1).
  std::vector<Obstacle> posed;
  std::vector<Vec3> centres(obstacles.size()), starts(obstacles.size());
  std::vector<Mat3> back(obstacles.size());
  for (size_t i = 0; i < obstacles.size(); ++i) {
    posed.push_back(posed_at(obstacles[i], t_next));
    centres[i] = obstacles[i].trajectory->position(t_next);
    starts[i] = obstacles[i].trajectory->position(t_start);
    back[i] = obstacle_rotation(obstacles[i], t_start) *
              obstacle_rotation(obstacles[i], t_next).transpose();
  }
  const auto obstacle_motion = [&](int i, const Vec3& x) -> Vec3 {
    const auto k = static_cast<size_t>(i);
    return x - (starts[k] + back[k] * (x - centres[k]));
  };
  auto clock = Clock::now();
  result.points = detector_.detect(posed, centres, p, o.margin * diagonal);
  keep_nearest_reached(obstacles, o.margin * diagonal, result.points);
  // At the free motion, at the step's start (where any contact may push: the free motion drops
  // every contact force, so parts pressed together spring apart in it) and, continuously, where a
  // vertex crossed a face or an edge crossed an edge during the step.
  if (o.self)
    detector_.detect_self_over_step(p_start, p, o.margin * diagonal, o.self_mu, o.self_continuous,
                                    result.points);
  // A contact none of whose vertices can move (held feet on a floor) is no constraint of the
  // step: its row of J is zero, so it would only make W singular (and with every contact held,
  // the compliance empty: the half-solve failed and the step threw).
  std::erase_if(result.points, [&](const ContactPoint& c) { return held(c); });
  result.detect_ms = ms_since(clock);
  const std::vector<ContactPoint>& points = result.points;
  if (points.empty()) return true;
  // Every candidate apart at the free motion: no force at all is then the contact problem's exact
  // answer (Signorini with every free gap >= 0; no normal force, no friction), and it needs no
  // compliance, so no factorization. A tool's candidates still get their compliance: its haptic
  // model re-solves them for poses nearer the body.
  const auto apart = [&](const ContactPoint& c) {
    if (c.obstacle == ContactPoint::kSelf) return c.normal.dot(c.position(p)) >= 0;
    if (static_cast<size_t>(c.obstacle) >= model_.obstacles.size()) return false;  // a tool's
    double distance;
    Vec3 normal;
    return !contact_distance(c, posed[static_cast<size_t>(c.obstacle)],
                             centres[static_cast<size_t>(c.obstacle)], c.position(p), distance,
                             normal) ||
           distance >= 0;
  };
  if (std::all_of(points.begin(), points.end(), apart)) {
    result.forces.assign(points.size(), Vec3::Zero());  // one per point, as after a solve
    result.normals.resize(points.size());
    for (size_t k = 0; k < points.size(); ++k) result.normals[k] = points[k].normal;
    return true;
  }

  const Index n = model_.topology->num_vertices();
  const auto m = static_cast<Eigen::Index>(points.size());
  const double denom = h + model_.options.beta, to_position = h / denom;
  bool factorized = false;
  if (!o.fresh_compliance) {
    clock = Clock::now();
    factorized = solver.ensure_definite_factor(a);
  } else if (!(matrix.confirmed && matrix.confirmed() && solver.prepare_kept_factor(a))) {
    if (matrix.evaluate) matrix.evaluate();
    clock = Clock::now();
    // A step whose matrix may be confirmed keeps a factor only within the share a confirmation
    // allows, and is confirmed then: one factorization where a held body's matrix sits between
    // that share and the tolerance lets every held step after it keep the factor without
    // evaluating the matrix (kept at the whole tolerance instead, a held press evaluated its matrix
    // every step and was never confirmed). Confirmed only well within the tolerance: the few
    // nanometres a held body moves while the confirmation stands (FreeMotionMatrix::confirmed)
    // then cannot take its matrix past the tolerance, and a step kept on the confirmation decides
    // as an evaluating one would.
    const bool confirmable = matrix.confirm && matrix.confirmable && matrix.confirmable();
    factorized = solver.refresh_definite_factor(
        a, confirmable ? kConfirmedShare * o.fresh_tolerance : o.fresh_tolerance);
    if (confirmable && solver.has_kept_factor()) matrix.confirm();
  } else {
    clock = Clock::now();
    result.matrix_confirmed = true;
  }
  result.factor_ms = ms_since(clock);
  clock = Clock::now();
  const Eigen::SparseMatrix<double> jt = jacobian_transpose(points, n, nullptr);
  // W from the compliances between single unknowns, kept with the factor (UnitCompliance), where
  // that pays: on a factor kept from an earlier step or iteration they are mostly there already;
  // on a new one they cost a half-solve per unknown against one per row, a loss where rows spread
  // over many vertices (self contact: 12 unknowns for 3 rows). The choice reads only the step's
  // rows and whether it factorized, so a restored session chooses alike.
  // The unknowns the constraint rows touch (jt is compressed: setFromTriplets).
  const bool few_unknowns =
      static_cast<Eigen::Index>(distinct_unknowns(jt).size()) <= 2 * jt.cols();
  const auto keep_unknowns = [&](int iteration) {
    return iteration > 0 || !factorized || few_unknowns;
  };
  // W_J in position form, once per step: the fast scheme's products are made of it.
  Eigen::MatrixXd w_j;
  if (o.scheme == ContactScheme::kFast)
    w_j = to_position * solver.delassus(a, jt, keep_unknowns(0));
  result.build_ms = ms_since(clock);
  const Eigen::VectorXd p_free = proximity_points(points, p);
  const Eigen::VectorXd p_begin = proximity_points(points, p_start);

  codec::ContactProblem problem;
  problem.contacts = static_cast<int>(m);
  problem.mu.resize(static_cast<size_t>(m));
  for (size_t k = 0; k < points.size(); ++k) problem.mu[k] = points[k].mu;
  problem.delta_free.resize(3 * static_cast<size_t>(m));
  std::vector<Mat3> frames(points.size()), previous_frames;
  // The warm start: last step's force on the same feature of the same obstacle (in world
  // coordinates; put into this step's frames below).
  Eigen::VectorXd warm_world = Eigen::VectorXd::Zero(3 * m);
  for (size_t k = 0; k < points.size(); ++k)
    for (const auto& remembered : previous)
      if (remembered.obstacle == points[k].obstacle && remembered.vertices == points[k].vertices) {
        warm_world.segment<3>(3 * static_cast<Eigen::Index>(k)) = remembered.force;
        break;
      }
  std::vector<double> lambda;
  Eigen::VectorXd positions = p_free, lambda_vec, dv;
  // The first linearization where each obstacle contact began the step, carried along with its
  // obstacle, not at the free motion: a held grasp's free motion springs its pressed surface
  // millimetres into the jaws, where the obstacle's closest points and normals are far from those
  // at the answer, and the first contact problem linearized there is both wrong and hard (on
  // bench/scenes/knight-grasp-hold.json it ran the PGS to its sweep cap every step, and two
  // re-linearizations still ended 0.1 mm apart). A contact held through the step began it on the
  // surface, where it ends; one that is closing began it outside, a linearization as good as the
  // free motion's for a convex obstacle. (Last step's forces applied to the free motion were
  // tried and dropped: through a compliance that changed since, or with features that changed,
  // they moved the prediction centimetres.)
  for (size_t k = 0; k < points.size(); ++k) {
    if (points[k].obstacle == ContactPoint::kSelf) continue;
    const auto i = static_cast<size_t>(points[k].obstacle);
    const auto row = 3 * static_cast<Eigen::Index>(k);
    positions.segment<3>(row) =
        centres[i] + back[i].transpose() * (Vec3(p_begin.segment<3>(row)) - starts[i]);
  }
  Eigen::SparseMatrix<double> ht;
  Eigen::MatrixXd w;  // the last iteration's compliance in its frames
  const codec::PgsOptions pgs{o.pgs_iterations, o.tolerance * diagonal};
  codec::ActiveSetOptions active_set;
  active_set.dense_solve = lapack_dense_solve;  // the codec's own LU is 2.4x slower at 441 rows

  for (int iteration = 0; iteration < std::max(1, o.newton_iterations); ++iteration) {
    ++result.newton_iterations;
    // Frames and free gaps linearized at the current proximity points.
    for (size_t k = 0; k < points.size(); ++k) {
      const ContactPoint& c = points[k];
      const auto i = 3 * static_cast<Eigen::Index>(k);
      if (c.obstacle == ContactPoint::kSelf) {
        // The face's normal from detection; the gap is linear in the relative point.
        frames[k] = contact_frame(c.normal);
        const Vec3 slip = p_free.segment<3>(i) - p_begin.segment<3>(i);
        problem.delta_free[3 * k] = c.normal.dot(p_free.segment<3>(i));
        problem.delta_free[3 * k + 1] = frames[k].row(1).dot(slip);
        problem.delta_free[3 * k + 2] = frames[k].row(2).dot(slip);
        continue;
      }
      Vec3 at = positions.segment<3>(i);
      double distance;
      Vec3 normal;
      bool on = contact_distance(c, posed[static_cast<size_t>(c.obstacle)],
                                 centres[static_cast<size_t>(c.obstacle)], at, distance, normal);
      if (!on && iteration == 0) {  // began the step off the obstacle (beside a plate): as before
        at = p_free.segment<3>(i);
        positions.segment<3>(i) = at;
        on = contact_distance(c, posed[static_cast<size_t>(c.obstacle)],
                              centres[static_cast<size_t>(c.obstacle)], at, distance, normal);
      }
      if (!on) {
        normal = iteration == 0 ? c.normal : Vec3(frames[k].row(0).transpose());
        distance = std::numeric_limits<double>::infinity();  // off the obstacle: no force
      }
      frames[k] = contact_frame(normal);
      const Vec3 slip = p_free.segment<3>(i) - p_begin.segment<3>(i) -
                        obstacle_motion(c.obstacle, p_free.segment<3>(i));
      problem.delta_free[3 * k] = distance - normal.dot(at - Vec3(p_free.segment<3>(i)));
      problem.delta_free[3 * k + 1] = frames[k].row(1).dot(slip);
      problem.delta_free[3 * k + 2] = frames[k].row(2).dot(slip);
    }
    clock = Clock::now();
    if (o.scheme == ContactScheme::kFast) {
      w = reorient_compliance(w_j, frames);
    } else {
      ht = jacobian_transpose(points, n, &frames);
      w = to_position * solver.delassus(a, ht, keep_unknowns(iteration));
    }
    add_virtual_coupling(obstacles, points, frames, w);
    flatten(w, problem.w);
    result.rebuild_ms += ms_since(clock);
    // Warm start: the last iteration's forces (the last step's at the first) in the new frames.
    {
      const Eigen::VectorXd world =
          previous_frames.empty()
              ? warm_world
              : world_forces(previous_frames, Eigen::Map<Eigen::VectorXd>(lambda.data(), 3 * m));
      lambda.resize(3 * static_cast<size_t>(m));
      for (size_t k = 0; k < points.size(); ++k) {
        const Vec3 f = world.segment<3>(3 * static_cast<Eigen::Index>(k));
        const Vec3 local = frames[k] * f;
        for (int r = 0; r < 3; ++r) lambda[3 * k + static_cast<size_t>(r)] = local(r);
      }
    }
    clock = Clock::now();
    const codec::PgsReport report = codec::solve_contact(problem, lambda, pgs, active_set);
    result.pgs_ms += ms_since(clock);
    result.pgs_iterations += report.iterations;
    result.pgs_residual = report.residual;
    lambda_vec = Eigen::Map<const Eigen::VectorXd>(lambda.data(), 3 * m);
    previous_frames = frames;
    clock = Clock::now();
    Eigen::VectorXd next;
    if (o.scheme == ContactScheme::kFast) {
      next = p_free + w_j * world_forces(frames, lambda_vec);
    } else {
      solver.apply_factor_inverse(a, ht * lambda_vec / denom, dv);
      Vec3Array x = p;  // the free motion (p moves only after the loop)
      for (Index vtx = 0; vtx < n; ++vtx) x[static_cast<size_t>(vtx)] += h * dv.segment<3>(3 * vtx);
      next = proximity_points(points, x);
    }
    result.correction_ms += ms_since(clock);
    const double change = (next - positions).lpNorm<Eigen::Infinity>();
    positions = next;
    if (change <= pgs.tolerance) break;  // the directions no longer move
  }
  const Eigen::VectorXd forces = world_forces(frames, lambda_vec);  // on the body, per contact
  // The corrective motion (for the standard scheme, the last iteration's solve).
  if (o.scheme == ContactScheme::kFast) {
    clock = Clock::now();
    solver.apply_factor_inverse(a, jt * forces / denom, dv);
    result.correction_ms += ms_since(clock);
  }
  for (Index vtx = 0; vtx < n; ++vtx) {
    const auto i = static_cast<size_t>(vtx);
    v[i] += dv.segment<3>(3 * vtx);
    p[i] += h * dv.segment<3>(3 * vtx);
    if (!p[i].allFinite() || !v[i].allFinite()) return false;
  }
  result.forces.resize(points.size());
  result.normals.resize(points.size());
  for (size_t k = 0; k < points.size(); ++k) {
    const Vec3 f = forces.segment<3>(3 * static_cast<Eigen::Index>(k));
    result.forces[k] = f;
    result.normals[k] = frames[k].row(0).transpose();
    const ContactPoint& c = points[k];
    if (lambda[3 * k] > 0) {
      memory.push_back({c.obstacle, c.vertices, f});
      ++result.active;
    }
    if (c.obstacle == ContactPoint::kSelf) {
      result.max_penetration = std::max(result.max_penetration, -c.normal.dot(c.position(p)));
      continue;
    }
    result.obstacle_forces[static_cast<size_t>(c.obstacle)] -= f;
    double distance;
    Vec3 normal;
    if (contact_distance(c, posed[static_cast<size_t>(c.obstacle)],
                         centres[static_cast<size_t>(c.obstacle)], c.position(p), distance, normal))
      result.max_penetration = std::max(result.max_penetration, -distance);
  }
  for (size_t i = 0; i < obstacles.size(); ++i) {
    std::vector<Eigen::Index> active;
    for (size_t k = 0; k < points.size(); ++k)
      if (static_cast<size_t>(points[k].obstacle) == i && lambda[3 * k] > 0)
        active.push_back(3 * static_cast<Eigen::Index>(k));
    result.obstacle_contacts[i] = static_cast<int>(active.size());
    if (active.empty()) continue;
    const auto count = static_cast<Eigen::Index>(active.size());
    Eigen::MatrixXd w_nn(count, count), normals(3, count);
    for (Eigen::Index r = 0; r < count; ++r) {
      normals.col(r) =
          frames[static_cast<size_t>(active[static_cast<size_t>(r)] / 3)].row(0).transpose();
      for (Eigen::Index c = 0; c < count; ++c)
        w_nn(r, c) = w(active[static_cast<size_t>(r)], active[static_cast<size_t>(c)]);
    }
    result.obstacle_stiffness[i] = -normals * w_nn.ldlt().solve(normals.transpose());
  }
  for (size_t i = 0; i < obstacles.size(); ++i)
    result.obstacle_models[i] =
        obstacle_model(static_cast<int>(i), centres[i], points, frames, w, problem, lambda);
  return true;
}

}  // namespace softbody
