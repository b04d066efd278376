// A fixed window of recent samples (the HUD's chart and medians): the last `capacity` values with
// their times.
export class RollingSeries {
  private readonly values: Float64Array;
  private readonly times: Float64Array;
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    this.values = new Float64Array(capacity);
    this.times = new Float64Array(capacity);
  }

  push(timeMs: number, value: number): void {
    const index = (this.start + this.size) % this.capacity;
    this.values[index] = value;
    this.times[index] = timeMs;
    if (this.size < this.capacity) this.size += 1;
    else this.start = (this.start + 1) % this.capacity;
  }

  clear(): void {
    this.start = this.size = 0;
  }

  get length(): number {
    return this.size;
  }

  // Oldest first.
  at(i: number): { time: number; value: number } {
    const index = (this.start + i) % this.capacity;
    return { time: this.times[index], value: this.values[index] };
  }

  median(): number {
    if (this.size === 0) return NaN;
    const sorted = Array.from({ length: this.size }, (_, i) => this.at(i).value).sort((a, b) => a - b);
    const mid = this.size >> 1;
    return this.size % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  }

  max(): number {
    let m = -Infinity;
    for (let i = 0; i < this.size; ++i) m = Math.max(m, this.at(i).value);
    return m;
  }

  // Events per second over the samples' time span (e.g. frame arrivals).
  rate(): number {
    if (this.size < 2) return 0;
    const span = this.at(this.size - 1).time - this.at(0).time;
    return span > 0 ? ((this.size - 1) * 1000) / span : 0;
  }
}
