// A TCP proxy on loopback that makes a fast link look like a slow one (issue 22: haptics across
// slow networks). `tc netem` needs the sch_netem kernel module, which the build machines and most
// containers lack, so the delay is made in user space: every chunk read from one side is written
// to the other one-way delay (half the round trip, ± half the jitter) after it arrived. TCP
// delivers in order, so a chunk never overtakes the one before it: a late chunk holds back the
// ones behind it, as on a real link.
//
// Loss is what TCP turns it into: a lost segment is resent once the sender has seen three
// duplicate acknowledgements (fast retransmit), about one round trip later, and everything behind
// it waits (head-of-line blocking). A chunk of n segments (1448 bytes each) is lost with
// probability 1 - (1 - loss)^n and then arrives one more round trip (with its own jitter) late.
// Not modelled: the retransmission timeout of a lost last segment (>= 200 ms on Linux; with 1 kHz
// tool traffic there is always data behind a lost segment), bandwidth limits, congestion windows.
//
// Written here because no Debian package offers an in-process delaying proxy (toxiproxy is not
// packaged; netem needs the kernel module). Used by the tests, the benchmarks and
// `softbody-client --emulate-network`.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace softbody::client {

struct NetworkConditions {
  double round_trip_s = 0;  // added to the link's own round trip
  double jitter_s = 0;      // the round trip varies uniformly by +- this much
  double loss = 0;          // per TCP segment, each direction
  unsigned seed = 1;        // of the jitter and loss draws (runs repeat)

  bool any() const { return round_trip_s > 0 || jitter_s > 0 || loss > 0; }
};

// Parses "rtt=100,jitter=30,loss=0.02[,seed=N]" (milliseconds, milliseconds, a fraction in
// [0, 1)); throws std::invalid_argument naming the bad item and the accepted keys.
NetworkConditions parse_network_conditions(const std::string& text);
std::string describe(const NetworkConditions& c);  // "100 ms round trip +- 30 ms, 2 % loss"

class DelayProxy {
 public:
  // Listens on 127.0.0.1 (an ephemeral port) and forwards each connection to `upstream`
  // ("host:port"). Throws std::runtime_error when it cannot listen or `upstream` does not parse.
  DelayProxy(const std::string& upstream, const NetworkConditions& conditions);
  ~DelayProxy();  // closes every connection
  DelayProxy(const DelayProxy&) = delete;
  DelayProxy& operator=(const DelayProxy&) = delete;

  std::string address() const;  // "127.0.0.1:PORT": connect here instead of upstream
  long connections() const { return connections_.load(); }
  long chunks() const { return chunks_.load(); }
  long lost_chunks() const { return lost_.load(); }

 private:
  class Connection;
  void accept_loop();

  std::string upstream_host_, upstream_port_;
  NetworkConditions conditions_;
  int listen_fd_ = -1, wake_fd_[2] = {-1, -1};
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<long> connections_{0}, chunks_{0}, lost_{0};
  std::mutex connections_mutex_;
  std::vector<std::unique_ptr<Connection>> connections_list_;
  unsigned next_seed_;
  std::thread acceptor_;
};

}  // namespace softbody::client
