// The overview: a histogram of the input events over the whole recording
// (uPlot, canvas), stacked by what became of them (Normal, Warning, dropped
// by the spam filter; counted in the worker), with the timeline's window
// shown and a brush to pick a new one.

import uPlot from 'uplot';
import type { RunView } from './model';
import type { Palette } from './paint';

export class Overview {
  private plot: uPlot | null = null;
  private window = { from: 0, to: 0 };
  private colours: Palette | null = null;

  constructor(private host: HTMLElement, private onBrush: (from: number, to: number) => void) {
    new ResizeObserver(() => this.plot?.setSize(this.size())).observe(host);
  }

  private size(): { width: number; height: number } {
    return { width: Math.max(100, this.host.clientWidth), height: Math.max(60, this.host.clientHeight) };
  }

  /** How many bars fit: one per 4 px, 20 to 400. */
  get bins(): number {
    return Math.max(20, Math.min(400, Math.floor(this.size().width / 4)));
  }

  /** Shows the worker's histogram of what the filter keeps of `view`. */
  setData(view: RunView, colours: Palette): void {
    const { from, to, normal, warning, dropped } = view.histogram;
    const bins = normal.length;
    const width = (to - from) / bins;
    const xs = Array.from({ length: bins }, (_, i) => from + (i + 0.5) * width);
    // Stacked: each series is drawn over the one before, tallest first.
    const stackWarning = Array.from(warning, (w, i) => w + normal[i]);
    const stackDropped = Array.from(dropped, (d, i) => d + stackWarning[i]);
    const data: uPlot.AlignedData = [xs, stackDropped, stackWarning, Array.from(normal)];
    if (!this.plot || this.colours !== colours) {
      this.colours = colours;
      this.create(data, colours);
    } else {
      this.plot.setData(data);
    }
  }

  /** Shows the timeline's window. */
  setWindow(from: number, to: number): void {
    this.window = { from, to };
    this.plot?.redraw(false, false);
  }

  private create(data: uPlot.AlignedData, c: Palette): void {
    this.plot?.destroy();
    const bars = uPlot.paths.bars!({ size: [1, Infinity, 1], align: 0 });
    const series = (label: string, colour: string): uPlot.Series => ({ label, fill: colour, stroke: colour, width: 0, paths: bars, points: { show: false } });
    const axis = { stroke: c.muted, grid: { stroke: c.grid, width: 1 }, ticks: { stroke: c.grid, width: 1 }, font: `11px ${c.font}` };
    this.plot = new uPlot(
      {
        ...this.size(),
        ms: 1,
        tzDate: (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
        legend: { show: false },
        cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, y: false },
        select: { show: true, left: 0, top: 0, width: 0, height: 0 },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          { ...axis, size: 24, values: [[3600e3 * 24, '{MM}-{DD}', null, null, null, null, null, null, 1], [60e3, '{HH}:{mm}', null, null, null, null, null, null, 1], [1e3, '{HH}:{mm}:{ss}', null, null, null, null, null, null, 1]] },
          { ...axis, size: 44, ticks: { show: false }, splits: (_u, _i, _min, max) => [0, Math.round(max / 2), Math.round(max)] },
        ],
        series: [{}, series('dropped by the spam filter', c.drop), series('Warning', c.warning), series('Normal', c.normal)],
        hooks: {
          setSelect: [
            (u) => {
              if (u.select.width < 3) return;
              const from = u.posToVal(u.select.left, 'x');
              const to = u.posToVal(u.select.left + u.select.width, 'x');
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
              this.onBrush(from, to);
            },
          ],
          draw: [(u) => this.shade(u)],
        },
      },
      data,
      this.host,
    );
  }

  /** Dims what lies outside the timeline's window. */
  private shade(u: uPlot): void {
    const { left, top, width, height } = u.bbox;
    const x0 = Math.max(left, u.valToPos(this.window.from, 'x', true));
    const x1 = Math.min(left + width, u.valToPos(this.window.to, 'x', true));
    const ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = this.colours!.bg;
    ctx.globalAlpha = 0.6;
    if (x0 > left) ctx.fillRect(left, top, x0 - left, height);
    if (x1 < left + width) ctx.fillRect(x1, top, left + width - x1, height);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = this.colours!.select;
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.strokeRect(x0, top + 1, Math.max(1, x1 - x0), height - 2);
    ctx.restore();
  }
}
