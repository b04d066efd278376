// Live settings between the API and the server, judged by the engine's settings table
// (engine/scene/settings_table.h): one definition per setting, so UpdateSettings refuses exactly
// what a scene file or --set refuses, with the same message.
#pragma once

#include "server/sessions/session.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

// Validated settings update (INVALID_ARGUMENT "settings.dt: must lie in [0.0001, 0.1] s, not 5").
// Walks SessionSettings by reflection: every field is a table entry (a test holds them equal).
SettingsUpdate settings_from_proto(const v1::SessionSettings& s);

// The table as ListScenesResponse.settings carries it.
void describe_settings(google::protobuf::RepeatedPtrField<v1::SettingDescriptor>& out);

// The Prony terms' EffectiveSettings fields (scope kPronyTerm) from a scene document whose length
// unit is `length` metres, read at each entry's path (0 where the material lacks the term).
void effective_prony_terms(const nlohmann::json& document, double length,
                           v1::EffectiveSettings& out);

}  // namespace softbody::server
