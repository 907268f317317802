// The dashboard's benchmark, in headless Chromium (not a timed test):
//
//   node www/bench/bench.mjs [--events 100000] [--flushes 20] [--batch 1000]
//                            [--only file|live] [--hushd target/release/hushd] [--no-native]
//
// 1. writes the synthetic sample (www/src/synthetic.ts, the same generator
//    as the page's "100,000 synthetic events") to target/www-bench/;
// 2. file: opens the page from a static server, picks that file, and times
//    the load (read and correlate in the worker, apply, lay out and first
//    draw), then zooms the timeline in and out, drawing each frame;
// 3. live: a stand-in API server (www/tests/standin.mjs) serves the page
//    and lists the same events (pages of 500); the page lists them all and
//    draws (times: listing, correlating, first draw), frames while zooming
//    again, then the stand-in sends `--flushes` watch batches of `--batch`
//    new events, 250 ms apart: per flush the worker's time, the page's
//    time to apply and draw it, and every main-thread task over 50 ms
//    while they arrive (a PerformanceObserver of long tasks);
// 4. correlates the same file natively: `hushd replay --engine native`
//    (read, correlate, store, print the table: what the page does) and
//    `hushd bench --input` (correlate and write only), for the ratio.
// Prints one line per figure, then all of them as one JSON line.

import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, open, ready, root, serveStatic, started, www } from '../tests/harness.mjs';
import { standIn } from '../tests/standin.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const events = Number(arg('events', 100_000));
const flushes = Number(arg('flushes', 20));
const batchSize = Number(arg('batch', 1000));
const only = arg('only', '');
const native = !process.argv.includes('--no-native') && only !== 'live';
const hushd = arg('hushd', existsSync(join(root, 'target', 'release', 'hushd')) ? join(root, 'target', 'release', 'hushd') : join(root, 'target', 'debug', 'hushd'));
const out = join(root, 'target', 'www-bench');
mkdirSync(out, { recursive: true });

// The generator, compiled for Node from the page's own source: the file's
// events, then the events the watch sends (later ones, of the same day).
const generator = join(out, 'synthetic.mjs');
await build({ entryPoints: [join(www, 'src', 'synthetic.ts')], outfile: generator, bundle: true, format: 'esm', platform: 'node', logLevel: 'warning' });
const { synthetic } = await import(pathToFileURL(generator).href);
const file = join(out, `synthetic-${events}.jsonl`);
const text = synthetic(events);
writeFileSync(file, text);
const lines = text.trimEnd().split('\n');
const more = synthetic(flushes * batchSize).trimEnd().split('\n');

const figures = { events, flushes, batch: batchSize, hushd };
const say = (label, value, unit = '') => console.log(`${label.padEnd(52)} ${typeof value === 'number' ? value.toFixed(value < 10 ? 2 : 0) : value}${unit}`);
const quantiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? 0, p95: s[Math.floor(s.length * 0.95)] ?? 0, max: s.at(-1) ?? 0 };
};

/** Frames while zooming: 30 steps in around 60 % of the width, 30 back out. */
async function zoomFrames(page) {
  return quantiles(
    await page.evaluate(async () => {
      const { timeline } = window.hush;
      const times = [];
      const x = timeline.element.clientWidth * 0.6;
      for (const factor of [...Array(30).fill(0.8), ...Array(30).fill(1.25)]) {
        timeline.zoomAt(x, factor);
        timeline.draw();
        times.push(timeline.lastDrawMillis);
        await new Promise((r) => requestAnimationFrame(r));
      }
      return times;
    }),
  );
}

/** The API object of synthetic event line `line`, as the stand-in lists or sends it, `later` ms later. */
function apiObject(line, i, resourceVersion, later = 0) {
  const { at: when, ...event } = JSON.parse(line);
  const at = new Date(Date.parse(when) + later).toISOString();
  const namespace = event.involvedObject.namespace ?? 'default';
  return JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: `ev-${i}`, namespace, resourceVersion }, ...event, firstTimestamp: at, lastTimestamp: at, count: 1 });
}

