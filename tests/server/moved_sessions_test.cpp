// The tombstones of migrated sessions stay bounded on a host that migrates without end.
#include "server/cluster/moved_sessions.h"

#include <gtest/gtest.h>

namespace softbody::server {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

v1::SessionMoved moved_to(const std::string& address) {
  v1::SessionMoved m;
  m.set_grpc_address(address);
  m.set_reason("migrated");
  return m;
}

TEST(MovedSessions, AnswersWhereASessionWentUntilItIsForgotten) {
  MovedSessions moved(10, hours(24));
  const auto t0 = MovedSessions::Clock::now();
  moved.add("a", moved_to("b:1"), t0);
  ASSERT_TRUE(moved.find("a", t0 + hours(23)));
  EXPECT_EQ(moved.find("a", t0 + hours(23))->grpc_address(), "b:1");
  EXPECT_FALSE(moved.find("a", t0 + hours(25)));  // too old to answer
  EXPECT_FALSE(moved.find("other", t0));
  moved.erase("a");  // the session came back
  EXPECT_FALSE(moved.find("a", t0));
}

TEST(MovedSessions, KeepsAtMostItsLimitDroppingTheOldestAndTheExpired) {
  MovedSessions moved(3, hours(1));
  const auto t0 = MovedSessions::Clock::now();
  for (int i = 0; i < 5; ++i)
    moved.add(std::string(1, static_cast<char>('a' + i)), moved_to("h:1"), t0 + seconds(i));
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_FALSE(moved.find("a", t0 + seconds(5)));
  EXPECT_FALSE(moved.find("b", t0 + seconds(5)));
  EXPECT_TRUE(moved.find("e", t0 + seconds(5)));
  // A later migration also clears entries past their age.
  moved.add("late", moved_to("h:2"), t0 + hours(2));
  EXPECT_EQ(moved.size(), 1u);
}

}  // namespace
}  // namespace softbody::server
