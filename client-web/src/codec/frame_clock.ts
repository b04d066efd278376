// When frames arrive at 20-50 Hz and the screen refreshes at 60 Hz, each displayed image
// interpolates from what was shown when the newest frame arrived towards that frame, over the
// typical spacing of frames (an exponential average of arrival intervals). alpha() is the
// interpolation parameter now: 0 at arrival, 1 one interval later (then it holds).
export class FrameClock {
  private lastArrival = -1;
  private intervalMs: number;

  constructor(
    initialIntervalMs = 33,
    private readonly smoothing = 0.2,
  ) {
    this.intervalMs = initialIntervalMs;
  }

  arrived(nowMs: number): void {
    if (this.lastArrival >= 0) {
      const gap = nowMs - this.lastArrival;
      // A pause or a stall is not a frame interval: ignore gaps beyond a second.
      if (gap > 0 && gap < 1000) this.intervalMs += this.smoothing * (gap - this.intervalMs);
    }
    this.lastArrival = nowMs;
  }

  alpha(nowMs: number): number {
    if (this.lastArrival < 0) return 1;
    return Math.min(1, Math.max(0, (nowMs - this.lastArrival) / this.intervalMs));
  }

  get interval(): number {
    return this.intervalMs;
  }
}
