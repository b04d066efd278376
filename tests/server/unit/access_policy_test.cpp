// The access policy in process: who may watch, steer and delete a session (owners, roles, a
// session's audience), what needs which role, and which listen addresses are loopback.
#include "server/auth/access_policy.h"

#include <gtest/gtest.h>

#include "server/api_error.h"
#include "server/auth/auth_command_line.h"

namespace softbody::server {
namespace {

// The PERMISSION_DENIED / ... message `body` throws ("" if none).
template <typename Body>
std::string api_error(Body&& body, grpc::StatusCode expected) {
  try {
    body();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(AccessPolicy, TraineesUseTheirOwnSessionsInstructorsAndAdminsAnyone) {
  const Caller trainee{"alice", Role::kTrainee, {}, true};
  const Caller instructor{"bob", Role::kInstructor, {}, true};
  const SessionAudience owner_only;
  for (SessionUse use : {SessionUse::kWatch, SessionUse::kSteer, SessionUse::kDelete}) {
    EXPECT_TRUE(may_use_session(trainee, "alice", owner_only, use));
    EXPECT_FALSE(may_use_session(trainee, "dave", owner_only, use));
    EXPECT_TRUE(may_use_session(instructor, "alice", owner_only, use));
    EXPECT_TRUE(may_use_session(Caller::anonymous(), "alice", owner_only, use));  // dev
  }
  EXPECT_NE(
      api_error([&] { require_session_use(trainee, "s1", "dave", owner_only, SessionUse::kWatch); },
                grpc::StatusCode::PERMISSION_DENIED)
          .find("instructor or admin role"),
      std::string::npos);
}

// A session's audience opens it to more than its owner: watch and steer separately; deleting
// stays the owner's (and instructors' and admins').
TEST(AccessPolicy, AnAudienceOpensASessionToWatchOrSteer) {
  const Caller trainee{"alice", Role::kTrainee, {}, true};
  const SessionAudience watch_only = parse_audience("watch=trainee,steer=instructor");
  EXPECT_TRUE(may_use_session(trainee, "", watch_only, SessionUse::kWatch));
  EXPECT_FALSE(may_use_session(trainee, "", watch_only, SessionUse::kSteer));
  EXPECT_FALSE(may_use_session(trainee, "", watch_only, SessionUse::kDelete));
  EXPECT_NE(
      api_error([&] { require_session_use(trainee, "p", "", watch_only, SessionUse::kSteer); },
                grpc::StatusCode::PERMISSION_DENIED)
          .find("open to 'alice' (trainee) to watch, not to steer"),
      std::string::npos);
  const SessionAudience open = parse_audience("steer=trainee");
  EXPECT_EQ(audience_text(open),
            "watch=trainee,steer=trainee");  // steering implies watching
  EXPECT_TRUE(may_use_session(trainee, "", open, SessionUse::kSteer));
  EXPECT_FALSE(may_use_session(trainee, "", open, SessionUse::kDelete));
  EXPECT_EQ(parse_audience(""), SessionAudience{});
  EXPECT_EQ(parse_audience(audience_text(watch_only)), watch_only);  // round trip
  EXPECT_THROW(parse_audience("watch=everyone"), std::invalid_argument);
  EXPECT_THROW(parse_audience("join=trainee"), std::invalid_argument);
}

TEST(AccessPolicy, RolesAndAddresses) {
  const Caller instructor{"bob", Role::kInstructor, {}, true};
  EXPECT_NE(api_error([&] { require_role(instructor, Role::kAdmin, "MigrateSession"); },
                      grpc::StatusCode::PERMISSION_DENIED)
                .find("MigrateSession needs the admin role; 'bob' is an instructor"),
            std::string::npos);
  EXPECT_TRUE(is_loopback_address("127.0.0.1:50051"));
  EXPECT_TRUE(is_loopback_address("[::1]:8080"));
  EXPECT_TRUE(is_loopback_address("localhost:0"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0:50051"));
  EXPECT_FALSE(is_loopback_address("10.0.0.5:50051"));
}

}  // namespace
}  // namespace softbody::server
