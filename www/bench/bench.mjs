// The dashboard's benchmark, in headless Chromium (not a timed test):
//
//   node www/bench/bench.mjs [--events 100000] [--hushd target/release/hushd]
//
// 1. writes the synthetic sample (www/src/synthetic.ts, the same generator
//    as the page's "100,000 synthetic events") to target/www-bench/;
// 2. opens the page from a static server, picks that file, and times the
//    load: read (wasm), correlate (wasm), lay out and first draw;
// 3. zooms the timeline in and out, drawing each frame, and times the frames;
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

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const events = Number(arg('events', 100_000));
const hushd = arg('hushd', existsSync(join(root, 'target', 'release', 'hushd')) ? join(root, 'target', 'release', 'hushd') : join(root, 'target', 'debug', 'hushd'));
const out = join(root, 'target', 'www-bench');
mkdirSync(out, { recursive: true });

// The generator, compiled for Node from the page's own source.
const generator = join(out, 'synthetic.mjs');
await build({ entryPoints: [join(www, 'src', 'synthetic.ts')], outfile: generator, bundle: true, format: 'esm', platform: 'node', logLevel: 'warning' });
const { synthetic } = await import(pathToFileURL(generator).href);
const file = join(out, `synthetic-${events}.jsonl`);
writeFileSync(file, synthetic(events));

const figures = { events, hushd };
const say = (label, value, unit = '') => console.log(`${label.padEnd(46)} ${typeof value === 'number' ? value.toFixed(value < 10 ? 2 : 0) : value}${unit}`);

const server = await serveStatic();
const browser = await launch();
try {
  const { page, errors } = await open(browser, server.url);
  await started(page);
  const t0 = Date.now();
  await page.setInputFiles('#file', file);
  await ready(page);
  await page.waitForFunction(() => Number(document.querySelector('#timeline').dataset.drawn ?? 0) > 0);
  figures.loadToFirstDrawMs = Date.now() - t0;
  const status = await page.textContent('#status');
  const [, read, correlated] = status.match(/read (\d+) ms, correlated (\d+) ms/).map(Number);
  figures.readMs = read;
  figures.correlateMs = correlated;
  figures.browserEventsPerSecond = Math.round(events / (correlated / 1000));
  say('load, correlate and first draw (ms)', figures.loadToFirstDrawMs);
  say('  of which: read the file in wasm (ms)', read);
  say('  of which: correlate in wasm (ms)', correlated);
  say('browser correlation (events/s)', figures.browserEventsPerSecond);

  // Frames while zooming: 30 steps in around the middle, 30 back out.
  const frames = await page.evaluate(async () => {
    const { timeline } = window.hush;
    const times = [];
    const x = timeline.element.clientWidth * 0.6;
    for (const factor of [...Array(30).fill(0.8), ...Array(30).fill(1.25)]) {
      timeline.zoomAt(x, factor);
      timeline.draw();
      times.push(timeline.lastDrawMillis);
      await new Promise((r) => requestAnimationFrame(r));
    }
    return times.sort((a, b) => a - b);
  });
  figures.frameMedianMs = frames[Math.floor(frames.length / 2)];
  figures.frameP95Ms = frames[Math.floor(frames.length * 0.95)];
  figures.frameMaxMs = frames.at(-1);
  say('frame while zooming, median (ms)', figures.frameMedianMs);
  say('frame while zooming, p95 (ms)', figures.frameP95Ms);
  say('frame while zooming, max (ms)', figures.frameMaxMs);
  if (errors.length) console.log('page errors:', errors);
} finally {
  await browser.close();
  await server.close();
}

// Native, on the same file.
let started_ = process.hrtime.bigint();
execFileSync(hushd, ['replay', '--engine', 'native', '--output', 'table', file], { maxBuffer: 1 << 28 });
figures.nativeReplayMs = Number(process.hrtime.bigint() - started_) / 1e6;
figures.nativeReplayEventsPerSecond = Math.round(events / (figures.nativeReplayMs / 1000));
const bench = JSON.parse(execFileSync(hushd, ['bench', '--engine', 'native', '--input', file], { encoding: 'utf8' }).trim().split('\n').at(-1));
figures.nativeBench = bench;
say('native hushd replay: read, correlate, table (ms)', figures.nativeReplayMs);
say('browser (read + correlate) / native replay', (figures.readMs + figures.correlateMs) / figures.nativeReplayMs, '× the time');
say('native hushd bench --input (events/s)', bench.events_per_sec);
say('native bench / browser correlation', bench.events_per_sec / figures.browserEventsPerSecond, '×');
console.log(JSON.stringify(figures));
