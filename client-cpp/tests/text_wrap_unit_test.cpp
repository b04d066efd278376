// The viewer overlay's line wrapping: a narrow window keeps every statistic visible.
#include <gtest/gtest.h>

#include "client-cpp/viewer/text_wrap.h"

namespace softbody::viewer {
namespace {

// One unit per character, as a fixed-width font.
float characters(const std::string& s) {
  return static_cast<float>(s.size());
}

TEST(TextWrap, LinesThatFitAreKept) {
  EXPECT_EQ(wrap_lines({"step 12  rtf 1.00", "tool poke"}, 40, characters),
            (std::vector<std::string>{"step 12  rtf 1.00", "tool poke"}));
}

TEST(TextWrap, LongLinesBreakAtSpacesAndEveryWordStays) {
  const std::string line = "haptic simulated pen pressing  1000 Hz  round trip 0.12 ms";
  const auto wrapped = wrap_lines({line}, 20, characters);
  ASSERT_GT(wrapped.size(), 2u);
  std::string words;
  for (const auto& w : wrapped) {
    EXPECT_LE(w.size(), 20u) << w;
    words += w + " ";
  }
  for (const char* word : {"haptic", "simulated", "pressing", "1000", "round", "0.12", "ms"})
    EXPECT_NE(words.find(word), std::string::npos) << word;
  EXPECT_EQ(wrapped[1].substr(0, 2), "  ");  // continuation lines are indented
}

TEST(TextWrap, AWordWiderThanTheWidthStaysWhole) {
  const auto wrapped = wrap_lines({"a verylongwordthatcannotfit b"}, 8, characters);
  EXPECT_EQ(wrapped, (std::vector<std::string>{"a", "  verylongwordthatcannotfit", "  b"}));
}

}  // namespace
}  // namespace softbody::viewer
