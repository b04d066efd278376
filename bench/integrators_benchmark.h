#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench integrators --json: work against precision of every integrator on the toy spring
// (engine/sim/toy_spring.h), one period at several step counts.
void add_integrators_benchmark(CLI::App& app);

}  // namespace softbody::bench
