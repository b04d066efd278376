#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench solver --scene SCENE --threads N: the linear solvers on a scene's step matrix.
void add_solver_benchmark(CLI::App& app);

}  // namespace softbody::bench
