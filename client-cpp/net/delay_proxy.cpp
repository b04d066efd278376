#include "client-cpp/net/delay_proxy.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <random>
#include <sstream>
#include <stdexcept>

namespace softbody::client {

using Clock = std::chrono::steady_clock;

namespace {

constexpr double kSegmentBytes = 1448;  // TCP payload per segment on a 1500-byte MTU

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

NetworkConditions parse_network_conditions(const std::string& text) {
  NetworkConditions c;
  std::stringstream in(text);
  std::string item;
  const std::string keys = " (keys: rtt=MS, jitter=MS, loss=FRACTION, seed=N)";
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("network '" + item + "': expected key=value" + keys);
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    double x = 0;
    try {
      size_t used = 0;
      x = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw std::invalid_argument("network " + item + ": '" + value + "' is not a number");
    }
    if (!std::isfinite(x) || x < 0)
      throw std::invalid_argument("network " + item + ": must be a number >= 0");
    if (key == "rtt")
      c.round_trip_s = 1e-3 * x;
    else if (key == "jitter")
      c.jitter_s = 1e-3 * x;
    else if (key == "loss") {
      if (x >= 1) throw std::invalid_argument("network " + item + ": loss must be below 1");
      c.loss = x;
    } else if (key == "seed")
      c.seed = static_cast<unsigned>(x);
    else
      throw std::invalid_argument("network: unknown key '" + key + "'" + keys);
  }
  if (c.jitter_s > c.round_trip_s)
    throw std::invalid_argument("network: jitter must not exceed rtt (delays cannot be negative)");
  return c;
}

std::string describe(const NetworkConditions& c) {
  char text[120];
  std::snprintf(text, sizeof text, "%.0f ms round trip +- %.0f ms, %.3g %% loss",
                1e3 * c.round_trip_s, 1e3 * c.jitter_s, 100 * c.loss);
  return text;
}

// One proxied connection: two directions, each a reader thread that timestamps chunks and a
// writer thread that sends each chunk at its release time.
class DelayProxy::Connection {
 public:
  Connection(int client_fd, int upstream_fd, const NetworkConditions& c, unsigned seed,
             std::atomic<long>& chunks, std::atomic<long>& lost)
      : fds_{client_fd, upstream_fd},
        up_(*this, client_fd, upstream_fd, c, seed, chunks, lost),
        down_(*this, upstream_fd, client_fd, c, seed + 7919, chunks, lost) {}

  ~Connection() {
    ::shutdown(fds_[0], SHUT_RDWR);
    ::shutdown(fds_[1], SHUT_RDWR);
    up_.join();
    down_.join();
    ::close(fds_[0]);
    ::close(fds_[1]);
  }

  void start() {
    up_.start();
    down_.start();
  }

  // A direction failed (reset, closed both ways): the other one cannot go on either.
  void abort() {
    ::shutdown(fds_[0], SHUT_RDWR);
    ::shutdown(fds_[1], SHUT_RDWR);
    up_.wake();
    down_.wake();
  }

 private:
  class Direction {
   public:
    Direction(Connection& owner, int from, int to, const NetworkConditions& c, unsigned seed,
              std::atomic<long>& chunks, std::atomic<long>& lost)
        : owner_(owner), from_(from), to_(to), c_(c), random_(seed), chunks_(chunks), lost_(lost) {}

    void start() {
      reader_ = std::thread([this] { read_loop(); });
      writer_ = std::thread([this] { write_loop(); });
    }
    void join() {
      wake();
      if (reader_.joinable()) reader_.join();
      if (writer_.joinable()) writer_.join();
    }
    void wake() {
      std::lock_guard lock(mutex_);
      aborted_ = true;
      ready_.notify_all();
    }

   private:
    struct Chunk {
      std::string bytes;  // empty: the sender closed its side
      Clock::time_point release;
    };

    double jitter() {
      return c_.jitter_s > 0
                 ? std::uniform_real_distribution<double>(-0.5, 0.5)(random_) * c_.jitter_s
                 : 0.0;
    }

    Clock::time_point release_time(Clock::time_point arrived, size_t bytes) {
      double delay = 0.5 * c_.round_trip_s + jitter();
      if (c_.loss > 0 && bytes > 0) {
        const double segments = std::ceil(static_cast<double>(bytes) / kSegmentBytes);
        const double p_lost = 1 - std::pow(1 - c_.loss, segments);
        if (std::uniform_real_distribution<double>(0, 1)(random_) < p_lost) {
          delay += c_.round_trip_s + 2 * jitter();  // fast retransmit: one more round trip
          ++lost_;
        }
      }
      // In order: never before the chunk ahead of it.
      last_release_ = std::max(last_release_, arrived + seconds(std::max(0.0, delay)));
      return last_release_;
    }

