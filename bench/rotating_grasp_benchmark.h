#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench rotating-grasp --json: seed 002's experiment on our engine: two capsule fingers
// squeeze a soft cube and turn it about its centre; penetration, shape error and slip for m
// re-linearizations of the contact directions per step against a run with a tenth of the step.
void add_rotating_grasp_benchmark(CLI::App& app);

}  // namespace softbody::bench
