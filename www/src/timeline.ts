// The timeline view: a canvas in a scrolling box (native vertical scroll,
// one spacer, no DOM node per event), zoom and pan with Ctrl+wheel,
// Shift+wheel, drag, double-click and the keyboard, hover tips, click and
// arrow-key selection.

import { type Entry, type Item, type Selection, entries, groupKey, items, rowOf, sameSelection } from './entries';
import { clock, count, utc } from './format';
import type { Kept, Layout, RunView } from './model';
import { Act, isMark, row as layoutRow } from './model';
import { AXIS, ROW, type Scene, lowerBound, paint, palette, tOf } from './paint';

export interface TimelineEvents {
  /** The user selected something (or nothing). */
  select(selection: Selection): void;
  /** The visible time range changed. */
  range(from: number, to: number): void;
}

const MIN_SPAN = 200;

export class Timeline {
  readonly element: HTMLElement;
  private scroller: HTMLElement;
  private spacer: HTMLElement;
  private canvas: HTMLCanvasElement;
  private tip: HTMLElement;
  private ctx: CanvasRenderingContext2D;
  private scene: Scene | null = null;
  private collapsed = new Set<string>();
  private bounds = { from: 0, to: 1 };
  private frame = 0;
  private drag: { x: number; from: number; to: number; moved: boolean } | null = null;
  /** How long the last frame took to draw, ms (read by the benchmark). */
  lastDrawMillis = 0;

  constructor(host: HTMLElement, private events: TimelineEvents) {
    this.element = host;
    host.innerHTML = '<div class="tl-scroll" tabindex="-1"><canvas class="tl-canvas"></canvas><div class="tl-spacer"></div></div><div class="tl-tip" role="tooltip" hidden></div>';
    this.scroller = host.querySelector('.tl-scroll')!;
    this.canvas = host.querySelector('canvas')!;
    this.spacer = host.querySelector('.tl-spacer')!;
    this.tip = host.querySelector('.tl-tip')!;
    this.ctx = this.canvas.getContext('2d')!;
    this.scroller.addEventListener('scroll', () => this.schedule());
    new ResizeObserver(() => this.resize()).observe(this.scroller);
    this.canvas.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    this.canvas.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.canvas.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.canvas.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.canvas.addEventListener('pointerleave', () => this.hover(-1, null, 0, 0));
    this.canvas.addEventListener('dblclick', (e) => this.zoomAt(this.local(e).x, 0.5));
    host.addEventListener('keydown', (e) => this.key(e));
  }

  /** Shows a run of a layout, through a filter. Keeps the zoom unless `bounds` changed. */
  setData(layout: Layout, view: RunView, kept: Kept, selection: Selection): void {
    let { from, to } = view;
    if (!Number.isFinite(from) || !Number.isFinite(to)) from = to = Date.now();
    const pad = Math.max((to - from) * 0.02, 1000);
    const changed = !this.scene || this.bounds.from !== from - pad || this.bounds.to !== to + pad;
    this.bounds = { from: from - pad, to: to + pad };
    const previous = this.scene;
    this.scene = {
      layout, view, kept, selection,
      entries: this.entriesOf(layout, kept, previous),
      from: changed || !previous ? this.bounds.from : previous.from,
      to: changed || !previous ? this.bounds.to : previous.to,
      scrollTop: this.scroller.scrollTop,
      width: 0, height: 0, gutter: 0, hoverEntry: -1,
      colours: palette(this.element),
    };
    this.resize();
  }

