#include "engine/solvers/vertex_scalar_system.h"

#include <algorithm>
#include <stdexcept>

namespace softbody {

VertexScalarSystem::VertexScalarSystem(const MeshTopology& topology,
                                       std::vector<std::uint8_t> fixed)
    : n_(topology.num_vertices()), fixed_(std::move(fixed)), factor_(FactorForm::kAuto) {
  fixed_.resize(static_cast<size_t>(n_), 0);
  const auto& edges = topology.edges();
  std::vector<int> column_starts(static_cast<size_t>(n_) + 1, 0), rows;
  edge_offset_.assign(edges.size(), -1);
  edge_free_.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e)
    edge_free_[e] =
        !fixed_[static_cast<size_t>(edges[e][0])] && !fixed_[static_cast<size_t>(edges[e][1])];
  diagonal_offset_.assign(static_cast<size_t>(n_), -1);
  // Column v: every lower neighbour u (edge (u, v), u < v) in increasing order, then v itself.
  std::vector<std::pair<Index, Index>> lower;  // (u, edge)
  for (Index v = 0; v < n_; ++v) {
    lower_neighbours(topology, v, lower);
    column_starts[static_cast<size_t>(v)] = static_cast<int>(rows.size());
    for (const auto& [u, e] : lower) {
      edge_offset_[static_cast<size_t>(e)] = static_cast<int>(rows.size());
      rows.push_back(static_cast<int>(u));
    }
    diagonal_offset_[static_cast<size_t>(v)] = static_cast<int>(rows.size());
    rows.push_back(static_cast<int>(v));
  }
  column_starts.back() = static_cast<int>(rows.size());
  std::vector<double> values(rows.size(), 0.0);
  upper_ = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>>(
      n_, n_, static_cast<Eigen::Index>(rows.size()), column_starts.data(), rows.data(),
      values.data());
  upper_.makeCompressed();
}

FactorInfo VertexScalarSystem::factor(const std::vector<double>& diagonal,
                                      const std::vector<double>& edge_values) {
  if (diagonal.size() != static_cast<size_t>(n_) || edge_values.size() != edge_offset_.size())
    throw std::invalid_argument("VertexScalarSystem::factor: sizes do not match the topology");
  double* values = upper_.valuePtr();
  for (size_t e = 0; e < edge_offset_.size(); ++e) {
    const int k = edge_offset_[e];
    values[k] = edge_free_[e] ? edge_values[e] : 0.0;  // an end fixed: an explicit zero
  }
  for (size_t i = 0; i < diagonal.size(); ++i)
    values[diagonal_offset_[i]] = fixed_[i] ? 1.0 : diagonal[i];
  const UpperCscView view = upper_csc_view(upper_);
  if (!analysed_) {
    factor_.analyze(view);
    analysed_ = true;
  }
  const FactorInfo info = factor_.factorize(view, /*definite_only=*/true);
  if (info.kind != FactorKind::kCholesky)
    throw std::runtime_error("VertexScalarSystem: the matrix is not positive definite");
  change_.clear();
  return info;
}

void VertexScalarSystem::set_diagonal_change(std::vector<std::pair<Index, double>> change) {
  // Fixed vertices stay identity rows; zero changes change nothing. A negative change (an anchor
  // the factor holds, let go) is fine while A + change stays positive definite.
  std::erase_if(change, [&](const std::pair<Index, double>& c) {
    return fixed_[static_cast<size_t>(c.first)] || c.second == 0;
  });
  std::sort(change.begin(), change.end());
  if (change == change_) return;
  change_ = std::move(change);
  if (change_.empty()) return;
  const auto k = static_cast<Eigen::Index>(change_.size());
  Eigen::MatrixXd columns = Eigen::MatrixXd::Zero(n_, k);
  for (Eigen::Index c = 0; c < k; ++c) columns(change_[static_cast<size_t>(c)].first, c) = 1;
  factor_.solve(columns, change_columns_);
  Eigen::MatrixXd capacitance(k, k);
  for (Eigen::Index r = 0; r < k; ++r)
    for (Eigen::Index c = 0; c < k; ++c)
      capacitance(r, c) = change_columns_(change_[static_cast<size_t>(r)].first, c);
  for (Eigen::Index c = 0; c < k; ++c)
    capacitance(c, c) += 1 / change_[static_cast<size_t>(c)].second;
  change_capacitance_.compute(capacitance);
}

void VertexScalarSystem::solve(const Vec3Array& b, Vec3Array& x) const {
  Eigen::MatrixXd rhs(n_, 3), solution;
  for (Index i = 0; i < n_; ++i) rhs.row(i) = b[static_cast<size_t>(i)].transpose();
  factor_.solve(rhs, solution);
  if (!change_.empty()) {
    Eigen::MatrixXd at_change(static_cast<Eigen::Index>(change_.size()), 3);
    for (size_t c = 0; c < change_.size(); ++c)
      at_change.row(static_cast<Eigen::Index>(c)) = solution.row(change_[c].first);
    solution -= change_columns_ * change_capacitance_.solve(at_change);
  }
  x.resize(static_cast<size_t>(n_));
  for (Index i = 0; i < n_; ++i) x[static_cast<size_t>(i)] = solution.row(i).transpose();
}

Vec3Array VertexScalarSystem::multiply(const Vec3Array& x) const {
  Vec3Array y(static_cast<size_t>(n_), Vec3::Zero());
  const int* starts = upper_.outerIndexPtr();
  const int* rows = upper_.innerIndexPtr();
  const double* values = upper_.valuePtr();
  for (Index v = 0; v < n_; ++v)
    for (int k = starts[v]; k < starts[v + 1]; ++k) {
      const auto u = static_cast<size_t>(rows[k]), vv = static_cast<size_t>(v);
      y[u] += values[k] * x[vv];
      if (u != vv) y[vv] += values[k] * x[u];
    }
  for (const auto& [v, d] : change_) y[static_cast<size_t>(v)] += d * x[static_cast<size_t>(v)];
  return y;
}

}  // namespace softbody
