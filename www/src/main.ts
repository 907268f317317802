// The dashboard: wires the sources, the worker, the views and the URL.
// The worker reads and correlates; this thread keeps typed-array indexes
// and draws.

import 'uplot/dist/uPlot.min.css';
import './style.css';
import { type Selection, sameSelection } from './entries';
import { Detail } from './detail';
import { count } from './format';
import { Filters } from './filters';
import { List } from './list';
import { Live } from './live';
import { type Kept, type Layout, type RunView, fates, keep, layout as buildLayout, runView } from './model';
import { Overview } from './overview';
import { palette } from './paint';
import type { BadRecord, Options, Reply, Request, RunColumns, Which } from './protocol';
import { SAMPLES, type Loaded, fileSources, loadSample } from './sources';
import { initTheme } from './theme';
import { Timeline } from './timeline';
import { type ViewState, readState, writeState } from './url';
import { type Knobs, WhatIf, knobsOf, optionsOf } from './whatif';

const $ = <T extends HTMLElement = HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

// ---- the worker, as promises ----

type Reply_<K extends Reply['kind']> = Extract<Reply, { kind: K }>;
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
let nextId = 1;
worker.onmessage = (e: MessageEvent<Reply>) => {
  const waiter = pending.get(e.data.id);
  pending.delete(e.data.id);
  if (!waiter) return;
  if (e.data.kind === 'error') waiter.reject(new Error(e.data.message));
  else waiter.resolve(e.data);
};
worker.onerror = (e) => fail(`the worker failed: ${e.message}`);

type Unsent = Request extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

function ask<K extends Reply['kind']>(request: Unsent, transfer: Transferable[] = []): Promise<Reply_<K>> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve: resolve as (r: Reply) => void, reject });
    worker.postMessage({ ...request, id } as Request, transfer);
  });
}

// ---- state ----

let state: ViewState = readState(location.hash);
let defaults: Required<Options>;
let data: {
  layout: Layout;
  views: Record<Which, RunView | null>;
  name: string;
  live: boolean;
} | null = null;
let kept: Kept | null = null;
let replaySerial = 0;

const status = $('#status');
const announce = $('#announce');
const timeline = new Timeline($('#timeline'), {
  select: (s) => select(s, 'timeline'),
  range: (from, to) => {
    overview.setWindow(from, to);
    state.from = from;
    state.to = to;
    saveState();
  },
});
const overview = new Overview($('#overview'), (from, to) => timeline.setRange(from, to));
const list = new List($('#list'), state.sort, {
  select: (s) => select(s, 'list'),
  sort: (sort) => {
    state.sort = sort;
    saveState();
  },
});
const detail = new Detail($('#detail'), (s) => select(s, 'detail'));
const filters = new Filters($('#filters'), (filter) => {
  state.filter = filter;
  state.selection = null;
  refresh();
});
let whatif: WhatIf;
const live: Live = new Live($('#live-status'), {
  reset: () => {
    data = null;
  },
  events: (bytes: ArrayBuffer, append: boolean): Promise<void> => load({ name: live.url, bytes }, append, true),
});

function fail(message: string): void {
  status.textContent = message;
  status.classList.add('error');
  document.body.dataset.status = 'error';
}

let saveTimer = 0;
function saveState(): void {
  clearTimeout(saveTimer);
  saveTimer = window.setTimeout(() => history.replaceState(null, '', `#${writeState(state)}`), 150);
}

function shown(): RunView | null {
  if (!data) return null;
  return (state.show === 'whatif' && data.views.whatif) || data.views.base;
}

// ---- loading ----

async function load(source: Loaded, append = false, isLive = false): Promise<void> {
  const started = performance.now();
  document.body.dataset.status = 'loading';
  status.classList.remove('error');
  status.textContent = `Reading ${source.name}…`;
  const base: Options = { mode: state.mode };
  // With no what-if options the after run is the before run: correlate once.
  const same = Object.keys(state.whatif).length === 0;
  const reply = await ask<'loaded'>(
    { kind: append && data ? 'append' : 'load', bytes: source.bytes, base, whatif: same ? null : { ...base, ...state.whatif } },
    [source.bytes],
  );
  const laidOut = performance.now();
  const lay = buildLayout(reply.facts, reply.errors);
  const baseView = runView(lay, reply.base);
  data = {
    layout: lay,
    views: { base: baseView, whatif: reply.whatif ? runView(lay, reply.whatif) : same ? baseView : null },
    name: source.name,
    live: isLive,
  };
  if (state.selection && !valid(state.selection)) state.selection = null;
  filters.setChoices(reply.facts, state.filter);
  showProblems(reply.errors);
  refresh(!append);
  timeline.draw();
  const total = performance.now() - started;
  const f = reply.facts.at.length;
  status.textContent = `${source.name}: ${count(f)} events${reply.errors.length ? `, ${count(reply.errors.length)} bad records` : ''} · read ${reply.readMillis.toFixed(0)} ms, correlated ${reply.base.millis.toFixed(0)} ms, laid out and drawn ${(performance.now() - laidOut).toFixed(0)} ms, shown in ${total.toFixed(0)} ms`;
  document.body.dataset.status = 'ready';
  document.body.dataset.loadMillis = total.toFixed(1);
  $('#empty').hidden = true;
}

