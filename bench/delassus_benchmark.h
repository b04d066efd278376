#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench delassus --scene SCENE --json: contact compliance W = J A^-1 J^T (issue 22) with
// the step solver's reused factor against a fresh factor of each step's matrix.
void add_delassus_benchmark(CLI::App& app);

}  // namespace softbody::bench
