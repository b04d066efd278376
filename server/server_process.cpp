#include "server/server_process.h"

#include <arpa/inet.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace softbody::server {

ServerProcess::ServerProcess(const std::string& binary, const std::string& scenes,
                             std::vector<std::string> flags) {
  char pattern[] = "/tmp/softbody-server-test-XXXXXX";
  dir_ = mkdtemp(pattern);
  const std::string ready = dir_ + "/ready.json";
  std::vector<std::string> args = {
      binary,      "--grpc", "127.0.0.1:0",  "--http", "127.0.0.1:0", "--scenes", scenes,
      "--preload", "",       "--ready-file", ready,    "--log-level", "info"};
  args.insert(args.end(), flags.begin(), flags.end());
  pid_ = fork();
  if (pid_ == 0) {
    const std::string log = dir_ + "/server.log";
    FILE* f = std::freopen(log.c_str(), "w", stderr);
    (void)f;
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Wait (up to 60 s on a loaded machine) for the ready file the server writes once listening.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(ready)) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("softbody-server exited at startup: " + log());
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("softbody-server did not start: " + log());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::ifstream in(ready);
  const nlohmann::json j = nlohmann::json::parse(in);
  grpc_port_ = j.at("grpc_port");
  http_port_ = j.at("http_port");
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && terminate() < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::filesystem::remove_all(dir_);
}

std::shared_ptr<grpc::Channel> ServerProcess::channel() const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 * 1024 * 1024);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(grpc_port_),
                                   grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<softbody::v1::Simulation::Stub> ServerProcess::stub() const {
  return softbody::v1::Simulation::NewStub(channel());
}

int ServerProcess::terminate(double timeout_s) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

bool ServerProcess::alive() const {
  return pid_ > 0 && kill(pid_, 0) == 0;
}

std::string ServerProcess::log() const {
  std::ifstream in(dir_ + "/server.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::pair<int, std::string> http_get(int port, const std::string& path, std::string* headers,
                                     const std::string& authorization) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return {0, ""};
  }
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
      (authorization.empty() ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
  (void)!write(fd, request.data(), request.size());
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) response.append(buffer, static_cast<size_t>(n));
  close(fd);
  const auto space = response.find(' ');
  const auto body = response.find("\r\n\r\n");
  if (space == std::string::npos || body == std::string::npos) return {0, response};
  if (headers) *headers = response.substr(0, body);
  return {std::stoi(response.substr(space + 1, 3)), response.substr(body + 4)};
}

}  // namespace softbody::server
