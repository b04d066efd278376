#include "engine/scene/step_section.h"

#include "engine/scene/setting_reader.h"
#include "engine/sim/potential_minimizer.h"
#include "engine/sim/vertex_block_descent.h"
#include "engine/sim/xpbd.h"

namespace softbody {

void read_step_options(JsonReader& root, bool viscous_material, IntegratorOptions& o) {
  o.dt = read_number_setting(root, "/dt", 0.01);
  if (root.has("damping")) {
    JsonReader d = root.object("damping");
    o.alpha = read_number_setting(d, "/damping/alpha", 0);
    o.beta = read_number_setting(d, "/damping/beta", 0);
    // beta multiplies the tangent, which for a viscous material holds the viscous one too.
    if (o.beta != 0 && viscous_material)
      d.fail("beta",
             "must be 0 with material.viscoelastic or material.rate_damping: the "
             "material's own viscosity replaces stiffness-proportional damping (alpha "
             "stays available)");
    d.finish();
  }
  if (root.has("integrator")) {
    JsonReader i = root.object("integrator");
    o.type = parse_integrator_type(
        read_choice_setting(i, "/integrator/type", integrator_type_name(o.type)));
    o.correction = i.boolean("correction", o.correction);
    const std::string definiteness =
        i.string("definiteness", o.solver.definite ? "shift" : "exact");
    if (definiteness != "shift" && definiteness != "exact")
      i.fail("definiteness", "unknown definiteness '" + definiteness + "' (shift, exact)");
    o.solver.definite = definiteness == "shift";
    o.correction_speed = i.number("V", o.correction_speed / root.length(), 1);
    if (!(o.correction_speed > 0)) i.fail("V", "must be > 0");
    if (i.has("newton")) {
      JsonReader nw = i.object("newton");
      NewtonOptions& newton = o.newton;
      newton.tolerance = nw.number("tolerance", newton.tolerance);
      if (!(newton.tolerance >= 1e-14 && newton.tolerance < 1))
        nw.fail("tolerance", "must be in [1e-14, 1)");
      newton.forcing = nw.number("forcing", newton.forcing);
      if (!(newton.forcing >= 1e-14 && newton.forcing < 1))
        nw.fail("forcing", "must be in [1e-14, 1)");
      newton.max_iterations = nw.integer("max_iterations", newton.max_iterations);
      if (newton.max_iterations < 1 || newton.max_iterations > 1000)
        nw.fail("max_iterations", "must be in [1, 1000]");
      newton.descent_iterations = nw.integer("descent_iterations", newton.descent_iterations);
      if (newton.descent_iterations < 0 || newton.descent_iterations > 1000)
        nw.fail("descent_iterations", "must be in [0, 1000]");
      nw.finish();
    }
    o.iterations = read_integer_setting(i, "/integrator/iterations", o.iterations);
    o.substeps = read_integer_setting(i, "/integrator/substeps", o.substeps);
    o.chebyshev = i.number("chebyshev", o.chebyshev);
    if (!(o.chebyshev >= 0 && o.chebyshev < 1)) i.fail("chebyshev", "must lie in [0, 1)");
    if (i.has("alleviation")) {
      JsonReader a = i.object("alleviation");
      o.alleviation_sweeps = read_integer_setting(a, "/integrator/alleviation/sweeps", 1);
      a.finish();
    }
    i.finish();
  }
  if (root.has("solver")) {
    JsonReader s = root.object("solver");
    o.solver.type = parse_solver_type(read_choice_setting(s, "/solver/type", "auto"));
    o.solver.preconditioner =
        parse_preconditioner(read_choice_setting(s, "/solver/preconditioner", "none"));
    o.solver.refactor = parse_refactor_mode(read_choice_setting(s, "/solver/refactor", "sync"));
    o.solver.tolerance = read_number_setting(s, "/solver/tolerance", o.solver.tolerance);
    o.solver.max_iterations =
        read_integer_setting(s, "/solver/max_iterations", o.solver.max_iterations);
    o.solver.time_budget_s = s.number("time_budget", 0);
    s.finish();
  }
  if (root.has("robustness")) {
    JsonReader r = root.object("robustness");
    o.max_speed = r.number("max_speed", o.max_speed / root.length(), 1);
    o.max_retries = r.integer("max_retries", o.max_retries);
    if (o.max_retries < 0 || o.max_retries > 8) r.fail("max_retries", "must lie in [0, 8]");
    r.finish();
  }
}

void check_integrator(const SimulationModel& model, JsonReader& root) {
  const IntegratorType type = model.options.type;
  try {
    if (type == IntegratorType::kVbd) check_vbd_model(model);
    if (type == IntegratorType::kXpbd) check_xpbd_model(model);
    if (type == IntegratorType::kProjective || type == IntegratorType::kQuasiNewton)
      check_potential_model(model, integrator_type_name(type));
  } catch (const std::invalid_argument& e) {
    root.object("integrator").fail("type", e.what());
  }
}

}  // namespace softbody
