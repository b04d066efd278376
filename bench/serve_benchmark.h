// softbody-bench serve: the server under a haptic and streaming load on loopback (issue 4 §5).
#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {
void add_serve_benchmark(CLI::App& app);
}
