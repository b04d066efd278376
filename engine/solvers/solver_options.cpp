#include "engine/solvers/solver_options.h"

#include <stdexcept>

namespace softbody {
namespace {

template <typename Enum, size_t N>
const char* name_of(Enum value, const std::pair<Enum, const char*> (&names)[N]) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "?";
}

template <typename Enum, size_t N>
Enum parse(const std::string& text, const std::pair<Enum, const char*> (&names)[N],
           const char* what) {
  std::string list;
  for (const auto& [v, name] : names) {
    if (text == name) return v;
    list += (list.empty() ? "" : ", ") + std::string(name);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " '" + text + "' (" + list + ")");
}

constexpr std::pair<SolverType, const char*> kSolverNames[] = {
    {SolverType::kAuto, "auto"}, {SolverType::kDirect, "direct"},
    {SolverType::kCg, "cg"},     {SolverType::kBiCgStab, "bicgstab"},
    {SolverType::kQmr, "qmr"},   {SolverType::kGmres, "gmres"}};
constexpr std::pair<PreconditionerType, const char*> kPreconditionerNames[] = {
    {PreconditionerType::kNone, "none"},
    {PreconditionerType::kJacobi, "jacobi"},
    {PreconditionerType::kBlockJacobi, "block-jacobi"},
    {PreconditionerType::kSsor, "ssor"},
    {PreconditionerType::kIncompleteCholesky, "ic"},
    {PreconditionerType::kFactor, "factor"}};
constexpr std::pair<RefactorMode, const char*> kRefactorNames[] = {
    {RefactorMode::kSync, "sync"}, {RefactorMode::kBackground, "background"}};
constexpr std::pair<StopReason, const char*> kStopNames[] = {
    {StopReason::kConverged, "converged"},
    {StopReason::kMaxIterations, "max_iterations"},
    {StopReason::kTimeBudget, "time_budget"},
    {StopReason::kBreakdown, "breakdown"},
    {StopReason::kNonFinite, "non_finite"}};
constexpr std::pair<FactorKind, const char*> kFactorNames[] = {
    {FactorKind::kNone, "none"},
    {FactorKind::kCholesky, "cholesky"},
    {FactorKind::kLdlt, "ldlt"},
    {FactorKind::kShiftedCholesky, "shifted-cholesky"}};

}  // namespace

const char* solver_type_name(SolverType type) {
  return name_of(type, kSolverNames);
}
SolverType parse_solver_type(const std::string& name) {
  return parse(name, kSolverNames, "solver");
}
const char* preconditioner_name(PreconditionerType p) {
  return name_of(p, kPreconditionerNames);
}
PreconditionerType parse_preconditioner(const std::string& name) {
  return parse(name, kPreconditionerNames, "preconditioner");
}
const char* refactor_mode_name(RefactorMode mode) {
  return name_of(mode, kRefactorNames);
}
RefactorMode parse_refactor_mode(const std::string& name) {
  return parse(name, kRefactorNames, "refactor mode");
}
const char* stop_reason_name(StopReason reason) {
  return name_of(reason, kStopNames);
}
const char* factor_kind_name(FactorKind kind) {
  return name_of(kind, kFactorNames);
}

}  // namespace softbody