    void read_loop() {
      char buffer[65536];
      for (;;) {
        const ssize_t n = ::recv(from_, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) continue;
        const Clock::time_point now = Clock::now();
        std::lock_guard lock(mutex_);
        if (n <= 0) {
          queue_.push_back({std::string(), release_time(now, 0)});
          ready_.notify_all();
          return;
        }
        ++chunks_;
        queue_.push_back({std::string(buffer, static_cast<size_t>(n)),
                          release_time(now, static_cast<size_t>(n))});
        ready_.notify_all();
      }
    }

    void write_loop() {
      for (;;) {
        Chunk chunk;
        {
          std::unique_lock lock(mutex_);
          ready_.wait(lock, [&] { return aborted_ || !queue_.empty(); });
          if (aborted_ && queue_.empty()) return;
          const Clock::time_point release = queue_.front().release;
          while (!aborted_ && Clock::now() < release) ready_.wait_until(lock, release);
          if (aborted_) return;
          chunk = std::move(queue_.front());
          queue_.pop_front();
        }
        if (chunk.bytes.empty()) {
          ::shutdown(to_, SHUT_WR);  // pass the half-close on, after the data before it
          return;
        }
        size_t sent = 0;
        while (sent < chunk.bytes.size()) {
          const ssize_t n =
              ::send(to_, chunk.bytes.data() + sent, chunk.bytes.size() - sent, MSG_NOSIGNAL);
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) {
            owner_.abort();
            return;
          }
          sent += static_cast<size_t>(n);
        }
      }
    }

    Connection& owner_;
    int from_, to_;
    NetworkConditions c_;
    std::mt19937 random_;
    std::atomic<long>& chunks_;
    std::atomic<long>& lost_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Chunk> queue_;
    Clock::time_point last_release_{};
    bool aborted_ = false;
    std::thread reader_, writer_;
  };

  int fds_[2];
  Direction up_, down_;
};

DelayProxy::DelayProxy(const std::string& upstream, const NetworkConditions& conditions)
    : conditions_(conditions), next_seed_(conditions.seed) {
  const auto colon = upstream.rfind(':');
  if (colon == std::string::npos || colon + 1 == upstream.size())
    throw std::runtime_error("delay proxy: upstream '" + upstream + "' is not HOST:PORT");
  upstream_host_ = upstream.substr(0, colon);
  upstream_port_ = upstream.substr(colon + 1);
  if (upstream_host_.size() > 1 && upstream_host_.front() == '[')  // [::1]:50051
    upstream_host_ = upstream_host_.substr(1, upstream_host_.size() - 2);

  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      ::pipe2(wake_fd_, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    throw std::runtime_error("delay proxy: cannot listen on 127.0.0.1: " + why);
  }
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

DelayProxy::~DelayProxy() {
  stop_ = true;
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_[1], &byte, 1);
  acceptor_.join();
  {
    std::lock_guard lock(connections_mutex_);
    connections_list_.clear();  // each closes its sockets and joins its threads
  }
  ::close(listen_fd_);
  ::close(wake_fd_[0]);
  ::close(wake_fd_[1]);
}

std::string DelayProxy::address() const {
  return "127.0.0.1:" + std::to_string(port_);
}

void DelayProxy::accept_loop() {
  while (!stop_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) continue;
    if (fds[1].revents != 0) return;
    const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    // The far side: resolved per connection (a name may move).
    addrinfo hints{}, *found = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    int upstream = -1;
    if (::getaddrinfo(upstream_host_.c_str(), upstream_port_.c_str(), &hints, &found) == 0) {
      for (addrinfo* a = found; a && upstream < 0; a = a->ai_next) {
        upstream = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (upstream >= 0 && ::connect(upstream, a->ai_addr, a->ai_addrlen) != 0) {
          ::close(upstream);
          upstream = -1;
        }
      }
      ::freeaddrinfo(found);
    }
    if (upstream < 0) {  // the client sees its connection closed, as with the server down
      ::close(client);
      continue;
    }
    // Small writes go out at once on both legs: the delay is ours to add, not Nagle's.
    const int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ++connections_;
    auto connection =
        std::make_unique<Connection>(client, upstream, conditions_, next_seed_, chunks_, lost_);
    next_seed_ += 104729;
    connection->start();
    std::lock_guard lock(connections_mutex_);
    connections_list_.push_back(std::move(connection));
  }
}

}  // namespace softbody::client
