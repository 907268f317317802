// The dashboard: wires the sources, the worker, the views and the URL.
// The worker reads, correlates and indexes; this thread applies its frames
// (mirror.ts), draws, and asks it for more.

import 'uplot/dist/uPlot.min.css';
import './style.css';
import { type Selection, sameSelection } from './entries';
import { Detail } from './detail';
import { count } from './format';
import { Filters } from './filters';
import { List } from './list';
import { Auth } from './auth';
import { Live } from './live';
import { Mirror } from './mirror';
import { type Kept, type Layout, type RunView, row as layoutRow, rowName } from './model';
import { Overview } from './overview';
import { palette } from './paint';
import type { BadRecord, Frame, Options, ReadProgress, ReadSummary, Reply, Request, ViewSettings, Which } from './protocol';
import { SAMPLES, type Loaded, type Picked, fileSources, loadSample } from './sources';
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
  // Progress while files are read: the request is still under way.
  if (e.data.kind === 'progress') return showProgress(e.data.progress);
  // Frames are applied here, in the order the worker built them, whoever waits.
  if (e.data.kind === 'frame') received(e.data.frame);
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
const mirror = new Mirror();
let data: {
  layout: Layout;
  views: Record<Which, RunView | null>;
  name: string;
  live: boolean;
} | null = null;
let source = { name: '', live: false };
let kept: Kept | null = null;
let replaySerial = 0;
/** Events the baseline correlated since the source was opened (each once, however many flushes). */
let correlated = 0;

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
// The overview's bars are counted by the worker: ask again when as many no longer fit.
let bins = 0;
new ResizeObserver(() => {
  if (overview.bins !== bins && mirror.ready) askView();
  bins = overview.bins;
}).observe($('#overview'));
const list = new List($('#list'), state.sort, {
  select: (s) => select(s, 'list'),
  sort: (sort) => {
    state.sort = sort;
    saveState();
    askView();
  },
});
const detail = new Detail($('#detail'), (s) => select(s, 'detail'));
const filters = new Filters($('#filters'), (filter) => {
  state.filter = filter;
  state.selection = null;
  askView();
});
let whatif: WhatIf;
const auth = new Auth($<HTMLDialogElement>('#token-dialog'));
const live: Live = new Live(
  $('#live-status'),
  {
    listPage: async (bytes, first) => {
      if (first) {
        source = { name: live.url, live: true };
        correlated = 0;
      }
      const base: Options = { mode: state.mode };
      const same = Object.keys(state.whatif).length === 0;
      const view = viewSettings();
      return (await ask<'listed'>({ kind: 'listPage', bytes, first, base, whatif: same ? null : { ...base, ...state.whatif }, view }, [bytes])).listed;
    },
    listDone: async () => {
      const reply = await ask<'frame'>({ kind: 'listDone' });
      showStatus(reply, live.url);
    },
    watch: async (bytes) => {
      const reply = await ask<'frame'>({ kind: 'watch', bytes }, [bytes]);
      showStatus(reply, live.url);
      return reply.watched!;
    },
    counts: () => (mirror.ready ? mirror.counts : { inputs: 0, late: 0, removed: 0 }),
  },
  auth,
);

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

function shownWhich(): 0 | 1 {
  return state.show === 'whatif' && data?.views.whatif ? 1 : 0;
}

// ---- frames ----

let drawPending = 0;
let resetRange = false;

/** What the benchmark reads: per frame the time to apply it and to draw, per update the worker's figures (the last 1,000). */
const timings = { apply: [] as number[], draw: [] as number[], updates: [] as { correlated: number; readMillis: number; indexMillis: number; wasmBytes: number }[] };
function note<T>(list: T[], value: T): void {
  list.push(value);
  if (list.length > 1000) list.shift();
}

/** Applies a frame from the worker; the views are redrawn once per animation frame however many arrive. */
function received(frame: Frame): void {
  const started = performance.now();
  mirror.apply(frame);
  if (frame.first) resetRange = true;
  if (frame.choices) filters.setChoices(frame.choices, state.filter);
  const layout = mirror.layout();
  const base = mirror.view(0)!;
  data = { layout, views: { base, whatif: mirror.view(1) ?? (Object.keys(state.whatif).length === 0 ? base : null) }, name: source.name, live: source.live };
  if (state.selection && !valid(state.selection)) state.selection = null;
  if (!drawPending) drawPending = requestAnimationFrame(draw);
  note(timings.apply, performance.now() - started);
}

function draw(): void {
  const started = performance.now();
  drawPending = 0;
  if (!data) return;
  showProblems(data.layout.errors);
  refresh(resetRange);
  resetRange = false;
  timeline.draw();
  note(timings.draw, performance.now() - started);
  document.body.dataset.frames = String(Number(document.body.dataset.frames ?? 0) + 1);
}

