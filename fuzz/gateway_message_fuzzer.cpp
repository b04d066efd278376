// libFuzzer target: the browser gateway's message envelope (a WebSocket message is one
// softbody.v1.ClientMessage protobuf) and the checks the server runs on a message before it
// touches a session: parsing, the request/stream split, stream and settings validation, and the
// scene overrides a create request carries.
#include <cstdint>

#include "engine/scene/scene.h"
#include "server/api_error.h"
#include "server/api/proto_convert.h"
#include "server/api/settings_convert.h"
#include "server/sessions/state_stream.h"
#include "server/web/gateway_requests.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  softbody::v1::ClientMessage message;
  if (!message.ParseFromArray(data, static_cast<int>(size))) return 0;
  try {
    softbody::server::is_unary_request(message.body_case());
    switch (message.body_case()) {
      case softbody::v1::ClientMessage::kSubscribe:
        softbody::server::validate_stream_request(message.subscribe(), 1000);
        break;
      case softbody::v1::ClientMessage::kUpdateSettings:
        softbody::server::settings_from_proto(message.update_settings().settings());
        break;
      case softbody::v1::ClientMessage::kCreateSession: {
        nlohmann::json doc = nlohmann::json::object();
        for (const std::string& o : message.create_session().overrides()) {
          try {
            softbody::apply_override(doc, o, "overrides");
          } catch (const softbody::SceneError&) {
          }
        }
        break;
      }
      default:
        break;
    }
  } catch (const softbody::server::ApiError&) {
  }
  return 0;
}
