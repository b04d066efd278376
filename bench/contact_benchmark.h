#pragma once

#include <CLI/CLI.hpp>

namespace softbody::bench {

// softbody-bench contact --json: seed 002's Table 1 on our CPU, the standard against the fast
// constraint update per Newton iteration, on a block resting on a plate of ~400 vertex contacts.
void add_contact_benchmark(CLI::App& app);

}  // namespace softbody::bench