/** The status line after a read or a live flush. */
function showStatus(reply: Extract<Reply, { kind: 'frame' }>, name: string): void {
  note(timings.updates, { correlated: reply.correlated, readMillis: reply.readMillis, indexMillis: reply.indexMillis, wasmBytes: reply.wasmBytes });
  correlated += reply.correlated;
  document.body.dataset.correlated = String(correlated);
  const { inputs, late } = mirror.counts;
  const errors = mirror.errors.length;
  status.classList.remove('error');
  status.textContent = `${name}: ${count(inputs)} events${errors ? `, ${count(errors)} bad records` : ''}${late ? `, ${count(late)} arrived late` : ''} · last update: ${count(reply.correlated)} correlated in ${reply.readMillis.toFixed(0)} ms, indexed in ${reply.indexMillis.toFixed(0)} ms`;
  document.body.dataset.status = 'ready';
  $('#empty').hidden = true;
}

// ---- loading ----

async function load(loaded: Loaded): Promise<void> {
  const started = performance.now();
  document.body.dataset.status = 'loading';
  status.classList.remove('error');
  status.textContent = `Reading ${loaded.name}…`;
  source = { name: loaded.name, live: false };
  showSummary(null);
  correlated = 0;
  const base: Options = { mode: state.mode };
  // With no what-if options the after run is the before run: correlate once.
  const same = Object.keys(state.whatif).length === 0;
  const view = viewSettings();
  const reply = await ask<'frame'>({ kind: 'open', bytes: loaded.bytes, base, whatif: same ? null : { ...base, ...state.whatif }, view }, [loaded.bytes]);
  const laidOut = performance.now();
  if (drawPending) {
    cancelAnimationFrame(drawPending);
    draw();
  }
  correlated += reply.correlated;
  document.body.dataset.correlated = String(correlated);
  document.body.dataset.wasmBytes = String(reply.wasmBytes);
  const total = performance.now() - started;
  const f = mirror.counts.total;
  const errors = mirror.errors.length;
  status.textContent = `${loaded.name}: ${count(f)} events${errors ? `, ${count(errors)} bad records` : ''} · read and correlated ${reply.readMillis.toFixed(0)} ms, indexed ${reply.indexMillis.toFixed(0)} ms, laid out and drawn ${(performance.now() - laidOut).toFixed(0)} ms, shown in ${total.toFixed(0)} ms`;
  document.body.dataset.status = 'ready';
  document.body.dataset.loadMillis = total.toFixed(1);
  $('#empty').hidden = true;
}

/** Reads dropped or picked files (one, several, a folder, an archive) in the worker, as hushd replay reads them. */
async function loadFiles(picked: Picked): Promise<void> {
  const started = performance.now();
  document.body.dataset.status = 'loading';
  status.classList.remove('error');
  status.textContent = `Reading ${picked.name}…`;
  source = { name: picked.name, live: false };
  correlated = 0;
  showSummary(null);
  const base: Options = { mode: state.mode };
  const same = Object.keys(state.whatif).length === 0;
  const view = viewSettings();
  try {
    const reply = await ask<'frame'>({ kind: 'openFiles', files: picked.files, paths: picked.paths, folder: picked.folder, base, whatif: same ? null : { ...base, ...state.whatif }, view });
    if (drawPending) {
      cancelAnimationFrame(drawPending);
      draw();
    }
    correlated += reply.correlated;
    document.body.dataset.correlated = String(correlated);
    document.body.dataset.wasmBytes = String(reply.wasmBytes);
    if (reply.summary) showSummary(reply.summary);
    const errors = mirror.errors.length;
    status.textContent = `${picked.name}: ${count(mirror.counts.total)} events${errors ? `, ${count(errors)} bad records` : ''} · read and correlated ${reply.readMillis.toFixed(0)} ms, shown in ${(performance.now() - started).toFixed(0)} ms`;
    document.body.dataset.status = 'ready';
    $('#empty').hidden = true;
  } finally {
    showProgress(null);
  }
}

/** The progress bar while files are read (null: done). */
function showProgress(p: ReadProgress | null): void {
  const box = $('#progress');
  box.hidden = p === null;
  if (!p) return;
  box.dataset.reports = String(Number(box.dataset.reports ?? 0) + 1);
  const bar = box.querySelector('progress')!;
  if (p.totalBytes) {
    bar.max = p.totalBytes;
    bar.value = Math.min(p.bytes, p.totalBytes);
  } else bar.removeAttribute('value');
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  box.querySelector('span')!.textContent = `${count(p.files)} file${p.files === 1 ? '' : 's'}, ${mib(p.bytes)}${p.totalBytes ? ` of ${mib(p.totalBytes)}` : ''}, ${count(p.events)} events${p.bad ? `, ${count(p.bad)} bad` : ''}`;
}

/** What reading files found, as hushd replay prints it (null: nothing read from files). */
function showSummary(summary: ReadSummary | null): void {
  const box = $('#summary');
  box.hidden = summary === null;
  if (!summary) return;
  const lines = summary.text.trim().split('\n');
  const esc = (t: string) => t.replace(/[&<]/g, (c) => (c === '&' ? '&amp;' : '&lt;'));
  const files = summary.files.map((f) => `<li><code>${esc(f.path)}</code> ${count(f.events)} events${f.bad ? `, ${count(f.bad)} bad` : ''}</li>`);
  box.innerHTML = `<h2>Read</h2>${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<details><summary>${count(summary.files.length)} file${summary.files.length === 1 ? '' : 's'} read</summary><ul class="files">${files.join('')}</ul></details>`;
  box.dataset.events = String(summary.events);
  box.dataset.files = String(summary.files.length);
}

