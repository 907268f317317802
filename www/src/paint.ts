// Drawing the timeline on a canvas: the time axis, the gutter of labels,
// and per row its stored events (bars from first to last seen, with their
// count; a single occurrence as a tick; series with their heartbeats),
// the occurrences behind them, and the events not written (spam drops,
// refusals, traps) as marks of their own.
// Work is bounded by pixels, not events: marks that fall on a pixel already
// drawn are skipped, and only rows and times in view are visited.

import type { Entry, Selection } from './entries';
import { clock, count, timeStep } from './format';
import type { Kept, Layout, RunView } from './model';
import { Act, isMark, row as rowOf } from './model';

export const ROW = 20;
export const AXIS = 28;

/** The colours of the current theme, read from CSS custom properties. */
export interface Palette {
  bg: string;
  fg: string;
  muted: string;
  grid: string;
  stripe: string;
  header: string;
  normal: string;
  warning: string;
  drop: string;
  heartbeat: string;
  refused: string;
  trap: string;
  select: string;
  font: string;
}

export function palette(element: Element): Palette {
  const css = getComputedStyle(element);
  const v = (name: string) => css.getPropertyValue(`--${name}`).trim();
  return {
    bg: v('bg'), fg: v('fg'), muted: v('muted'), grid: v('grid'), stripe: v('stripe'), header: v('header-bg'),
    normal: v('normal'), warning: v('warning'), drop: v('drop'), heartbeat: v('heartbeat'), refused: v('refused'), trap: v('trap'), select: v('select'),
    font: css.fontFamily,
  };
}

/** Everything one frame needs. */
export interface Scene {
  layout: Layout;
  view: RunView;
  kept: Kept;
  entries: Entry[];
  from: number;
  to: number;
  scrollTop: number;
  width: number;
  height: number;
  gutter: number;
  selection: Selection;
  hoverEntry: number;
  colours: Palette;
}

/** The x of instant `t`. */
export function xOf(s: Scene, t: number): number {
  return s.gutter + ((t - s.from) / (s.to - s.from)) * (s.width - s.gutter - 12);
}

/** The instant at x. */
export function tOf(s: Scene, x: number): number {
  return s.from + ((x - s.gutter) / (s.width - s.gutter - 12)) * (s.to - s.from);
}

/** First index in sorted `items[lo..hi)` whose time is at least `t`. */
export function lowerBound(items: Uint32Array, lo: number, hi: number, timeOf: (i: number) => number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeOf(items[mid]) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function paint(ctx: CanvasRenderingContext2D, s: Scene): void {
  const c = s.colours;
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, s.width, s.height);
  ctx.font = `12px ${c.font}`;
  ctx.textBaseline = 'middle';
  const first = Math.max(0, Math.floor(s.scrollTop / ROW));
  const last = Math.min(s.entries.length, Math.ceil((s.scrollTop + s.height - AXIS) / ROW));
  paintGrid(ctx, s);
  for (let e = first; e < last; e++) {
    const y = AXIS + e * ROW - s.scrollTop;
    const entry = s.entries[e];
    if (entry.kind === 'row') paintRow(ctx, s, entry.row, y, e);
    else paintHeader(ctx, s, entry, y);
  }
  paintAxis(ctx, s);
}

function paintGrid(ctx: CanvasRenderingContext2D, s: Scene): void {
  const step = timeStep(s.to - s.from, Math.max(2, (s.width - s.gutter) / 90));
  ctx.fillStyle = s.colours.grid;
  for (let t = Math.ceil(s.from / step) * step; t <= s.to; t += step) ctx.fillRect(Math.round(xOf(s, t)), AXIS, 1, s.height - AXIS);
}

