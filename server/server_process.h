// Starts a real softbody-server child process on free loopback ports (for integration tests and
// benchmarks) and stops it with SIGTERM, as an operator would.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::server {

class ServerProcess {
 public:
  // `binary`: the softbody-server executable; `scenes`: its --scenes folder; extra flags, e.g.
  // {"--max-sessions", "2"} or {"--grpc", "127.0.0.1:PORT"} to reuse a port. Waits until the server
  // listens; throws if it does not start.
  ServerProcess(const std::string& binary, const std::string& scenes,
                std::vector<std::string> flags = {});
  ~ServerProcess();

  int grpc_port() const { return grpc_port_; }
  int http_port() const { return http_port_; }
  std::shared_ptr<grpc::Channel> channel() const;
  std::unique_ptr<softbody::v1::Simulation::Stub> stub() const;
  // Sends SIGTERM and waits; returns the exit status (or -1 after `timeout_s`).
  int terminate(double timeout_s = 20);
  bool alive() const;
  int pid() const { return pid_; }
  std::string log() const;  // what the server wrote to stderr so far

 private:
  int pid_ = -1;
  int grpc_port_ = 0, http_port_ = 0;
  std::string dir_;
};

// A GET on the server's HTTP port: status code and body.
// `authorization`: the Authorization header to send ("" for none).
std::pair<int, std::string> http_get(int port, const std::string& path,
                                     std::string* headers = nullptr,
                                     const std::string& authorization = "");

}  // namespace softbody::server