function valid(s: NonNullable<Selection>): boolean {
  const view = shown();
  if (!view || !data) return false;
  return s.kind === 'stored' ? s.index < view.run.stored.count.length : s.index < data.layout.facts.length;
}

function showProblems(errors: BadRecord[]): void {
  const box = $('#problems');
  box.hidden = errors.length === 0;
  if (errors.length === 0) return;
  const esc = (t: string) => t.replace(/[&<]/g, (c) => (c === '&' ? '&amp;' : '&lt;'));
  const shownErrors = errors.slice(0, 100).map((e) => `<li><code>${esc(e.position)}</code>: ${esc(e.message)}</li>`);
  box.innerHTML = `<h2>${count(errors.length)} bad record${errors.length === 1 ? '' : 's'} skipped</h2><ul>${shownErrors.join('')}${errors.length > 100 ? `<li>… and ${count(errors.length - 100)} more</li>` : ''}</ul>`;
}

/** What the worker cuts its views by: the filter, the list's sort, the overview's bars. */
function viewSettings(): ViewSettings {
  return { filter: state.filter, sort: state.sort, bins: overview.bins };
}

/** Sends the filter, sort and bars to the worker; its frame brings what they keep, in order. */
function askView(): void {
  if (!mirror.ready) return;
  ask<'frame'>({ kind: 'view', ...viewSettings() }).catch((e) => fail(`filter: ${(e as Error).message}`));
}

// ---- views ----

/** Redraws every view from the latest frame. */
function refresh(resetRange = false): void {
  const view = shown();
  if (!data || !view) return;
  kept = mirror.kept(shownWhich());
  timeline.setData(data.layout, view, kept, state.selection);
  if (resetRange && state.from !== null && state.to !== null) timeline.setRange(state.from, state.to);
  overview.setData(view, palette(document.documentElement));
  overview.setWindow(timeline.range.from, timeline.range.to);
  list.setData(view, kept, data.live ? BigInt(Date.now()) * 1_000_000n : view.lastSeen, state.selection);
  filters.showCounts(kept.inputCount, mirror.counts.inputs, kept.storedCount, view.storedTotal);
  showFigures();
  showDetail();
  saveState();
}

function showFigures(): void {
  if (!data) return;
  const figures = (v: RunView) => ({ stats: v.run.stats, stored: v.storedTotal });
  const after = data.views.whatif;
  const names = (rows: Uint32Array) => Array.from(rows, (r) => rowName(layoutRow(data!.layout, r)));
  whatif.show(figures(data.views.base!), after && figures(after), mirror.fates, names, false);
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
    stored: async (stored) => {
      const reply = await ask<'stored'>({ kind: 'stored', which, stored });
      return { event: reply.event, inputs: reply.inputs };
    },
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

/** Correlates the what-if run anew (and the baseline too when `rebase`, after a change of mode), once over the whole recording. */
async function replayWhatIf(knobs: Knobs, rebase = false): Promise<void> {
  state.whatif = optionsOf(knobs, defaults);
  saveState();
  if (!data) return;
  const serial = ++replaySerial;
  $('#whatif').classList.add('busy');
  const base = rebase ? { mode: state.mode } : null;
  const same = Object.keys(state.whatif).length === 0;
  const reply = await ask<'frame'>({ kind: 'replay', base, whatif: same ? null : { mode: state.mode, ...state.whatif } });
  if (rebase) {
    correlated += reply.correlated;
    document.body.dataset.correlated = String(correlated);
  }
  if (serial !== replaySerial || !data) return;
  $('#whatif').classList.remove('busy');
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
  fileSources({ file: $('#open'), folder: $('#open-folder') }, { file: $<HTMLInputElement>('#file'), folder: $<HTMLInputElement>('#folder') }, document.body, async (picked) => {
    live.disconnect();
    state.source = `file:${picked.name}`;
    await loadFiles(picked).catch((e) => fail(`${picked.name}: ${e.message}`));
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
      askView();
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
    const body = await response.json();
    // A server that wants a token for /version is an API server too: the token is asked for when the page lists.
    return (response.ok && typeof body.gitVersion === 'string') || ([401, 403].includes(response.status) && body.kind === 'Status');
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
    const loaded = await loadSample(sample, async (events) => (await ask<'synthetic'>({ kind: 'synthetic', events })).bytes, (url) => auth.fetch(url));
    await load(loaded);
  } catch (e) {
    fail(`${sample.title}: ${(e as Error).message}`);
  }
}

start().catch((e) => fail(`hush could not start: ${(e as Error).message}`));

// For the benchmark and the tests: the views, and a way to time a frame.
Object.assign(window, { hush: { timeline, list, ask, mirror, timings } });