function valid(s: NonNullable<Selection>): boolean {
  const view = shown();
  if (!view || !data) return false;
  return s.kind === 'stored' ? s.index < view.run.stored.count.length : s.index < data.layout.facts.at.length;
}

function showProblems(errors: BadRecord[]): void {
  const box = $('#problems');
  box.hidden = errors.length === 0;
  if (errors.length === 0) return;
  const shownErrors = errors.slice(0, 100).map((e) => `<li><code>${e.position}</code> ${e.message.replace(/[&<]/g, (c) => (c === '&' ? '&amp;' : '&lt;'))}</li>`);
  box.innerHTML = `<h2>${count(errors.length)} bad record${errors.length === 1 ? '' : 's'} skipped</h2><ul>${shownErrors.join('')}${errors.length > 100 ? `<li>… and ${count(errors.length - 100)} more</li>` : ''}</ul>`;
}

// ---- views ----

/** Recomputes what the filter keeps and redraws every view. */
function refresh(resetRange = false): void {
  const view = shown();
  if (!data || !view) return;
  kept = keep(data.layout, view, state.filter);
  timeline.setData(data.layout, view, kept, state.selection);
  const full = timeline.fullRange;
  if (resetRange && state.from !== null && state.to !== null) timeline.setRange(state.from, state.to);
  overview.setData(data.layout, view, kept, full.from, full.to, palette(document.documentElement));
  overview.setWindow(timeline.range.from, timeline.range.to);
  list.setData(view, kept, data.live ? BigInt(Date.now()) * 1_000_000n : view.lastSeen, state.selection);
  filters.showCounts(kept.inputCount, data.layout.facts.at.length, kept.storedCount, view.run.stored.count.length);
  showFigures();
  showDetail();
  saveState();
}

function showFigures(): void {
  if (!data) return;
  const figures = (v: RunView) => ({ stats: v.run.stats, stored: v.run.stored.count.length, fates: fates(data!.layout, v) });
  const after = data.views.whatif;
  whatif.show(figures(data.views.base!), after && figures(after), false);
}

function showDetail(): void {
  const view = shown();
  if (!data || !view) return;
  const which: Which = view === data.views.whatif && view !== data.views.base ? 'whatif' : 'base';
  detail.show(data.layout, view, state.selection, {
    explain: async (input) => {
      const r = await ask<'explained'>({ kind: 'explain', which, input });
      return { decision: r.decision, raw: r.raw };
    },
    stored: async (stored) => (await ask<'stored'>({ kind: 'stored', which, stored })).event,
  });
}

function select(selection: Selection, from: 'timeline' | 'list' | 'detail'): void {
  if (sameSelection(selection, state.selection)) return;
  state.selection = selection;
  if (from !== 'timeline') timeline.setSelection(selection);
  if (from !== 'list') list.setSelection(selection);
  showDetail();
  saveState();
  announce.textContent = selection ? timeline.describe(selection) : 'Selection cleared';
}

/** Replays the what-if run (and the baseline too when `rebase`, after a change of mode). */
async function replayWhatIf(knobs: Knobs, rebase = false): Promise<void> {
  state.whatif = optionsOf(knobs, defaults);
  saveState();
  if (!data) return;
  const serial = ++replaySerial;
  $('#whatif').classList.add('busy');
  const base = rebase ? { mode: state.mode } : null;
  const same = Object.keys(state.whatif).length === 0;
  const reply = await ask<'replayed'>({ kind: 'replay', base, whatif: same ? null : { mode: state.mode, ...state.whatif } });
  if (serial !== replaySerial || !data) return;
  $('#whatif').classList.remove('busy');
  if (reply.base) data.views.base = runView(data.layout, reply.base);
  data.views.whatif = reply.whatif ? runView(data.layout, reply.whatif as RunColumns) : same ? data.views.base : null;
  if (state.show === 'whatif' || reply.base) refresh();
  else showFigures();
  document.body.dataset.whatif = String(serial);
}

