#include "engine/scene/contact_section.h"

namespace softbody {

ContactOptions read_contact_options(JsonReader& root) {
  ContactOptions o;
  if (!root.has("contact")) return o;
  JsonReader c = root.object("contact");
  const std::string scheme = c.string("scheme", "standard");
  if (scheme == "standard") {
    o.scheme = ContactScheme::kStandard;
  } else if (scheme == "fast") {
    o.scheme = ContactScheme::kFast;
  } else {
    c.fail("scheme", "must be standard or fast");
  }
  o.newton_iterations = c.integer("newton_iterations", o.newton_iterations);
  if (o.newton_iterations < 1 || o.newton_iterations > 100)
    c.fail("newton_iterations", "must lie in [1, 100]");
  o.pgs_iterations = c.integer("pgs_iterations", o.pgs_iterations);
  if (o.pgs_iterations < 1 || o.pgs_iterations > 100000)
    c.fail("pgs_iterations", "must lie in [1, 100000]");
  o.tolerance = c.number("tolerance", o.tolerance);
  if (!(o.tolerance > 0 && o.tolerance < 0.1))
    c.fail("tolerance", "must lie in (0, 0.1) (of the body's size)");
  const std::string compliance = c.string("compliance", "fresh");
  if (compliance != "fresh" && compliance != "reused")
    c.fail("compliance", "must be fresh or reused");
  o.fresh_compliance = compliance == "fresh";
  o.margin = c.number("margin", o.margin);
  if (!(o.margin >= 0 && o.margin <= 1))
    c.fail("margin", "must lie in [0, 1] (of the body's size)");
  if (c.has("self")) {
    JsonReader self = c.object("self");
    o.self = self.boolean("enabled", true);
    o.self_mu = self.number("mu", 0.0);
    o.self_continuous = self.boolean("continuous", true);
    if (!(o.self_mu >= 0 && o.self_mu <= 10)) self.fail("mu", "must lie in [0, 10]");
    self.finish();
  }
  c.finish();
  return o;
}

bool solver_keeps_factor(const SolverOptions& s) {
  return s.type == SolverType::kAuto || s.type == SolverType::kDirect ||
         s.preconditioner == PreconditionerType::kFactor;
}

bool steps_constraint_contact(const IntegratorOptions& options) {
  return integrator_runs_contact_stage(options.type) && solver_keeps_factor(options.solver);
}

void check_constraint_contact(const SimulationModel& model, JsonReader& root) {
  if (model.contact.self) {
    JsonReader self = root.object("contact").object("self");
    if (!integrator_runs_contact_stage(model.options.type))
      self.fail("enabled", "self contact needs integrator " + contact_stage_integrator_names());
    if (!solver_keeps_factor(model.options.solver))
      self.fail("enabled", "self contact needs a factor: solver auto or direct");
  }
  if (solver_keeps_factor(model.options.solver)) return;
  for (size_t i = 0; i < model.obstacles.size(); ++i)
    if (model.obstacles[i].contact.model == ContactModel::kConstraint) {
      JsonReader o =
          element_reader(root.array("obstacles")[i], "/obstacles", i, root.source(), root.length());
      o.object("contact").fail("model", "'constraint' needs a factor: solver auto or direct");
    }
}

}  // namespace softbody
