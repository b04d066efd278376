// A perceptually ordered colour map (viridis, sampled at 9 stops and interpolated linearly) for
// per-vertex scalar fields (displacement magnitude; stress later), and its legend ticks.
const VIRIDIS: ReadonlyArray<readonly [number, number, number]> = [
  [0.267, 0.005, 0.329],
  [0.283, 0.141, 0.458],
  [0.254, 0.265, 0.53],
  [0.207, 0.372, 0.553],
  [0.164, 0.471, 0.558],
  [0.128, 0.567, 0.551],
  [0.135, 0.659, 0.518],
  [0.267, 0.749, 0.441],
  [0.478, 0.821, 0.318],
  [0.741, 0.873, 0.15],
  [0.993, 0.906, 0.144],
];

// The colour of t in [0, 1] (clamped) written to out[offset..offset+2].
export function viridis(t: number, out: Float32Array | number[], offset = 0): void {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const a = VIRIDIS[i];
  const b = VIRIDIS[i + 1];
  for (let k = 0; k < 3; ++k) out[offset + k] = a[k] + f * (b[k] - a[k]);
}

// Per-vertex colours of the displacement |x - rest| scaled to [0, max]; returns the largest
// displacement found (for an automatic range).
export function colorByDisplacement(
  positions: Float32Array,
  rest: Float32Array,
  max: number,
  colors: Float32Array,
): number {
  let largest = 0;
  const scale = max > 0 ? 1 / max : 0;
  for (let i = 0; i < positions.length; i += 3) {
    const dx = positions[i] - rest[i];
    const dy = positions[i + 1] - rest[i + 1];
    const dz = positions[i + 2] - rest[i + 2];
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (d > largest) largest = d;
    viridis(d * scale, colors, i);
  }
  return largest;
}

// "Nice" legend ticks for [0, max]: 1, 2 or 5 times a power of ten, about `count` of them.
export function legendTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v <= max * (1 + 1e-9); v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

// The range shown: grows at once to the largest value, shrinks slowly (the legend must not
// flicker while a body oscillates). Never below `floor`.
export function nextRange(current: number, largest: number, floor: number): number {
  if (largest > current) return largest;
  return Math.max(floor, current + 0.02 * (largest - current));
}
