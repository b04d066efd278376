#include "engine/forces/verification.h"

#include <Eigen/Geometry>
#include <cmath>
#include <random>

namespace softbody {
namespace {

double bbox_diagonal(const Vec3Array& x) {
  return bounding_box(x).diagonal();
}

Vec3Array random_direction(size_t n, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Vec3Array d(n);
  for (Vec3& v : d) v = Vec3(normal(rng), normal(rng), normal(rng));
  return d;
}

Vec3Array axpy(const Vec3Array& p, double h, const Vec3Array& d) {
  Vec3Array out(p.size());
  for (size_t i = 0; i < p.size(); ++i) out[i] = p[i] + h * d[i];
  return out;
}

double dot(const Vec3Array& a, const Vec3Array& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i].dot(b[i]);
  return s;
}

double norm(const Vec3Array& a) {
  return std::sqrt(dot(a, a));
}

// Richardson extrapolation of central differences with steps h and h/2: removes the O(h^2) error
// term, which leaves the differences of polynomial (StVK) energies exact up to round-off.
template <typename T>
T richardson(const T& coarse, const T& fine) {
  return (4.0 * fine - coarse) / 3.0;
}

Eigen::Matrix3d random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Vec3 axis(normal(rng), normal(rng), normal(rng));
  return Eigen::AngleAxisd(2.0 + 0.5 * std::uniform_real_distribution<double>(-1, 1)(rng),
                           axis.normalized())
      .toRotationMatrix();
}

}  // namespace

Vec3Array random_rigid_motion(const Vec3Array& rest, unsigned seed) {
  std::mt19937 rng(seed);
  Mat3 r = random_rotation(rng);
  std::normal_distribution<double> normal;
  Vec3 t = bbox_diagonal(rest) * Vec3(normal(rng), normal(rng), normal(rng));
  Vec3Array p(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) p[i] = r * rest[i] + t;
  return p;
}

Vec3Array random_smooth_deformation(const Vec3Array& rest, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const double diag = bbox_diagonal(rest);
  constexpr int kModes = 4;
  struct Mode {
    Vec3 wave, amplitude;
    double phase;
  };
  std::array<Mode, kModes> modes;
  for (Mode& m : modes) {
    m.wave = Vec3(uniform(rng), uniform(rng), uniform(rng)) * (3.0 / diag);
    m.amplitude = Vec3(uniform(rng), uniform(rng), uniform(rng)) * (scale * diag / kModes);
    m.phase = 3.0 * uniform(rng);
  }
  Mat3 r = random_rotation(rng);
  Vec3 t = diag * Vec3(uniform(rng), uniform(rng), uniform(rng));
  Vec3Array p(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    Vec3 u = Vec3::Zero();
    for (const Mode& m : modes) u += m.amplitude * std::sin(m.wave.dot(rest[i]) + m.phase);
    p[i] = r * (rest[i] + u) + t;
  }
  return p;
}

double force_vs_energy_error(const ForceModel& model, const Vec3Array& p,
                             const FiniteDifferenceOptions& options) {
  std::mt19937 rng(options.seed);
  auto ws = model.make_workspace();
  ForceOutput out;
  model.evaluate(p, kEvalForces, *ws, out);
  const Vec3Array f = out.f;
  const double h = options.step * bbox_diagonal(p);
  double worst = 0;
  for (int k = 0; k < options.directions; ++k) {
    Vec3Array d = random_direction(p.size(), rng);
    auto central = [&](double step) {
      model.evaluate(axpy(p, step, d), kEvalEnergy, *ws, out);
      double plus = out.energy;
      model.evaluate(axpy(p, -step, d), kEvalEnergy, *ws, out);
      return (plus - out.energy) / (2 * step);
    };
    double fd = richardson(central(h), central(h / 2));
    worst = std::max(worst, std::abs(fd - dot(f, d)) / (norm(f) * norm(d)));
  }
  return worst;
}

double stiffness_vs_force_error(const ForceModel& model, const Vec3Array& p,
                                const FiniteDifferenceOptions& options) {
  std::mt19937 rng(options.seed);
  auto ws = model.make_workspace();
  ForceOutput out;
  model.evaluate(p, kEvalStiffness, *ws, out);
  const EdgeBlockMatrix k = out.K;
  const double h = options.step * bbox_diagonal(p);
  double worst = 0;
  Vec3Array kd;
  for (int n = 0; n < options.directions; ++n) {
    Vec3Array d = random_direction(p.size(), rng);
    k.multiply(model.topology(), d, kd);
    auto central = [&](double step) {
      model.evaluate(axpy(p, step, d), kEvalForces, *ws, out);
      Vec3Array diff = out.f;
      model.evaluate(axpy(p, -step, d), kEvalForces, *ws, out);
      for (size_t i = 0; i < p.size(); ++i) diff[i] = (diff[i] - out.f[i]) / (2 * step);
      return diff;
    };
    Vec3Array coarse = central(h), fine = central(h / 2);
    double diff = 0;
    for (size_t i = 0; i < p.size(); ++i)
      diff += (richardson(coarse[i], fine[i]) - kd[i]).squaredNorm();
    worst = std::max(worst, std::sqrt(diff) / norm(kd));
  }
  return worst;
}

ModelDifference compare_models(const ForceModel& a, const ForceModel& b, const Vec3Array& p) {
  ForceOutput oa = a.evaluate(p, kEvalAll), ob = b.evaluate(p, kEvalAll);
  return {relative_difference(oa.f, ob.f), relative_difference(oa.K, ob.K),
          std::abs(oa.energy - ob.energy) / std::abs(ob.energy)};
}

}  // namespace softbody
