// The live-settings panel, built from the server's definition of each setting
// (ListScenesResponse.settings, engine/scene/settings_table.h): a slider per number over the
// range, step and scale the server gives, a selector per choice. Nothing about a setting's range
// is written here, so the browser never offers a value the server refuses.
import {
  SettingDescriptor_Scope,
  SettingDescriptor_Type,
  type EffectiveSettings,
  type SessionSettings,
  type SettingDescriptor,
} from "../gen/softbody/v1/session_pb";

// "youngs_modulus" -> "youngsModulus", "prony_tau_2" -> "pronyTau2": the generated messages'
// field names.
export const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type SettingsValues = Partial<Record<string, number | string>>;

// How a number reads: its unit's prefix chosen by size (2.0e5 Pa -> "200.0 kPa").
export function formatSetting(value: number, unit: string): string {
  if (unit === "Pa") return value >= 1e6 ? `${(value / 1e6).toFixed(2)} MPa` : `${(value / 1000).toFixed(1)} kPa`;
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 1 : value === 0 ? 1 : Math.min(4, 2 - Math.floor(Math.log10(Math.abs(value))));
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ""}`;
}

interface Control {
  descriptor: SettingDescriptor;
  row: HTMLElement;
  element: HTMLInputElement | HTMLSelectElement;
  output?: HTMLOutputElement;
}

export class SettingsPanel {
  private controls: Control[] = [];
  private pending = new Map<string, number | string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private joined = false;
  private constantQ = false;
  private shown: EffectiveSettings | null | undefined = null;
  private describedAs = "";

  // `send` applies settings to the joined session (UpdateSettings); it throws with the server's
  // refusal, after which the panel shows the session's values again.
  constructor(
    private readonly container: HTMLElement,
    private readonly send: (settings: Partial<SessionSettings>) => Promise<void>,
    private readonly refused: (what: string, error: unknown) => void,
  ) {}

  // True while a slider's change waits to be sent: the session's values must not overwrite it.
  get editing(): boolean {
    return this.timer !== null;
  }

  // (Re)builds the controls when the server's table differs from the one shown (another host may
  // answer after a reconnection); settings without a control are not shown.
  describe(descriptors: SettingDescriptor[]): void {
    const key = JSON.stringify(descriptors.map((d) => [d.name, d.min, d.max, d.control, d.choices.map((c) => c.value)]));
    if (key === this.describedAs) return;
    this.describedAs = key;
    this.container.replaceChildren();
    this.controls = [];
    for (const descriptor of descriptors) {
      if (!descriptor.control) continue;
      const row = document.createElement("label");
      row.textContent = descriptor.label + " ";
      row.title = descriptor.help;
      let element: HTMLInputElement | HTMLSelectElement;
      let output: HTMLOutputElement | undefined;
      if (descriptor.type === SettingDescriptor_Type.CHOICE) {
        const select = document.createElement("select");
        for (const choice of descriptor.choices) {
          const option = document.createElement("option");
          option.value = choice.value;
          option.textContent = choice.label;
          select.append(option);
        }
        select.addEventListener("change", () => void this.choose(descriptor, select.value));
        element = select;
      } else {
        const { min, max, step, log } = descriptor.control;
        const slider = document.createElement("input");
        slider.type = "range";
        slider.min = String(log ? Math.log10(min) : min);
        slider.max = String(log ? Math.log10(max) : max);
        slider.step = String(step);
        output = document.createElement("output");
        row.append(output);
        slider.addEventListener("input", () => this.slid(descriptor, slider));
        element = slider;
      }
      element.id = `setting-${descriptor.name}`;
      element.disabled = true;
      row.append(element);
      this.container.append(row);
      this.controls.push({ descriptor, row, element, output });
    }
    this.show(this.shown);
  }

  // The joined session's values (null: none joined).
  show(settings: EffectiveSettings | null | undefined): void {
    this.shown = settings;
    this.joined = settings !== null && settings !== undefined;
    // A constant-Q material is set by Q and |G| (its long-term E follows from the fit), others by E.
    this.constantQ = (settings?.viscousQuality ?? 0) > 0;
    for (const control of this.controls) {
      const value = settings ? (settings as unknown as SettingsValues)[camel(control.descriptor.name)] : undefined;
      const applies = this.applies(control.descriptor, value);
      // Q and |G| exist only on constant-Q materials, a Prony term's mu and tau only where the
      // material has that term (its value is then > 0): hidden elsewhere, not merely disabled.
      control.row.hidden =
        (control.descriptor.scope === SettingDescriptor_Scope.CONSTANT_Q && !this.constantQ) ||
        (control.descriptor.scope === SettingDescriptor_Scope.PRONY_TERM && !applies);
      control.element.disabled = !this.joined || !applies;
      if (!settings || this.editing) continue;
      if (value === undefined || (typeof value === "number" && value <= 0 && control.descriptor.control?.log)) continue;
      if (control.element instanceof HTMLSelectElement) {
        control.element.value = String(value);
      } else {
        const log = control.descriptor.control?.log;
        control.element.value = String(log ? Math.log10(Number(value)) : value);
      }
      this.showValue(control);
    }
  }

  private applies(d: SettingDescriptor, value: number | string | undefined): boolean {
    if (d.scope === SettingDescriptor_Scope.CONSTANT_Q) return this.constantQ;
    if (d.scope === SettingDescriptor_Scope.NOT_CONSTANT_Q) return !this.constantQ;
    if (d.scope === SettingDescriptor_Scope.PRONY_TERM) return typeof value === "number" && value > 0;
    return true;
  }

  private valueOf(control: Control): number {
    const raw = Number(control.element.value);
    return control.descriptor.control?.log ? 10 ** raw : raw;
  }

  private showValue(control: Control): void {
    if (control.output) control.output.textContent = formatSetting(this.valueOf(control), control.descriptor.unit);
  }

  // Sliders send their values 150 ms after the last movement (a drag is one update).
  private slid(descriptor: SettingDescriptor, slider: HTMLInputElement): void {
    const control = this.controls.find((c) => c.element === slider);
    if (!control) return;
    this.showValue(control);
    this.pending.set(camel(descriptor.name), this.valueOf(control));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), 150);
  }

  private async flush(): Promise<void> {
    const settings = Object.fromEntries(this.pending) as Partial<SessionSettings>;
    this.pending.clear();
    try {
      await this.send(settings);  // its reply carries the values the sliders already show
    } catch (e) {
      this.timer = null;  // so that the session's values replace the refused ones
      this.refused("settings", e);
    } finally {
      this.timer = null;
    }
  }

  // Selectors change at once (one choice, not a drag).
  private async choose(descriptor: SettingDescriptor, value: string): Promise<void> {
    try {
      await this.send({ [camel(descriptor.name)]: value } as Partial<SessionSettings>);
    } catch (e) {
      this.refused(descriptor.label.toLowerCase(), e);
    }
  }
}
