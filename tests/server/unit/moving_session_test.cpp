// A session saved for another host (drain, migration) and not yet handed off keeps its final
// state: requests that would change it are refused as UNAVAILABLE (clients ask again, and find it
// at its new host), while watching it goes on.
#include <gtest/gtest.h>

#include "server/api_error.h"
#include "server/metrics.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session_manager.h"

namespace softbody::server {
namespace {

TEST(MovingSession, RequestsThatWouldChangeItAreRefusedAsUnavailable) {
  Metrics metrics;
  Scheduler scheduler({.workers = 1});
  SessionManager sessions(ManagerOptions{}, scheduler, metrics);
  NewSession request;
  request.source = NewSession::Source::kSceneJson;
  request.document = nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
    "material": {"model": "stvk-tl", "E": 1e5, "nu": 0.3, "density": 1000},
    "dt": 0.01, "fixed": [{"set": "xmin"}]})");
  request.start_paused = true;
  const std::shared_ptr<Session> session = sessions.create(request);
  const Caller anyone;  // development mode: no authentication
  EXPECT_EQ(sessions.find_for(anyone, session->id(), SessionUse::kSteer), session);

  session->moving = true;
  for (SessionUse use : {SessionUse::kSteer, SessionUse::kDelete}) {
    try {
      sessions.find_for(anyone, session->id(), use);
      ADD_FAILURE() << use_name(use) << " was allowed on a moving session";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), grpc::StatusCode::UNAVAILABLE) << use_name(use);
      EXPECT_NE(std::string(e.what()).find("is moving to another host"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(sessions.find_for(anyone, session->id(), SessionUse::kWatch), session);
  session->moving = false;
  EXPECT_EQ(sessions.find_for(anyone, session->id(), SessionUse::kDelete), session);
}

}  // namespace
}  // namespace softbody::server
