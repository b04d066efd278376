// The delaying proxy (client-cpp/net/delay_proxy.h) between a client and an echo server on
// loopback: nothing arrives before its delay, the byte stream arrives whole and in order through
// jitter and loss, losses are drawn, and bad conditions are refused by name.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "client-cpp/net/delay_proxy.h"

namespace softbody::client {
namespace {

using Clock = std::chrono::steady_clock;

// Echoes every byte of one connection back.
class EchoServer {
 public:
  EchoServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), n), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buffer[4096];
      ssize_t got;
      while ((got = ::recv(c, buffer, sizeof buffer, 0)) > 0) ::send(c, buffer, got, MSG_NOSIGNAL);
      ::close(c);
    });
  }
  ~EchoServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1, port_ = 0;
  std::thread thread_;
};

int connect_to(const std::string& address) {
  const auto colon = address.rfind(':');
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

std::string receive_exactly(int fd, size_t n) {
  std::string out;
  char buffer[4096];
  while (out.size() < n) {
    const ssize_t got = ::recv(fd, buffer, std::min(sizeof buffer, n - out.size()), 0);
    if (got <= 0) break;
    out.append(buffer, static_cast<size_t>(got));
  }
  return out;
}

TEST(DelayProxy, NoMessageComesBackBeforeTheRoundTripLessTheJitter) {
  EchoServer echo;
  const NetworkConditions c = parse_network_conditions("rtt=60,jitter=20");
  DelayProxy proxy(echo.address(), c);
  const int fd = connect_to(proxy.address());
  std::vector<double> round_trips;
  for (int i = 0; i < 10; ++i) {
    const std::string message = "ping " + std::to_string(i);
    const auto sent = Clock::now();
    ASSERT_EQ(::send(fd, message.data(), message.size(), 0), static_cast<ssize_t>(message.size()));
    EXPECT_EQ(receive_exactly(fd, message.size()), message);
    round_trips.push_back(std::chrono::duration<double>(Clock::now() - sent).count());
  }
  ::close(fd);
  // Each one-way leg waits 30 ms +- 10 ms: a round trip is at least 40 ms however fast the
  // machine (an upper bound would depend on how busy it is).
  for (double r : round_trips) EXPECT_GE(r, 0.040);
  std::sort(round_trips.begin(), round_trips.end());
  EXPECT_LT(round_trips[5], 5.0) << "the proxy holds data back, it must not keep it";
  EXPECT_EQ(proxy.connections(), 1);
}

TEST(DelayProxy, AStreamThroughJitterAndLossArrivesWholeAndInOrder) {
  EchoServer echo;
  // High loss so that a short run draws several; each lost chunk waits one more round trip and
  // holds back the ones behind it.
  DelayProxy proxy(echo.address(), parse_network_conditions("rtt=10,jitter=10,loss=0.2,seed=3"));
  const int fd = connect_to(proxy.address());
  std::string sent_all;
  std::thread reader;
  std::string received;
  reader = std::thread([&] { received = receive_exactly(fd, 200 * 6); });
  for (int i = 0; i < 200; ++i) {
    char message[7];
    std::snprintf(message, sizeof message, "%05d|", i);
    ASSERT_EQ(::send(fd, message, 6, 0), 6);
    sent_all += std::string(message, 6);
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // separate chunks
  }
  reader.join();
  ::close(fd);
  EXPECT_EQ(received, sent_all);
  EXPECT_GT(proxy.lost_chunks(), 0);
  EXPECT_GT(proxy.chunks(), proxy.lost_chunks());
}

TEST(DelayProxy, ConditionsParseAndBadOnesAreNamed) {
  const NetworkConditions c = parse_network_conditions("rtt=150,jitter=30,loss=0.02,seed=9");
  EXPECT_DOUBLE_EQ(c.round_trip_s, 0.150);
  EXPECT_DOUBLE_EQ(c.jitter_s, 0.030);
  EXPECT_DOUBLE_EQ(c.loss, 0.02);
  EXPECT_EQ(c.seed, 9u);
  EXPECT_EQ(describe(c), "150 ms round trip +- 30 ms, 2 % loss");
  auto error = [](const std::string& text) {
    try {
      parse_network_conditions(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("rtt=abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(error("delay=5").find("unknown key 'delay'"), std::string::npos);
  EXPECT_NE(error("loss=1").find("loss must be below 1"), std::string::npos);
  EXPECT_NE(error("rtt=-5").find(">= 0"), std::string::npos);
  EXPECT_NE(error("rtt=10,jitter=30").find("jitter must not exceed rtt"), std::string::npos);
  EXPECT_THROW(DelayProxy("no-port", c), std::runtime_error);
}

}  // namespace
}  // namespace softbody::client