function paintAxis(ctx: CanvasRenderingContext2D, s: Scene): void {
  const c = s.colours;
  ctx.fillStyle = c.header;
  ctx.fillRect(0, 0, s.width, AXIS);
  ctx.fillStyle = c.grid;
  ctx.fillRect(0, AXIS - 1, s.width, 1);
  const span = s.to - s.from;
  const step = timeStep(span, Math.max(2, (s.width - s.gutter) / 90));
  const withDate = span > 86400e3 || new Date(s.from).getUTCDate() !== new Date(s.to).getUTCDate();
  ctx.fillStyle = c.muted;
  ctx.textAlign = 'center';
  for (let t = Math.ceil(s.from / step) * step; t <= s.to; t += step) {
    const x = xOf(s, t);
    if (x < s.gutter + 24 || x > s.width - 24) continue;
    ctx.fillRect(Math.round(x), AXIS - 6, 1, 5);
    ctx.fillText(clock(t, withDate, step < 1000), x, AXIS / 2 - 1);
  }
  ctx.textAlign = 'left';
  ctx.fillStyle = c.fg;
  ctx.font = `600 12px ${c.font}`;
  ctx.fillText('Object · reason', 10, AXIS / 2 - 1);
  ctx.font = `12px ${c.font}`;
  ctx.fillStyle = c.muted;
  ctx.textAlign = 'right';
  ctx.fillText('times in UTC', s.gutter - 8, AXIS / 2 - 1);
  ctx.textAlign = 'left';
}

function paintHeader(ctx: CanvasRenderingContext2D, s: Scene, entry: Exclude<Entry, { kind: 'row' }>, y: number): void {
  const c = s.colours;
  ctx.fillStyle = c.header;
  ctx.fillRect(0, y, s.width, ROW);
  ctx.fillStyle = c.fg;
  const arrow = entry.collapsed ? '▸' : '▾';
  const objects = `${count(entry.objects)} object${entry.objects === 1 ? '' : 's'}`;
  if (entry.kind === 'namespace') {
    ctx.font = `600 12px ${c.font}`;
    ctx.fillText(`${arrow} ${entry.namespace || '(cluster-scoped)'}`, 6, y + ROW / 2);
    ctx.font = `12px ${c.font}`;
    ctx.fillStyle = c.muted;
    ctx.fillText(objects, s.gutter + 6, y + ROW / 2);
  } else {
    ctx.fillText(`${arrow} ${entry.objectKind}`, 18, y + ROW / 2);
    ctx.fillStyle = c.muted;
    ctx.fillText(objects, s.gutter + 6, y + ROW / 2);
  }
}

function clipText(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '…';
}

function paintRow(ctx: CanvasRenderingContext2D, s: Scene, row: number, y: number, e: number): void {
  const c = s.colours;
  const r = rowOf(s.layout, row);
  if (e === s.hoverEntry) {
    ctx.fillStyle = c.stripe;
    ctx.fillRect(0, y, s.width, ROW);
  }
  const mid = y + ROW / 2;
  // Gutter: the object on its first row, then its reasons.
  ctx.fillStyle = c.fg;
  const reasonWidth = Math.min(130, s.gutter * 0.42);
  if (r.first) ctx.fillText(clipText(ctx, r.name, s.gutter - reasonWidth - 40), 30, mid);
  ctx.fillStyle = c.muted;
  ctx.textAlign = 'right';
  ctx.fillText(clipText(ctx, r.reason, reasonWidth), s.gutter - 8, mid);
  ctx.textAlign = 'left';
  ctx.save();
  ctx.beginPath();
  ctx.rect(s.gutter, y, s.width - s.gutter, ROW);
  ctx.clip();
  paintOccurrences(ctx, s, row, y);
  const labels = paintStored(ctx, s, row, mid);
  paintDrops(ctx, s, row, y);
  paintLabels(ctx, s, labels, mid);
  ctx.restore();
}