const browser = await launch();
try {
  if (only !== 'live') await fromFile();
  if (only !== 'file') await live();
} finally {
  await browser.close();
}

/** The file picked: load, first draw, zoom frames. */
async function fromFile() {
  const server = await serveStatic();
  try {
    const { page, errors } = await open(browser, server.url);
    await started(page);
    const t0 = Date.now();
    await page.setInputFiles('#file', file);
    await ready(page);
    await page.waitForFunction(() => Number(document.querySelector('#timeline').dataset.drawn ?? 0) > 0);
    figures.loadToFirstDrawMs = Date.now() - t0;
    const status = await page.textContent('#status');
    // Files are read by the dump reader in the worker: the status says how
    // long reading and correlating took, and when the page showed them.
    const [, read, shown] = status.match(/read and correlated (\d+) ms, shown in (\d+) ms/).map(Number);
    const drawn = shown - read;
    Object.assign(figures, { readMs: read, applyAndDrawMs: drawn, wasmBytes: Number(await page.evaluate(() => document.body.dataset.wasmBytes)) });
    figures.browserEventsPerSecond = Math.round(events / (read / 1000));
    say('file: pick → correlated and first drawn (ms)', figures.loadToFirstDrawMs);
    say('  of which: read and correlate in wasm (ms)', read);
    say('  of which: index, apply, lay out and draw on the page (ms)', drawn);
    say('file: worker memory (wasm, MiB)', figures.wasmBytes / 2 ** 20);
    say('file: browser read and correlation (events/s)', figures.browserEventsPerSecond);
    figures.fileFrames = await zoomFrames(page);
    say('file: frame while zooming, median / p95 / max (ms)', `${figures.fileFrames.median.toFixed(1)} / ${figures.fileFrames.p95.toFixed(1)} / ${figures.fileFrames.max.toFixed(1)}`);
    if (errors.filter((e) => !/Failed to load resource/.test(e)).length) console.log('page errors:', errors);
    await page.context().close();
  } finally {
    await server.close();
  }
}

