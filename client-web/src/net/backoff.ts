// Reconnection delays: exponential from `initialMs` to `maxMs` with +-20 % jitter so that many
// browsers do not reconnect in lockstep after a server restart. reset() after a success.
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 250,
    private readonly maxMs = 5000,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(base * (0.8 + 0.4 * this.random()));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