/** Each written or absorbed occurrence: a short tick along the row's foot. */
function paintOccurrences(ctx: CanvasRenderingContext2D, s: Scene, row: number, y: number): void {
  const { layout, view, kept } = s;
  const at = layout.facts.at;
  const { offsets, items } = layout.rowInputs;
  const lo = lowerBound(items, offsets[row], offsets[row + 1], (i) => at[i], s.from);
  const hi = lowerBound(items, lo, offsets[row + 1], (i) => at[i], s.to + 1);
  const warning = items[lo] !== undefined && layout.facts.type[items[lo]] === layout.warning;
  ctx.fillStyle = warning ? s.colours.warning : s.colours.normal;
  ctx.globalAlpha = 0.55;
  let lastX = -1;
  for (let j = lo; j < hi; j++) {
    const i = items[j];
    const act = view.acts[i];
    if (!kept.inputs[i] || isMark(act)) continue;
    const x = Math.round(xOf(s, at[i]));
    if (x === lastX) continue;
    lastX = x;
    ctx.fillRect(x, y + ROW - 5, 1, 4);
  }
  ctx.globalAlpha = 1;
}

/** A count to write next to its bar. */
interface Label {
  text: string;
  x0: number;
  x1: number;
}

/** Counts, drawn last with a halo so that marks never hide them: right of the bar, else inside its end, else left of it. */
function paintLabels(ctx: CanvasRenderingContext2D, s: Scene, labels: Label[], mid: number): void {
  ctx.lineWidth = 3;
  ctx.lineJoin = 'round';
  ctx.strokeStyle = s.colours.bg;
  ctx.fillStyle = s.colours.fg;
  for (const { text, x0, x1 } of labels) {
    const w = ctx.measureText(text).width;
    let x = x1 + 4;
    if (x + w > s.width - 2) x = x1 - w - 4 > Math.max(x0, s.gutter) + 2 ? x1 - w - 4 : Math.max(s.gutter + 2, x0 - w - 4);
    ctx.strokeText(text, x, mid);
    ctx.fillText(text, x, mid);
  }
}

function paintStored(ctx: CanvasRenderingContext2D, s: Scene, row: number, mid: number): Label[] {
  const labels: Label[] = [];
  const { view, kept } = s;
  const st = view.run.stored;
  const { offsets, items } = view.rowStored;
  const selected = s.selection?.kind === 'stored' ? s.selection.index : -1;
  for (let j = offsets[row]; j < offsets[row + 1]; j++) {
    const i = items[j];
    if (!kept.stored[i] || st.last[i] < s.from || st.first[i] > s.to) continue;
    const x0 = xOf(s, st.first[i]);
    const x1 = Math.max(xOf(s, st.last[i]), x0 + 3);
    const colour = st.type[i] === s.layout.warning ? s.colours.warning : s.colours.normal;
    const combined = st.strings.get(st.message[i]).startsWith('(combined from similar events)');
    ctx.fillStyle = colour;
    if (st.count[i] <= 1 && !st.series[i]) {
      // A single occurrence: a tick with a diamond head.
      ctx.fillRect(Math.round(x0) - 1, mid - 6, 2, 12);
      diamond(ctx, x0, mid - 6, 3.5);
    } else {
      ctx.fillRect(x0, mid - 5, x1 - x0, 10);
      if (combined) hatch(ctx, x0, mid - 5, x1 - x0, 10, s.colours.bg);
      if (st.series[i]) {
        ctx.fillStyle = s.colours.bg;
        ctx.fillRect(x0, mid - 1, x1 - x0, 2);
      }
      labels.push({ text: `×${count(st.count[i])}`, x0, x1 });
    }
    if (i === selected) {
      ctx.strokeStyle = s.colours.select;
      ctx.lineWidth = 2;
      ctx.strokeRect(x0 - 3, mid - 8, x1 - x0 + 6, 16);
    }
  }
  paintTicks(ctx, s, row, mid);
  return labels;
}

