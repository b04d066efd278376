#include "engine/sim/trajectory.h"

#include <muParser.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace softbody {

Vec3 Trajectory::velocity(double t) const {
  constexpr double h = 1e-5;
  return (position(t + h) - position(t - h)) / (2 * h);
}

namespace {

class ConstantTrajectory final : public Trajectory {
 public:
  explicit ConstantTrajectory(const Vec3& p) : p_(p) {}
  Vec3 position(double) const override { return p_; }
  Vec3 velocity(double) const override { return Vec3::Zero(); }
  bool still() const override { return true; }

 private:
  Vec3 p_;
};

class SampledTrajectory final : public Trajectory {
 public:
  SampledTrajectory(const Vec3& p, const Vec3& v) : p_(p), v_(v) {}
  Vec3 position(double) const override { return p_; }
  Vec3 velocity(double) const override { return v_; }

 private:
  Vec3 p_, v_;
};

class KeyframeTrajectory final : public Trajectory {
 public:
  KeyframeTrajectory(std::vector<Keyframe> k, Interpolation interpolation)
      : keys_(std::move(k)), cubic_(interpolation == Interpolation::kCubic) {
    if (keys_.empty()) throw std::invalid_argument("keyframes: at least one keyframe is needed");
    for (size_t i = 1; i < keys_.size(); ++i) {
      if (!(keys_[i].t > keys_[i - 1].t))
        throw std::invalid_argument("keyframes: times must increase");
    }
  }
  Vec3 position(double t) const override { return evaluate(t, false); }
  Vec3 velocity(double t) const override { return evaluate(t, true); }
  bool still() const override {
    return std::all_of(keys_.begin(), keys_.end(),
                       [&](const Keyframe& k) { return k.position == keys_.front().position; });
  }

 private:
  // Cubic Hermite on each interval with Catmull-Rom tangents (one-sided at the ends).
  Vec3 evaluate(double t, bool derivative) const {
    if (keys_.size() == 1 || t <= keys_.front().t)
      return derivative ? Vec3::Zero() : keys_.front().position;
    if (t >= keys_.back().t) return derivative ? Vec3::Zero() : keys_.back().position;
    auto it = std::upper_bound(keys_.begin(), keys_.end(), t,
                               [](double x, const Keyframe& k) { return x < k.t; });
    const size_t i = static_cast<size_t>(it - keys_.begin()) - 1;
    const Keyframe &a = keys_[i], &b = keys_[i + 1];
    const double dt = b.t - a.t, s = (t - a.t) / dt;
    if (!cubic_)
      return derivative ? Vec3((b.position - a.position) / dt)
                        : Vec3(a.position + s * (b.position - a.position));
    auto tangent = [&](size_t k) -> Vec3 {
      const size_t lo = k == 0 ? 0 : k - 1, hi = std::min(k + 1, keys_.size() - 1);
      return (keys_[hi].position - keys_[lo].position) / (keys_[hi].t - keys_[lo].t);
    };
    const Vec3 ma = tangent(i) * dt, mb = tangent(i + 1) * dt;
    if (derivative) {
      const double s2 = s * s;
      return ((6 * s2 - 6 * s) * a.position + (3 * s2 - 4 * s + 1) * ma +
              (-6 * s2 + 6 * s) * b.position + (3 * s2 - 2 * s) * mb) /
             dt;
    }
    const double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * a.position + (s3 - 2 * s2 + s) * ma +
           (-2 * s3 + 3 * s2) * b.position + (s3 - s2) * mb;
  }

  std::vector<Keyframe> keys_;
  bool cubic_;
};

class FormulaTrajectory final : public Trajectory {
 public:
  FormulaTrajectory(std::vector<FormulaPiece> pieces, double scale)
      : pieces_(std::move(pieces)), scale_(scale) {
    if (pieces_.empty()) throw std::invalid_argument("formula trajectory: no pieces");
    parsers_.resize(pieces_.size());
    for (size_t i = 0; i < pieces_.size(); ++i) {
      if (!(pieces_[i].to > pieces_[i].from))
        throw std::invalid_argument("formula trajectory: piece " + std::to_string(i) +
                                    " has to <= from");
      for (size_t k = 0; k < 3; ++k) {
        mu::Parser& p = parsers_[i][k];
        p.DefineVar("t", &t_);
        p.DefineConst("pi", 3.14159265358979323846);
        try {
          p.SetExpr(pieces_[i].position[k]);
          t_ = pieces_[i].from;
          p.Eval();  // reports syntax errors and unknown names now, not mid-simulation
        } catch (const mu::Parser::exception_type& e) {
          throw std::invalid_argument("formula '" + pieces_[i].position[k] + "': " + e.GetMsg());
        }
      }
    }
  }

  Vec3 position(double t) const override {
    size_t i = 0;
    while (i + 1 < pieces_.size() && t >= pieces_[i].to) ++i;
    const double clamped = std::clamp(t, pieces_.front().from, pieces_.back().to);
    std::lock_guard<std::mutex> lock(mutex_);  // muparser evaluates through the shared variable t_
    t_ = i == 0 ? std::max(clamped, pieces_[0].from) : clamped;
    if (i + 1 == pieces_.size()) t_ = std::min(t_, pieces_[i].to);
    Vec3 x;
    for (size_t k = 0; k < 3; ++k) x[static_cast<Eigen::Index>(k)] = scale_ * parsers_[i][k].Eval();
    return x;
  }

 private:
  std::vector<FormulaPiece> pieces_;
  double scale_;
  mutable double t_ = 0;
  mutable std::vector<std::array<mu::Parser, 3>> parsers_;
  mutable std::mutex mutex_;
};

class OffsetTrajectory final : public Trajectory {
 public:
  OffsetTrajectory(std::shared_ptr<const Trajectory> offset, const Vec3& base)
      : offset_(std::move(offset)), base_(base) {}
  Vec3 position(double t) const override { return base_ + offset_->position(t); }
  Vec3 velocity(double t) const override { return offset_->velocity(t); }
  bool still() const override { return offset_->still(); }

 private:
  std::shared_ptr<const Trajectory> offset_;
  Vec3 base_;
};

}  // namespace

std::unique_ptr<Trajectory> make_offset_trajectory(std::shared_ptr<const Trajectory> offset,
                                                   const Vec3& base) {
  return std::make_unique<OffsetTrajectory>(std::move(offset), base);
}

std::unique_ptr<Trajectory> make_constant_trajectory(const Vec3& position) {
  return std::make_unique<ConstantTrajectory>(position);
}

std::unique_ptr<Trajectory> make_sampled_trajectory(const Vec3& position, const Vec3& velocity) {
  return std::make_unique<SampledTrajectory>(position, velocity);
}

std::unique_ptr<Trajectory> make_keyframe_trajectory(std::vector<Keyframe> keyframes,
                                                     Interpolation interpolation) {
  return std::make_unique<KeyframeTrajectory>(std::move(keyframes), interpolation);
}

std::unique_ptr<Trajectory> make_formula_trajectory(std::vector<FormulaPiece> pieces,
                                                    double scale) {
  return std::make_unique<FormulaTrajectory>(std::move(pieces), scale);
}

}  // namespace softbody
