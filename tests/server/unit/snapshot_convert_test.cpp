// Snapshots carry contact's factor confirmation (SimulationState::confirmed_factor): a restored
// session then keeps the same factor without evaluating its matrix where the original would, and a
// malformed one is refused naming the field.
#include <gtest/gtest.h>

#include <limits>

#include "server/api/snapshot_convert.h"
#include "server/api_error.h"

namespace softbody::server {
namespace {

constexpr size_t kVertices = 4;

SessionSnapshot confirmed_snapshot() {
  SessionSnapshot s;
  s.scene_name = "test";
  s.document = nlohmann::json::object();
  for (size_t i = 0; i < kVertices; ++i) {
    s.state.p.push_back(Vec3(0.1 * i, 0.2, 0.3));
    s.state.v.push_back(Vec3::Zero());
  }
  SimulationState::ConfirmedFactor c;
  for (size_t i = 0; i < kVertices; ++i) {
    c.start.push_back(Vec3(0.1 * i, 0.2, 0.3 + 1e-9 * i));
    c.free.push_back(Vec3(0.1 * i, 0.2 - 1e-4, 0.3));
  }
  c.h = 0.01;
  c.factorizations = 37;
  s.state.confirmed_factor = std::make_shared<const SimulationState::ConfirmedFactor>(c);
  return s;
}

std::string refusal(const v1::Snapshot& snapshot) {
  try {
    snapshot_state_from_proto(snapshot, kVertices);
  } catch (const ApiError& e) {
    return e.status().error_message();
  }
  return "accepted";
}

TEST(SnapshotConvert, TheFactorConfirmationRoundTripsAndAMalformedOneIsRefused) {
  const SessionSnapshot original = confirmed_snapshot();
  v1::Snapshot proto;
  to_proto(original, proto);
  ASSERT_EQ(proto.confirmed_factor_start_size(), 3 * static_cast<int>(kVertices));
  const SessionSnapshot back = snapshot_state_from_proto(proto, kVertices);
  ASSERT_TRUE(back.state.confirmed_factor);
  const SimulationState::ConfirmedFactor &a = *original.state.confirmed_factor,
                                         &b = *back.state.confirmed_factor;
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.free, b.free);
  EXPECT_EQ(a.h, b.h);
  EXPECT_EQ(a.factorizations, b.factorizations);

  // None stays none.
  SessionSnapshot without = original;
  without.state.confirmed_factor.reset();
  v1::Snapshot none;
  to_proto(without, none);
  EXPECT_EQ(none.confirmed_factor_start_size(), 0);
  EXPECT_FALSE(snapshot_state_from_proto(none, kVertices).state.confirmed_factor);

  v1::Snapshot bad = proto;
  bad.mutable_confirmed_factor_free()->RemoveLast();
  EXPECT_NE(refusal(bad).find("snapshot.confirmed_factor_start"), std::string::npos)
      << refusal(bad);
  bad = proto;
  bad.set_confirmed_factor_free(4, std::numeric_limits<double>::quiet_NaN());
  EXPECT_NE(refusal(bad).find("snapshot.confirmed_factor_free"), std::string::npos) << refusal(bad);
  bad = proto;
  bad.set_confirmed_factor_h(0);
  EXPECT_NE(refusal(bad).find("snapshot.confirmed_factor_h"), std::string::npos) << refusal(bad);
}

}  // namespace
}  // namespace softbody::server
