#include "engine/cli/commands.h"
#include "engine/forces/force_model.h"

namespace softbody::cli {

void add_model_options(CLI::App& command, ModelOptions& options) {
  command.add_option("--model", options.model, "force model")
      ->check(CLI::IsMember(force_model_names()))
      ->capture_default_str();
  command.add_option("--volumetric", options.volumetric, "volumetric penalty term")
      ->check(CLI::IsMember({"none", "cubic", "quadratic"}))
      ->capture_default_str();
  command.add_option("--E", options.youngs_modulus, "Young's modulus [Pa]")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--nu", options.poisson_ratio, "Poisson's ratio")
      ->check(CLI::Range(-0.999, 0.4999))
      ->capture_default_str();
  command.add_option("--threads", options.threads, "OpenMP threads (0: all cores)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace softbody::cli