/** Series heartbeats and finishes, and other timer writes, on their event's bar. */
function paintTicks(ctx: CanvasRenderingContext2D, s: Scene, row: number, mid: number): void {
  const { view } = s;
  const ticks = view.run.ticks;
  const { offsets, items } = view.rowTicks;
  ctx.fillStyle = s.colours.heartbeat;
  ctx.strokeStyle = s.colours.bg;
  ctx.lineWidth = 1;
  for (let j = offsets[row]; j < offsets[row + 1]; j++) {
    const i = items[j];
    if (ticks.at[i] < s.from || ticks.at[i] > s.to) continue;
    const x = xOf(s, ticks.at[i]);
    ctx.beginPath();
    ctx.arc(x, mid, 3.5, 0, Math.PI * 2);
    ctx.fill();
    ctx.stroke();
  }
}

/** Spam drops as ✕ marks above the bar, refusals as squares, in colours of their own. */
function paintDrops(ctx: CanvasRenderingContext2D, s: Scene, row: number, y: number): void {
  const { layout, view, kept } = s;
  const at = layout.facts.at;
  const { offsets, items } = layout.rowInputs;
  const lo = lowerBound(items, offsets[row], offsets[row + 1], (i) => at[i], s.from);
  const hi = lowerBound(items, lo, offsets[row + 1], (i) => at[i], s.to + 1);
  const selected = s.selection?.kind === 'input' ? s.selection.index : -1;
  const linked = s.selection?.kind === 'stored' ? s.selection.index : -1;
  ctx.lineWidth = 1.5;
  let lastX = -10;
  for (let j = lo; j < hi; j++) {
    const i = items[j];
    const act = view.acts[i];
    if (!kept.inputs[i]) continue;
    const x = xOf(s, at[i]);
    if (linked >= 0 && view.run.target[i] === linked) {
      ctx.fillStyle = s.colours.select;
      ctx.fillRect(Math.round(x), y + ROW - 6, 1, 5);
    }
    if (!isMark(act)) continue;
    if (i !== selected && x - lastX < 3) continue;
    lastX = x;
    if (act === Act.Drop) {
      ctx.strokeStyle = s.colours.drop;
      cross(ctx, x, y + 5, 3);
    } else if (act === Act.Trap) {
      ctx.fillStyle = s.colours.trap;
      triangle(ctx, x, y + 5, 4);
    } else {
      ctx.fillStyle = s.colours.refused;
      ctx.fillRect(x - 3, y + 2, 6, 6);
    }
    if (i === selected) {
      ctx.strokeStyle = s.colours.select;
      ctx.lineWidth = 2;
      ctx.strokeRect(x - 6, y + 1, 12, 12);
      ctx.lineWidth = 1.5;
    }
  }
}

function cross(ctx: CanvasRenderingContext2D, x: number, y: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x - r, y - r);
  ctx.lineTo(x + r, y + r);
  ctx.moveTo(x + r, y - r);
  ctx.lineTo(x - r, y + r);
  ctx.stroke();
}

/** A filled triangle pointing up, centred on (x, y). */
function triangle(ctx: CanvasRenderingContext2D, x: number, y: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x, y - r);
  ctx.lineTo(x + r, y + r - 1);
  ctx.lineTo(x - r, y + r - 1);
  ctx.closePath();
  ctx.fill();
}

function diamond(ctx: CanvasRenderingContext2D, x: number, y: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x, y - r);
  ctx.lineTo(x + r, y);
  ctx.lineTo(x, y + r);
  ctx.lineTo(x - r, y);
  ctx.closePath();
  ctx.fill();
}

/** Diagonal stripes: a combined (aggregated) event, told apart by shape as well as colour. */
function hatch(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, colour: string): void {
  ctx.save();
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = colour;
  ctx.globalAlpha = 0.6;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (let sx = x - h; sx < x + w; sx += 5) {
    ctx.moveTo(sx, y + h);
    ctx.lineTo(sx + h, y);
  }
  ctx.stroke();
  ctx.restore();
}
