#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench alleviation --scene SCENE: the cost of inversion alleviation (seed 004 §5) per
// tetrahedron and sweep, from a random-velocity start that inverts the prediction (issue 23's
// target: <= 0.1 us per tetrahedron per sweep).
void add_alleviation_benchmark(CLI::App& app);

}  // namespace softbody::bench
