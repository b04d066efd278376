// softbody-sim: the headless command-line front end of the engine.
#include <iostream>

#include "engine/cli/commands.h"
#include "engine/io/mesh_error.h"
#include "engine/scene/scene.h"

int main(int argc, char** argv) {
  CLI::App app{
      "softbody-sim: tetrahedral soft-body engine tools (mesh info, force checks, evaluation, "
      "conversion)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "softbody-sim 0.1.0");
  softbody::cli::add_info_command(app);
  softbody::cli::add_check_command(app);
  softbody::cli::add_eval_command(app);
  softbody::cli::add_convert_command(app);
  softbody::cli::add_run_command(app);
  softbody::cli::add_static_command(app);
  softbody::cli::add_settings_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const softbody::SceneError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  } catch (const softbody::MeshError& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
