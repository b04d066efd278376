// Command-line parsing for the native tools (softbody-client, softbody-load, softbody-viewer):
// CLI11 with the exit statuses docs/client-cpp.md promises. --help exits 0; a usage error prints
// CLI11's message and exits 1 (CLI11's own codes, 105-109, meant nothing to a script), and a
// missing or unknown subcommand names the valid ones. Header-only: the client library itself does
// not depend on CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace softbody::client {

// The subcommands of `app` as "list, create, ..." in the order they were added.
inline std::string subcommand_names(CLI::App& app) {
  std::string names;
  // (Option groups are nameless subcommands.)
  for (const CLI::App* sub :
       app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The first word of argv that is neither an option nor an option's value, where `app` has
// subcommands: the command the user meant. Empty when there is none.
inline std::string first_command_word(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return i + 1 < argc ? argv[i + 1] : "";
    if (word.size() > 1 && word[0] == '-') {
      if (word.find('=') != std::string::npos) continue;  // --server=ADDR
      const CLI::Option* option = app.get_option_no_throw(word);
      if (option != nullptr && option->get_items_expected_min() > 0) ++i;  // its value
      continue;
    }
    return word;
  }
  return "";
}

// Parses argv. Returns the exit status to end with now (0 after --help or --version, 1 after a
// usage error, said on stderr as "PROGRAM: problem"), or nothing to go on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv,
                                             const std::string& program) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const bool has_subcommands = !subcommand_names(app).empty();
    if (has_subcommands && app.get_subcommands().empty()) {
      // No subcommand was recognized: say which word was taken for one, and the valid ones.
      const std::string word = first_command_word(app, argc, argv);
      if (word.empty())
        std::fprintf(stderr, "%s: a command is required (%s)\n", program.c_str(),
                     subcommand_names(app).c_str());
      else
        std::fprintf(stderr, "%s: unknown command '%s' (commands: %s)\n", program.c_str(),
                     word.c_str(), subcommand_names(app).c_str());
    } else {
      std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    }
    std::fprintf(stderr, "Run with --help for more information.\n");
    return 1;
  }
}

}  // namespace softbody::client
