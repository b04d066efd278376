// The one table of integrators: name, type and how to build it. Scene parsing, the CLI, the
// server's settings and the docs take their names from here.
#include <stdexcept>

#include "engine/sim/bdf_newton.h"
#include "engine/sim/integrator.h"
#include "engine/sim/linearized_backward_euler.h"
#include "engine/sim/projective_dynamics.h"
#include "engine/sim/quasi_newton.h"
#include "engine/sim/vertex_block_descent.h"
#include "engine/sim/xpbd.h"

namespace softbody {
namespace {

struct IntegratorEntry {
  IntegratorType type;
  const char* name;
  std::unique_ptr<Integrator> (*make)(std::shared_ptr<const SimulationModel>);
  bool contact_stage;  // runs ContactStage after its free motion (self contact needs it)
};

template <typename T>
std::unique_ptr<Integrator> make(std::shared_ptr<const SimulationModel> model) {
  return std::make_unique<T>(std::move(model));
}

template <int kOrder>
std::unique_ptr<Integrator> make_bdf(std::shared_ptr<const SimulationModel> model) {
  return std::make_unique<BdfNewton>(std::move(model), kOrder);
}

constexpr IntegratorEntry kIntegrators[] = {
    {IntegratorType::kLinearizedBackwardEuler, "linearized-backward-euler",
     make<LinearizedBackwardEuler>, true},
    {IntegratorType::kImplicitEuler, "implicit-euler", make_bdf<1>, true},
    {IntegratorType::kBdf2, "bdf2", make_bdf<2>, true},
    {IntegratorType::kBdf3, "bdf3", make_bdf<3>, true},
    {IntegratorType::kVbd, "vbd", make<VertexBlockDescent>, false},
    {IntegratorType::kProjective, "projective", make<ProjectiveDynamics>, false},
    {IntegratorType::kQuasiNewton, "quasi-newton", make<QuasiNewton>, false},
    {IntegratorType::kXpbd, "xpbd", make<Xpbd>, false},
};

const IntegratorEntry& entry(IntegratorType type) {
  for (const IntegratorEntry& e : kIntegrators)
    if (e.type == type) return e;
  throw std::invalid_argument("unknown integrator type");
}

}  // namespace

const char* integrator_type_name(IntegratorType type) {
  return entry(type).name;
}

IntegratorType parse_integrator_type(const std::string& name) {
  std::string list;
  for (const IntegratorEntry& e : kIntegrators) {
    if (name == e.name) return e.type;
    list += (list.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument("unknown integrator '" + name + "' (" + list + ")");
}

std::vector<std::string> integrator_type_names() {
  std::vector<std::string> names;
  for (const IntegratorEntry& e : kIntegrators) names.emplace_back(e.name);
  return names;
}

bool integrator_runs_contact_stage(IntegratorType type) {
  return entry(type).contact_stage;
}

std::string contact_stage_integrator_names() {
  std::vector<const char*> names;
  for (const IntegratorEntry& e : kIntegrators)
    if (e.contact_stage) names.push_back(e.name);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return list;
}

std::unique_ptr<Integrator> make_integrator(std::shared_ptr<const SimulationModel> model) {
  const IntegratorType type = model->options.type;
  return entry(type).make(std::move(model));
}

}  // namespace softbody
