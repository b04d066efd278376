// The colour map's legend: a vertical gradient with ticks in millimetres.
import { legendTicks, viridis } from "../render/colormap";

export function drawLegend(canvas: HTMLCanvasElement, maxMetres: number, title: string): void {
  const g = canvas.getContext("2d");
  if (!g) return;
  const w = canvas.width;
  const h = canvas.height;
  g.clearRect(0, 0, w, h);
  const barTop = 18;
  const barBottom = h - 8;
  const rgb = [0, 0, 0];
  for (let y = barTop; y < barBottom; ++y) {
    viridis(1 - (y - barTop) / (barBottom - barTop), rgb);
    g.fillStyle = `rgb(${rgb.map((c) => Math.round(c * 255)).join(",")})`;
    g.fillRect(4, y, 14, 1);
  }
  g.fillStyle = "#e8eaf0";
  g.font = "10px sans-serif";
  g.fillText(title, 2, 10);
  const max = Math.max(maxMetres, 1e-12);
  for (const tick of legendTicks(max * 1000, 4)) {
    const y = barBottom - ((barBottom - barTop) * tick) / (max * 1000);
    g.fillRect(18, y, 4, 1);
    g.fillText(`${tick}`, 24, y + 3);
  }
}
