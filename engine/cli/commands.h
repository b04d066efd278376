// Sub-commands of softbody-sim; each adds itself to the CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace softbody::cli {

void add_info_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_static_command(CLI::App& app);
void add_settings_command(CLI::App& app);

// Options shared by commands that build a force model.
struct ModelOptions {
  std::string model = "stvk-edge";
  std::string volumetric = "none";
  double youngs_modulus = 1e5;
  double poisson_ratio = 0.4;
  int threads = 0;
};
void add_model_options(CLI::App& command, ModelOptions& options);

}  // namespace softbody::cli
