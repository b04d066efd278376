// libFuzzer target: the state-frame decoder every client runs on what the network delivers. The
// input is a sequence of frames, each prefixed by its 2-byte little-endian length, fed to one
// decoder (so deltas meet the references earlier frames left). Malformed frames must be refused
// with a message, never crash or read out of bounds.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/frame_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  softbody::codec::FrameDecoder decoder;
  std::vector<float> xyz;
  std::string error;
  std::size_t at = 0;
  while (at + 2 <= size) {
    const std::size_t length = data[at] | (static_cast<std::size_t>(data[at + 1]) << 8);
    at += 2;
    const std::span<const std::uint8_t> frame(data + at, std::min(length, size - at));
    softbody::codec::FrameInfo info;
    softbody::codec::FrameDecoder::peek(frame, info, error);
    decoder.decode(frame, xyz, error);
    at += frame.size();
  }
  return 0;
}
