#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench forces --mesh MESH --threads N --json
void add_forces_benchmark(CLI::App& app);

}  // namespace softbody::bench
