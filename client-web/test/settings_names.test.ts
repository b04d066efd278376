import { describe, expect, it } from "vitest";
import { EffectiveSettingsSchema, SessionSettingsSchema } from "../src/gen/softbody/v1/session_pb";
import { camel } from "../src/ui/settings_panel";

// The settings panel reads and writes a setting by the generated field for its API name. A name
// with a digit after an underscore ("prony_tau_2") was missed: its slider stayed disabled.
describe("settings names", () => {
  it("every SessionSettings and EffectiveSettings field is found from its API name", () => {
    for (const schema of [SessionSettingsSchema, EffectiveSettingsSchema]) {
      expect(schema.fields.length).toBeGreaterThan(15);
      for (const field of schema.fields) expect(camel(field.name), field.name).toBe(field.localName);
    }
    expect(camel("prony_tau_2")).toBe("pronyTau2");
  });
});
