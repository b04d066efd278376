#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench step --scene SCENE --threads N --json
void add_step_benchmark(CLI::App& app);

}  // namespace softbody::bench