function setView(view: 'timeline' | 'list'): void {
  state.view = view;
  for (const tab of document.querySelectorAll<HTMLElement>('[role=tab]')) {
    const selected = tab.dataset.view === view;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  $('#timeline').hidden = view !== 'timeline';
  $('#list').hidden = view !== 'list';
  $('.zoom').hidden = view !== 'timeline';
  saveState();
}

// ---- start ----

async function start(): Promise<void> {
  defaults = (await ask<'defaults'>({ kind: 'defaults' })).options;
  whatif = new WhatIf(
    $('#whatif'),
    defaults,
    (k) => {
      clearTimeout(whatifTimer);
      whatifTimer = window.setTimeout(() => replayWhatIf(k), 120);
    },
    (which) => {
      state.show = which;
      state.selection = null;
      refresh();
    },
  );
  let whatifTimer = 0;
  whatif.knobs = knobsOf(state.whatif, defaults);
  whatif.showing = state.show;
  initTheme($('#theme'), () => {
    timeline.restyle();
    if (data) refresh();
  });
  const samples = $<HTMLSelectElement>('#sample');
  samples.innerHTML = `<option value="">Load a sample…</option>${SAMPLES.map((s) => `<option value="${s.id}">${s.title}</option>`).join('')}`;
  samples.addEventListener('change', () => {
    const sample = SAMPLES.find((s) => s.id === samples.value);
    samples.value = '';
    if (sample) openSample(sample.id, true);
  });
  for (const button of document.querySelectorAll<HTMLElement>('[data-sample]')) button.addEventListener('click', () => openSample(button.dataset.sample!, true));
  fileSources($('#open'), $<HTMLInputElement>('#file'), document.body, async (file) => {
    live.disconnect();
    state.source = `file:${file.name}`;
    await load({ name: file.name, bytes: await file.arrayBuffer() }).catch((e) => fail(`${file.name}: ${e.message}`));
  });
  $('#mode').addEventListener('change', (e) => {
    state.mode = (e.target as HTMLSelectElement).value as 'legacy' | 'series';
    state.selection = null;
    replayWhatIf(whatif.knobs, true);
  });
  $<HTMLSelectElement>('#mode').value = state.mode;
  for (const tab of document.querySelectorAll<HTMLElement>('[role=tab]')) {
    tab.addEventListener('click', () => setView(tab.dataset.view as 'timeline' | 'list'));
    tab.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      const other = document.querySelector<HTMLElement>(`[role=tab]:not([data-view=${tab.dataset.view}])`)!;
      other.focus();
      setView(other.dataset.view as 'timeline' | 'list');
    });
  }
  $('#zoom-in').addEventListener('click', () => timeline.zoomAt(-1, 0.5));
  $('#zoom-out').addEventListener('click', () => timeline.zoomAt(-1, 2));
  $('#zoom-fit').addEventListener('click', () => timeline.setRange(timeline.fullRange.from, timeline.fullRange.to));
  $('#connect').addEventListener('click', () => live.ask(state.source.startsWith('live:') ? state.source.slice(5) : ''));
  live.onConnect = (url: string) => {
    state.source = `live:${url}`;
    saveState();
  };
  setView(state.view);
  filters.set(state.filter);
  window.addEventListener('hashchange', () => {
    const next = readState(location.hash);
    if (writeState(next) === writeState(state)) return;
    const loadedSource = state.source;
    const modeChanged = next.mode !== state.mode;
    state = next;
    filters.set(state.filter);
    whatif.knobs = knobsOf(state.whatif, defaults);
    whatif.showing = state.show;
    setView(state.view);
    $<HTMLSelectElement>('#mode').value = state.mode;
    if (next.source !== loadedSource) reloadSource();
    else {
      replayWhatIf(whatif.knobs, modeChanged);
      refresh(true);
    }
  });
  if (document.body.dataset.status === 'starting') document.body.dataset.status = 'idle';
  if (!state.source && (await servedByHushd())) state.source = `live:${location.origin}`;
  reloadSource();
}

/** Whether this page comes from a Kubernetes API (hushd serve embeds the dashboard): then it shows that server live. */
async function servedByHushd(): Promise<boolean> {
  if (!location.protocol.startsWith('http')) return false;
  try {
    const response = await fetch(`${location.origin}/version`, { headers: { Accept: 'application/json' } });
    return response.ok && typeof (await response.json()).gitVersion === 'string';
  } catch {
    return false;
  }
}

function reloadSource(): void {
  const source = state.source;
  if (source.startsWith('sample:')) openSample(source.slice(7), false);
  else if (source.startsWith('live:')) live.connect(source.slice(5));
}

async function openSample(id: string, chosen: boolean): Promise<void> {
  const sample = SAMPLES.find((s) => s.id === id);
  if (!sample) return fail(`no sample "${id}"`);
  live.disconnect();
  state.source = `sample:${id}`;
  if (chosen) {
    state.mode = sample.mode ?? 'legacy';
    state.whatif = sample.whatif ?? {};
    state.selection = null;
    state.from = state.to = null;
    $<HTMLSelectElement>('#mode').value = state.mode;
    whatif.knobs = knobsOf(state.whatif, defaults);
  }
  try {
    status.textContent = `Loading ${sample.title}…`;
    const loaded = await loadSample(sample, async (events) => (await ask<'synthetic'>({ kind: 'synthetic', events })).bytes);
    await load(loaded);
  } catch (e) {
    fail(`${sample.title}: ${(e as Error).message}`);
  }
}

start().catch((e) => fail(`hush could not start: ${(e as Error).message}`));

// For the benchmark and the tests: the views, and a way to time a frame.
Object.assign(window, { hush: { timeline, list, ask } });