  /**
   * The entries of `layout` through `kept`: those of the previous scene when
   * the rows, their order and what is kept of them are the same (a live
   * update usually adds events to rows already shown), else built anew.
   */
  private entriesOf(layout: Layout, kept: Kept, previous: Scene | null): Entry[] {
    const same = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      if (a === b) return true;
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
      return true;
    };
    if (previous && previous.layout.strings === layout.strings && same(previous.layout.rows.order, layout.rows.order) && same(previous.kept.rows, kept.rows)) return previous.entries;
    return entries(layout, kept, this.collapsed);
  }

  /** Re-reads the theme's colours. */
  restyle(): void {
    if (this.scene) this.scene.colours = palette(this.element);
    this.schedule();
  }

  get range(): { from: number; to: number } {
    return this.scene ? { from: this.scene.from, to: this.scene.to } : this.bounds;
  }

  get fullRange(): { from: number; to: number } {
    return this.bounds;
  }

  setRange(from: number, to: number): void {
    const s = this.scene;
    if (!s) return;
    const full = this.bounds.to - this.bounds.from;
    const span = Math.min(Math.max(to - from, MIN_SPAN), full * 1.5);
    let start = (from + to) / 2 - span / 2;
    start = Math.min(Math.max(start, this.bounds.from - full * 0.25), this.bounds.to + full * 0.25 - span);
    if (s.from === start && s.to === start + span) return;
    s.from = start;
    s.to = start + span;
    this.events.range(s.from, s.to);
    this.schedule();
  }

  setSelection(selection: Selection, reveal = true): void {
    const s = this.scene;
    if (!s || sameSelection(s.selection, selection)) return;
    s.selection = selection;
    if (reveal) this.reveal(selection);
    this.schedule();
  }

  private resize(): void {
    const s = this.scene;
    const width = this.scroller.clientWidth;
    const height = this.scroller.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(width * dpr));
    this.canvas.height = Math.max(1, Math.round(height * dpr));
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    if (s) {
      s.width = width;
      s.height = height;
      s.gutter = Math.round(Math.min(340, Math.max(200, width * 0.26)));
      this.spacer.style.height = `${Math.max(0, AXIS + s.entries.length * ROW + 8 - height)}px`;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws now (also used by the benchmark). */
  draw(): void {
    const s = this.scene;
    if (!s || s.width === 0) return;
    const started = performance.now();
    s.scrollTop = this.scroller.scrollTop;
    const dpr = window.devicePixelRatio || 1;
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    paint(this.ctx, s);
    this.lastDrawMillis = performance.now() - started;
    this.element.dataset.drawn = String(Number(this.element.dataset.drawn ?? 0) + 1);
  }

  private local(e: MouseEvent): { x: number; y: number } {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  private entryAt(y: number): number {
    const s = this.scene!;
    if (y < AXIS) return -1;
    const e = Math.floor((y - AXIS + s.scrollTop) / ROW);
    return e < s.entries.length ? e : -1;
  }

  /** The selectable thing under a point: a drop mark first, then a bar. */
  private hit(x: number, y: number): { entry: number; selection: Selection } {
    const s = this.scene!;
    const entry = this.entryAt(y);
    const e = s.entries[entry];
    if (!e || e.kind !== 'row' || x < s.gutter) return { entry, selection: null };
    const tolerance = ((s.to - s.from) / (s.width - s.gutter)) * 5;
    let best: Selection = null;
    let bestDistance = Infinity;
    const t = tOf(s, x);
    const at = s.layout.facts.at;
    const { offsets, items: inputs } = s.layout.rowInputs;
    const yIn = y - (AXIS + entry * ROW - s.scrollTop);
    if (yIn < ROW / 2) {
      const lo = lowerBound(inputs, offsets[e.row], offsets[e.row + 1], (i) => at[i], t - tolerance);
      for (let j = lo; j < offsets[e.row + 1] && at[inputs[j]] <= t + tolerance; j++) {
        const i = inputs[j];
        const act = s.view.acts[i];
        if (!s.kept.inputs[i] || !isMark(act)) continue;
        const d = Math.abs(at[i] - t);
        if (d < bestDistance) [best, bestDistance] = [{ kind: 'input', index: i }, d];
      }
      if (best) return { entry, selection: best };
    }
    const st = s.view.run.stored;
    const { offsets: so, items: stored } = s.view.rowStored;
    for (let j = so[e.row]; j < so[e.row + 1]; j++) {
      const i = stored[j];
      if (!s.kept.stored[i]) continue;
      const d = t < st.first[i] ? st.first[i] - t : t > st.last[i] ? t - st.last[i] : 0;
      if (d <= tolerance && d < bestDistance) [best, bestDistance] = [{ kind: 'stored', index: i }, d];
    }
    return { entry, selection: best };
  }

  private wheel(e: WheelEvent): void {
    const s = this.scene;
    if (!s) return;
    const { x } = this.local(e);
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      this.zoomAt(x, Math.exp(e.deltaY * 0.002));
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      const d = e.shiftKey ? e.deltaY || e.deltaX : e.deltaX;
      this.pan((d / (s.width - s.gutter)) * (s.to - s.from));
    }
  }

  /** Zooms by `factor` (< 1 zooms in) keeping the instant under x in place. */
  zoomAt(x: number, factor: number): void {
    const s = this.scene;
    if (!s) return;
    const anchor = x >= s.gutter ? tOf(s, x) : (s.from + s.to) / 2;
    const from = anchor - (anchor - s.from) * factor;
    const to = anchor + (s.to - anchor) * factor;
    this.setRange(from, to);
  }

  pan(ms: number): void {
    const s = this.scene;
    if (s) this.setRange(s.from + ms, s.to + ms);
  }

  private pointerDown(e: PointerEvent): void {
    const s = this.scene;
    if (!s || e.button !== 0) return;
    this.element.focus({ preventScroll: true });
    this.canvas.setPointerCapture(e.pointerId);
    this.drag = { x: e.clientX, from: s.from, to: s.to, moved: false };
  }

  private pointerMove(e: PointerEvent): void {
    const s = this.scene;
    if (!s) return;
    if (this.drag) {
      const dx = e.clientX - this.drag.x;
      if (Math.abs(dx) > 3) this.drag.moved = true;
      if (this.drag.moved) {
        const ms = (-dx / (s.width - s.gutter)) * (this.drag.to - this.drag.from);
        this.setRange(this.drag.from + ms, this.drag.to + ms);
        this.canvas.style.cursor = 'grabbing';
        return;
      }
    }
    const { x, y } = this.local(e);
    const { entry, selection } = this.hit(x, y);
    this.hover(entry, selection, x, y);
  }

  private pointerUp(e: PointerEvent): void {
    const drag = this.drag;
    this.drag = null;
    this.canvas.style.cursor = '';
    if (!drag || drag.moved || !this.scene) return;
    const { x, y } = this.local(e);
    const { entry, selection } = this.hit(x, y);
    const target = this.scene.entries[entry];
    if (target && target.kind !== 'row' && x < this.scene.gutter + 200) {
      this.toggle(target);
      return;
    }
    if (!sameSelection(selection, this.scene.selection)) {
      this.scene.selection = selection;
      this.events.select(selection);
      this.schedule();
    }
  }

  private toggle(entry: Exclude<Entry, { kind: 'row' }>): void {
    const key = entry.kind === 'namespace' ? groupKey(entry.namespace) : groupKey(entry.namespace, entry.objectKind);
    if (!this.collapsed.delete(key)) this.collapsed.add(key);
    const s = this.scene!;
    s.entries = entries(s.layout, s.kept, this.collapsed);
    this.resize();
  }

  private hover(entry: number, selection: Selection, x: number, y: number): void {
    const s = this.scene;
    if (!s) return;
    if (s.hoverEntry !== entry) {
      s.hoverEntry = entry;
      this.schedule();
    }
    this.canvas.style.cursor = selection ? 'pointer' : s.entries[entry] && s.entries[entry].kind !== 'row' ? 'pointer' : '';
    if (!selection) {
      this.tip.hidden = true;
      return;
    }
    this.tip.textContent = this.describe(selection);
    this.tip.hidden = false;
    const left = Math.min(x + 14, s.width - this.tip.offsetWidth - 4);
    this.tip.style.transform = `translate(${Math.max(0, left)}px, ${y + 16}px)`;
  }

  /** A one-line description of a selection (tips and the screen-reader announcement). */
  describe(selection: NonNullable<Selection>): string {
    const s = this.scene!;
    if (selection.kind === 'stored') {
      const st = s.view.run.stored;
      const i = selection.index;
      const str = (ids: Uint32Array) => st.strings.get(ids[i]);
      const when = st.count[i] > 1 ? `${utc(st.first[i])} → ${clock(st.last[i])}` : utc(st.first[i]);
      return `${str(st.type)} ${str(st.reason)} · ${str(st.kind).toLowerCase()}/${str(st.name)} · count ${count(st.count[i])}${st.series[i] ? ' (series)' : ''} · ${when}`;
    }
    const i = selection.index;
    const f = s.layout.facts;
    const act = s.view.acts[i];
    const what =
      act === Act.Drop
        ? `dropped by the spam filter (${s.view.run.tokens[i].toFixed(2)} tokens left)`
        : act === Act.Refuse
          ? 'refused: the API server would reject it'
          : act === Act.Trap
            ? 'trapped: the correlator failed on it, nothing was written'
            : (s.view.rules[s.view.run.rule[i]] ?? '');
    const str = (ids: Uint32Array) => s.layout.strings.get(ids[i]);
    return `${str(f.reason)} · ${str(f.kind).toLowerCase()}/${str(f.name)} · ${what}${f.late[i] ? ' · arrived late' : ''} · ${utc(f.at[i])}`;
  }

  /** Scrolls and pans so that `selection` is in view. */
  private reveal(selection: Selection): void {
    const s = this.scene;
    if (!s || !selection) return;
    const row = rowOf(s.layout, s.view, selection);
    let e = s.entries.findIndex((x) => x.kind === 'row' && x.row === row);
    if (e < 0 && row >= 0) {
      const r = layoutRow(s.layout, row);
      if (this.collapsed.delete(groupKey(r.namespace)) || this.collapsed.delete(groupKey(r.namespace, r.kind))) {
        s.entries = entries(s.layout, s.kept, this.collapsed);
        this.resize();
        e = s.entries.findIndex((x) => x.kind === 'row' && x.row === row);
      }
    }
    if (e >= 0) {
      const top = e * ROW;
      const visible = s.height - AXIS - ROW;
      if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
      else if (top > this.scroller.scrollTop + visible) this.scroller.scrollTop = top - visible;
    }
    const [a, b] =
      selection.kind === 'stored'
        ? [s.view.run.stored.first[selection.index], s.view.run.stored.last[selection.index]]
        : [s.layout.facts.at[selection.index], s.layout.facts.at[selection.index]];
    if (b < s.from || a > s.to) this.setRange(a - (s.to - s.from) / 2, a + (s.to - s.from) / 2);
  }

  private key(e: KeyboardEvent): void {
    const s = this.scene;
    if (!s || e.target !== this.element) return;
    const span = s.to - s.from;
    const handled = () => e.preventDefault();
    if (e.key === '+' || e.key === '=') return handled(), this.zoomAt(-1, 0.6);
    if (e.key === '-' || e.key === '_') return handled(), this.zoomAt(-1, 1 / 0.6);
    if (e.key === '0') return handled(), this.setRange(this.bounds.from, this.bounds.to);
    if (e.shiftKey && e.key === 'ArrowLeft') return handled(), this.pan(-span * 0.2);
    if (e.shiftKey && e.key === 'ArrowRight') return handled(), this.pan(span * 0.2);
    if (e.key === 'Escape') return handled(), this.choose(null);
    if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End'].includes(e.key)) return;
    handled();
    const rowEntries = s.entries.flatMap((x, i) => (x.kind === 'row' ? [i] : []));
    if (rowEntries.length === 0) return;
    const current = rowOf(s.layout, s.view, s.selection);
    let at = (s.from + s.to) / 2;
    let list: Item[] = [];
    let position = -1;
    if (current >= 0) {
      list = items(s.layout, s.view, s.kept, current);
      position = list.findIndex((x) => sameSelection(x.selection, s.selection));
      if (position >= 0) at = list[position].at;
    }
    if (current < 0 || position < 0) {
      const first = s.entries[rowEntries[Math.min(rowEntries.length - 1, Math.floor(this.scroller.scrollTop / ROW))]] ?? s.entries[rowEntries[0]];
      const row = (first as { row: number }).row;
      const candidates = items(s.layout, s.view, s.kept, row);
      return this.choose(candidates[0]?.selection ?? null);
    }
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') {
      const next = e.key === 'Home' ? 0 : e.key === 'End' ? list.length - 1 : position + (e.key === 'ArrowLeft' ? -1 : 1);
      if (next >= 0 && next < list.length) this.choose(list[next].selection);
      return;
    }
    const step = e.key === 'ArrowUp' ? -1 : 1;
    let k = rowEntries.findIndex((i) => (s.entries[i] as { row: number }).row === current) + step;
    for (; k >= 0 && k < rowEntries.length; k += step) {
      const candidates = items(s.layout, s.view, s.kept, (s.entries[rowEntries[k]] as { row: number }).row);
      if (candidates.length === 0) continue;
      const nearest = candidates.reduce((a, b) => (Math.abs(b.at - at) < Math.abs(a.at - at) ? b : a));
      return this.choose(nearest.selection);
    }
  }

  private choose(selection: Selection): void {
    if (!this.scene) return;
    this.scene.selection = selection;
    this.reveal(selection);
    this.events.select(selection);
    this.schedule();
  }
}