/** The same events listed and watched from a stand-in API server. */
async function live() {
  const api = await standIn({ total: lines.length, items: (from, to) => lines.slice(from, to).map((l, k) => apiObject(l, from + k, String(from + k + 1))) });
  try {
    const { page, errors } = await open(browser, `${api.url}/`);
    const t0 = Date.now();
    await page.waitForFunction((n) => window.hush?.mirror?.ready && window.hush.mirror.counts.total === n && document.querySelector('#live-status')?.dataset.state === 'live', events, { timeout: 30 * 60_000, polling: 200 });
    await page.waitForFunction(() => Number(document.querySelector('#timeline').dataset.drawn ?? 0) > 0);
    figures.liveListToFirstDrawMs = Date.now() - t0;
    const first = await page.evaluate(() => ({ update: window.hush.timings.updates.at(-1), apply: window.hush.timings.apply.at(-1), draw: window.hush.timings.draw.at(-1), heap: performance.memory?.usedJSHeapSize ?? 0 }));
    Object.assign(figures, { liveCorrelateMs: first.update.readMillis, liveIndexMs: first.update.indexMillis, liveFirstApplyMs: first.apply, liveFirstDrawMs: first.draw, liveWasmBytes: first.update.wasmBytes, pageHeapBytes: first.heap });
    say(`live: open → ${events.toLocaleString('en')} listed, correlated, drawn (ms)`, figures.liveListToFirstDrawMs);
    say('  of which: read again and correlate the list in wasm (ms)', first.update.readMillis);
    say('  of which: index it in wasm (ms)', first.update.indexMillis);
    say('  of which: apply the first frame on the page (ms)', first.apply);
    say('  of which: lay out and draw it (ms)', first.draw);
    say('live: worker memory (wasm, MiB)', first.update.wasmBytes / 2 ** 20);
    say('live: page JS heap (MiB)', first.heap / 2 ** 20);
    figures.liveFrames = await zoomFrames(page);
    say('live: frame while zooming, median / p95 / max (ms)', `${figures.liveFrames.median.toFixed(1)} / ${figures.liveFrames.p95.toFixed(1)} / ${figures.liveFrames.max.toFixed(1)}`);

    // Watch batches while the page's long tasks are recorded.
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
      window.hush.timings.updates.length = window.hush.timings.apply.length = window.hush.timings.draw.length = 0;
    });
    const sent0 = Date.now();
    for (let f = 0; f < flushes; f++) {
      const start = f * batchSize;
      // The same day's generator, six hours on: after everything listed.
      api.emit(more.slice(start, start + batchSize).map((l, k) => ['ADDED', JSON.parse(apiObject(l, events + start + k, api.nextVersion(), 6 * 3600_000))]));
      await new Promise((r) => setTimeout(r, 250));
    }
    const total = events + flushes * batchSize;
    await page.waitForFunction((n) => window.hush.mirror.counts.total === n, total, { timeout: 10 * 60_000, polling: 100 });
    figures.liveCatchUpMs = Date.now() - sent0 - (flushes - 1) * 250;
    await page.waitForTimeout(500);
    const watched = await page.evaluate(() => ({ updates: window.hush.timings.updates, apply: window.hush.timings.apply, draw: window.hush.timings.draw, longTasks: window.longTasks }));
    figures.liveUpdates = watched.updates.length;
    figures.liveUpdateWorker = quantiles(watched.updates.map((u) => u.readMillis + u.indexMillis));
    figures.liveUpdateIndex = quantiles(watched.updates.map((u) => u.indexMillis));
    figures.liveUpdateApply = quantiles(watched.apply);
    figures.liveUpdateDraw = quantiles(watched.draw);
    figures.liveLongTasks = watched.longTasks;
    figures.liveCorrelatedPerUpdate = watched.updates.map((u) => u.correlated);
    say(`live: ${flushes} batches of ${batchSize} → updates`, watched.updates.length);
    say('  worker per update (read, correlate, index), median / max (ms)', `${figures.liveUpdateWorker.median.toFixed(0)} / ${figures.liveUpdateWorker.max.toFixed(0)}`);
    say('    of which indexing, median / max (ms)', `${figures.liveUpdateIndex.median.toFixed(0)} / ${figures.liveUpdateIndex.max.toFixed(0)}`);
    say('  page per update: apply, median / max (ms)', `${figures.liveUpdateApply.median.toFixed(1)} / ${figures.liveUpdateApply.max.toFixed(1)}`);
    say('  page per update: lay out and draw, median / max (ms)', `${figures.liveUpdateDraw.median.toFixed(1)} / ${figures.liveUpdateDraw.max.toFixed(1)}`);
    say('  main-thread tasks over 50 ms while they arrived', watched.longTasks.length ? watched.longTasks.map((d) => d.toFixed(0)).join(', ') : 'none');
    say('  last batch sent → shown (ms)', figures.liveCatchUpMs);
    if (errors.filter((e) => !/Failed to load resource/.test(e)).length) console.log('page errors:', errors);
    await page.context().close();
  } finally {
    await api.close();
  }
}

// ---- native, on the same file ----
if (native) {
  const started_ = process.hrtime.bigint();
  execFileSync(hushd, ['replay', '--engine', 'native', '--output', 'table', file], { maxBuffer: 1 << 30 });
  figures.nativeReplayMs = Number(process.hrtime.bigint() - started_) / 1e6;
  const bench = JSON.parse(execFileSync(hushd, ['bench', '--engine', 'native', '--input', file], { encoding: 'utf8' }).trim().split('\n').at(-1));
  figures.nativeBench = bench;
  say('native hushd replay: read, correlate, table (ms)', figures.nativeReplayMs);
  say('browser (read and correlate) / native replay', figures.readMs / figures.nativeReplayMs, '× the time');
  say('native hushd bench --input (events/s)', bench.events_per_sec);
  say('native bench / browser correlation', bench.events_per_sec / figures.browserEventsPerSecond, '×');
}
console.log(JSON.stringify(figures));
