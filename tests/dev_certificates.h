// A development authority and server certificate for TLS tests (scripts/dev-cert.sh: ca.pem,
// server.pem, server.key in `dir`; names localhost, 127.0.0.1 and ::1).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace softbody::test {

inline void make_dev_certificates(const std::string& dir) {
  const std::string command =
      std::string(SOFTBODY_SOURCE_DIR) + "/scripts/dev-cert.sh " + dir + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace softbody::test
