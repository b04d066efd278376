// Wait-free hand-over of the newest value from one writer thread to one reader thread (the
// coupling model from the gRPC reply thread to the haptic loop; notes/anchors.md lesson 3). Three
// slots: the writer fills its back slot and swaps it with the middle one; the reader swaps the
// middle slot with its front slot only when a fresh value is there. Neither side ever waits, and a
// slot is never read while written (the index exchange carries acquire/release ordering).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace softbody::client {

template <typename T>
class TripleBuffer {
 public:
  // Writer side: fill back(), then publish().
  T& back() { return slots_[back_]; }
  void publish() { back_ = middle_.exchange(back_ | kFresh, std::memory_order_acq_rel) & kIndex; }

  // Reader side: update() takes the newest published value if there is one (true then);
  // front() is the value taken last.
  bool update() {
    if ((middle_.load(std::memory_order_relaxed) & kFresh) == 0) return false;
    front_ = middle_.exchange(front_, std::memory_order_acq_rel) & kIndex;
    return true;
  }
  const T& front() const { return slots_[front_]; }

 private:
  static constexpr std::uint8_t kIndex = 0x3, kFresh = 0x4;
  std::array<T, 3> slots_{};
  std::atomic<std::uint8_t> middle_{1};
  std::uint8_t back_ = 0;   // writer's
  std::uint8_t front_ = 2;  // reader's
};

}  // namespace softbody::client
