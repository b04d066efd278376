// SSOR with omega = 1 (symmetric block Gauss-Seidel) on the constrained edge-block matrix,
// A = L + D + U with D the 3x3 vertex blocks and L, U the edge blocks below and above them:
// M = (D + L) D^-1 (D + U). As a preconditioner object it serves BiCGStab, QMR and GMRES; for CG it
// runs in Eisenstat's form (seed 001 thesis §3.4.3, "cgeis"; Eisenstat 1981): CG on
// (D+L)^-1 A (D+U)^-1 with the inner preconditioner D, whose product needs one forward and one
// backward sweep and no product with A, so the preconditioning comes almost for free. The sweeps
// are sequential by nature (each vertex needs its predecessors).
#pragma once

#include "engine/solvers/linear_operator.h"
#include "engine/solvers/preconditioner.h"

namespace softbody {

class BlockSsor final : public LinearPreconditioner {
 public:
  // Keeps a reference to `a` (and so to its matrix): both must outlive this object.
  explicit BlockSsor(const ConstrainedBlockOperator& a);

  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override;
  void apply_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override;
  // M is symmetric positive definite when A is symmetric with positive definite vertex blocks.
  bool symmetric_positive_definite() const override { return spd_; }

  // SSOR-preconditioned CG in Eisenstat's form. Its iterates equal those of CG with `apply` as
  // the preconditioner (up to round-off); the residual it tests is the true b - A x. A sweep pair
  // counts as one matrix product in the report.
  SolveReport eisenstat_cg(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                           const SolverOptions& options) const;

 private:
  // Solves (D~ + L) y = r (`lower`) or (D~ + U) y = r, with D~ the sweep diagonal (D, or the
  // identity for a singular vertex block); `transpose` uses D~^T (for M^-T).
  void sweep(const Eigen::VectorXd& r, Eigen::VectorXd& y, bool transpose, bool lower) const;
  void multiply_diagonal(const std::vector<Mat3>& blocks, const Eigen::VectorXd& x,
                         Eigen::VectorXd& y) const;
  // y = L x (the strictly lower block part).
  void multiply_lower(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;

  const ConstrainedBlockOperator& a_;
  std::vector<Mat3> sweep_diagonal_, sweep_inverse_;
  std::vector<Mat3> correction_;  // 2 D~ - D: equals D unless a block was singular
  bool spd_ = true;
};

}  // namespace softbody
