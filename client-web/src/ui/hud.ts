// The heads-up display: simulation rate, real-time factor, solver iterations and residual,
// round-trip time, frame size, render fps, and a live chart of step time and iterations over the
// last seconds (a 2D canvas: no charting library needed for two lines).
import { RollingSeries } from "../stats/rolling";

export interface StepSample {
  step: number;
  stepMs: number;
  iterations: number;
  residual: number;
  realTimeFactor: number;
  invertedElements: number;  // tetrahedra with signed volume <= 0 after the step
  frameBytes: number;
  dropped: number;
}

const CHART_SECONDS = 10;

export class Hud {
  private readonly stepTimes = new RollingSeries(600);
  private readonly iterations = new RollingSeries(600);
  private readonly stepArrivals = new RollingSeries(120);  // (time, step) pairs for the rate
  private readonly renderTimes = new RollingSeries(120);
  private readonly roundTrips = new RollingSeries(200);
  private last: StepSample | null = null;
  // How the server resolved the last poke ("constraint" or "penalty"; null: no poke answered).
  contactModel: string | null = null;
  private frames = 0;
  private lastText = 0;

  constructor(
    private readonly text: HTMLElement,
    private readonly chart: HTMLCanvasElement,
  ) {}

  frame(nowMs: number, sample: StepSample): void {
    this.last = sample;
    this.frames += 1;
    this.stepTimes.push(nowMs, sample.stepMs);
    this.iterations.push(nowMs, sample.iterations);
    // Steps counting down: another session or a reset; the rate starts over instead of going
    // negative across it.
    const n = this.stepArrivals.length;
    if (n > 0 && sample.step < this.stepArrivals.at(n - 1).value) this.stepArrivals.clear();
    this.stepArrivals.push(nowMs, sample.step);
  }

  roundTrip(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.roundTrips.push(performance.now(), ms);
  }

  rendered(nowMs: number): void {
    this.renderTimes.push(nowMs, 0);
  }

  // Steps per second over the recent frames (frames skip steps when slower than the session).
  get simulationRate(): number {
    const n = this.stepArrivals.length;
    if (n < 2) return 0;
    const first = this.stepArrivals.at(0);
    const last = this.stepArrivals.at(n - 1);
    return last.time > first.time ? ((last.value - first.value) * 1000) / (last.time - first.time) : 0;
  }

  get renderFps(): number {
    return this.renderTimes.rate();
  }

  get frameRate(): number {
    return this.stepArrivals.rate();
  }

  get framesReceived(): number {
    return this.frames;
  }

  get roundTripMedian(): number {
    return this.roundTrips.median();
  }

  // Redraws at most 4 times a second (text) and every call (chart).
  draw(nowMs: number): void {
    if (nowMs - this.lastText > 250) {
      this.lastText = nowMs;
      const s = this.last;
      const rtt = this.roundTrips.median();
      const lines = [
        `simulation ${this.simulationRate.toFixed(1)} steps/s · frames ${this.frameRate.toFixed(1)}/s`,
        `real-time factor ${s ? s.realTimeFactor.toFixed(2) : "–"}`,
        `solver ${s ? s.iterations : "–"} it · residual ${s ? s.residual.toExponential(1) : "–"}`,
        `inverted elements ${s ? s.invertedElements : "–"}`,
        `step ${s ? s.stepMs.toFixed(2) : "–"} ms · frame ${s ? (s.frameBytes / 1024).toFixed(1) : "–"} KiB`,
        `tool round trip ${Number.isFinite(rtt) ? rtt.toFixed(2) + " ms" : "–"}` +
          (this.contactModel ? ` · contact ${this.contactModel}` : ""),
        `render ${this.renderFps.toFixed(0)} fps`,
      ];
      this.text.textContent = lines.join("\n");
    }
    this.drawChart(nowMs);
  }

  private drawChart(nowMs: number): void {
    const canvas = this.chart;
    const g = canvas.getContext("2d");
    if (!g) return;
    const w = canvas.width;
    const h = canvas.height;
    g.clearRect(0, 0, w, h);
    g.fillStyle = "rgba(10, 12, 16, 0.6)";
    g.fillRect(0, 0, w, h);
    const series: Array<[RollingSeries, string, string]> = [
      [this.stepTimes, "#4fc3f7", "step ms"],
      [this.iterations, "#ffb74d", "iterations"],
    ];
    series.forEach(([data, colour, label], k) => {
      const max = Math.max(1e-9, data.max());
      g.strokeStyle = colour;
      g.beginPath();
      let started = false;
      for (let i = 0; i < data.length; ++i) {
        const { time, value } = data.at(i);
        const age = (nowMs - time) / 1000;
        if (age > CHART_SECONDS) continue;
        const x = w * (1 - age / CHART_SECONDS);
        const y = h - 4 - (h - 16) * (value / max);
        if (started) g.lineTo(x, y);
        else g.moveTo(x, y);
        started = true;
      }
      g.stroke();
      g.fillStyle = colour;
      g.font = "10px sans-serif";
      g.fillText(`${label} (max ${max.toFixed(max < 10 ? 2 : 0)})`, 4 + k * 110, 10);
    });
  }
}
