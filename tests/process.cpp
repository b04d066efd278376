#include "tests/process.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace softbody::test {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

ProcessResult run_process(const std::string& command_line) {
  std::random_device rd;
  auto base = std::filesystem::temp_directory_path() / ("softbody-proc-" + std::to_string(rd()));
  std::string out = base.string() + ".out", err = base.string() + ".err";
  int status = std::system((command_line + " > " + out + " 2> " + err + " < /dev/null").c_str());
  ProcessResult result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return result;
}

}  // namespace softbody::test
