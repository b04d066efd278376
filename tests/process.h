// Runs a command line as a child process and captures its exit status and output.
#pragma once

#include <string>

namespace softbody::test {

struct ProcessResult {
  int exit_code;
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::string& command_line);

}  // namespace softbody::test
