// The server under test: the built softbody-server with the project's scenes.
#pragma once

#include "server/server_process.h"

namespace softbody::test {

using server::http_get;

class TestServer : public server::ServerProcess {
 public:
  explicit TestServer(std::vector<std::string> flags = {})
      : ServerProcess(SOFTBODY_SERVER, SOFTBODY_SCENES, std::move(flags)) {}
};

}  // namespace softbody::test
