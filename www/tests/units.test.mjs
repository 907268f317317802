// The dashboard's pure helpers, compiled from its TypeScript with esbuild
// and run in Node: the reconnect schedule, the watch's line cutting, the
// URL state round trip, kubectl's ages, the decisions' categories, and the
// page's copy of the worker's model kept frame by frame (over a real
// hush-web Dashboard, target/web/node from scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert';
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, www } from './harness.mjs';

const out = join(root, 'target', 'www-units');
mkdirSync(out, { recursive: true });

async function load(name) {
  const outfile = join(out, `${name}.mjs`);
  await build({ entryPoints: [join(www, 'src', `${name}.ts`)], outfile, bundle: true, format: 'esm', platform: 'neutral', logLevel: 'warning' });
  return import(pathToFileURL(outfile).href);
}

test('reconnect: at once, then 1, 2, 4 … 64 s, then every 60 s', async () => {
  const { reconnectDelay } = await load('live');
  assert.deepStrictEqual(
    Array.from({ length: 11 }, (_, attempt) => reconnectDelay(attempt) / 1000),
    [0, 1, 2, 4, 8, 16, 32, 64, 60, 60, 60],
  );
});

test('live batches: one send at a time, what arrives meanwhile goes next in one batch, nothing is lost', async () => {
  const { Batcher } = await load('live');
  const sends = [];
  let inFlight = 0;
  let most = 0;
  const batcher = new Batcher((items) => {
    inFlight++;
    most = Math.max(most, inFlight);
    return new Promise((resolve) => sends.push({ items, done: () => (inFlight--, resolve()) }));
  });
  batcher.flush();
  assert.strictEqual(sends.length, 0, 'an empty batch is not sent');
  batcher.push(1);
  batcher.flush();
  // Ticks while the first send is slow: the batch grows, nothing else is sent.
  for (let i = 2; i <= 5; i++) {
    batcher.push(i);
    batcher.flush();
  }
  assert.deepStrictEqual(sends.map((s) => s.items), [[1]]);
  sends[0].done();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepStrictEqual(sends.map((s) => s.items), [[1], [2, 3, 4, 5]], 'the grown batch goes as soon as the send ends');
  batcher.push(6);
  const drained = batcher.drain();
  sends[1].done();
  await new Promise((resolve) => setImmediate(resolve));
  sends[2].done();
  await drained;
  assert.deepStrictEqual(sends.map((s) => s.items), [[1], [2, 3, 4, 5], [6]]);
  assert.strictEqual(most, 1);
  assert.strictEqual(batcher.failed, undefined);
});

test('live batches: a failed send stops the sending and is reported', async () => {
  const { Batcher } = await load('live');
  const sent = [];
  const batcher = new Batcher(async (items) => {
    sent.push(items);
    throw new Error('worker gone');
  });
  batcher.push(1);
  batcher.flush();
  batcher.push(2);
  await batcher.drain();
  assert.strictEqual(batcher.failed?.error?.message, 'worker gone');
  batcher.flush();
  await batcher.drain();
  assert.deepStrictEqual(sent, [[1]]);
});

test('the URL keeps the view: what is written is read back, defaults stay out', async () => {
  const { readState, writeState, defaultState } = await load('url');
  assert.equal(writeState(defaultState), '');
  const state = {
    ...defaultState,
    source: 'sample:storm',
    view: 'list',
    filter: { ...defaultState.filter, namespace: 'shop', text: 'back off & crash' },
    from: Date.parse('2024-05-01T09:05:00Z'),
    to: Date.parse('2024-05-01T09:10:00.5Z'),
    sort: { column: 'count', descending: true },
    mode: 'series',
    whatif: { burst: 5, 'spam-key': 'source-object-type-reason' },
    show: 'whatif',
    selection: { kind: 'input', index: 17 },
  };
  const fragment = writeState(state);
  assert.deepStrictEqual(readState(`#${fragment}`), state);
  assert.match(fragment, /w\.burst=5/);
});

test("ages are kubectl's HumanDuration", async () => {
  const { humanDuration } = await load('format');
  const s = 1000;
  const cases = [
    [0, '0s'], [119 * s, '119s'], [120 * s, '2m'], [150 * s, '2m30s'], [600 * s, '10m'], [179 * 60 * s, '179m'],
    [3 * 3600 * s, '3h'], [(3 * 3600 + 60) * s, '3h1m'], [8 * 3600 * s, '8h'], [47 * 3600 * s, '47h'],
    [48 * 3600 * s, '2d'], [(49 * 3600) * s, '2d1h'], [8 * 86400 * s, '8d'], [730 * 86400 * s, '2y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
});

const web = () => createRequire(import.meta.url)(join(root, 'target', 'web', 'node', 'hush_web.js'));

test('a trapped event is a category of its own: a mark on its row, selectable, with its own words', async () => {
  const { Mirror } = await load('mirror');
  const { isMark } = await load('model');
  const { items } = await load('entries');
  const { actionWords } = await load('why');
  const { Dashboard } = web();
  const event = (second, reason) =>
    JSON.stringify({ involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-1' }, reason, message: reason, type: 'Warning', source: { component: 'kubelet' }, lastTimestamp: `2024-05-01T10:00:0${second}Z` });
  const dashboard = new Dashboard();
  dashboard.setRun(0, {});
  dashboard.read(new TextEncoder().encode([event(1, 'BackOff'), event(2, 'BackOff'), event(3, 'BackOff')].join('\n')));
  dashboard.finish();
  const frame = dashboard.frame();
  const run = frame.runs[0];
  // The second event as a component host reports a trap: hush-web's native
  // core never traps, so the label is added as hushd's component engine names it.
  assert.deepStrictEqual(run.labels.filter((l) => ['create', 'patch'].includes(l)).sort(), ['create', 'patch']);
  run.decisions.action[1] = run.labels.push('trap') - 1;
  const mirror = new Mirror();
  mirror.apply(frame);
  const lay = mirror.layout();
  const view = mirror.view(0);
  const [created, trapped, patched] = view.acts;
  assert.ok(isMark(trapped), 'a trapped event is drawn as a mark, not as a written occurrence');
  assert.ok(!isMark(created) && !isMark(patched));
  assert.equal(new Set([created, trapped, patched]).size, 3, 'trap is neither create nor patch');
  const selectable = items(lay, view, mirror.kept(0), 0).filter((item) => item.selection.kind === 'input');
  assert.deepStrictEqual(selectable.map((item) => item.selection.index), [1]);
  assert.equal(actionWords('trap'), 'trapped (the correlator failed on it; nothing was written)');
  assert.notEqual(actionWords('trap'), actionWords('refuse'));
  dashboard.free();
});

test('watch bodies are cut at the last newline: whole lines go, the rest waits for the next chunk', async () => {
  const { wholeLines } = await load('live');
  const bytes = (text) => new TextEncoder().encode(text);
  const text = (array) => (array === null ? null : new TextDecoder().decode(array));
  let [lines, rest] = wholeLines(bytes(''), bytes('{"a":1}\n{"b"'));
  assert.deepStrictEqual([text(lines), text(rest)], ['{"a":1}\n', '{"b"']);
  [lines, rest] = wholeLines(rest, bytes(':2}'));
  assert.deepStrictEqual([text(lines), text(rest)], [null, '{"b":2}']);
  [lines, rest] = wholeLines(rest, bytes('\n\n{"c":'));
  assert.deepStrictEqual([text(lines), text(rest)], ['{"b":2}\n\n', '{"c":']);
});

test('frames applied one after another give the page what one frame of the whole recording gives', async () => {
  const { Mirror } = await load('mirror');
  const { Dashboard } = web();
  const lines = readFileSync(join(root, 'hushd', 'samples', 'storm.jsonl'), 'utf8').trim().split('\n');
  const encode = (part) => new TextEncoder().encode(part.join('\n') + '\n');
  // One dashboard reads the storm in uneven pieces, a frame after each; the other reads it whole.
  const stepwise = new Dashboard();
  stepwise.setRun(0, {});
  const mirror = new Mirror();
  let correlated = 0;
  let frames = 0;
  for (let at = 0, size = 1; at < lines.length; at += size, size = size * 3 + 1) {
    stepwise.read(encode(lines.slice(at, at + size)));
    correlated += stepwise.takeCorrelated();
    // The filter changes half-way: what it keeps is for the whole recording.
    if (++frames === 3) stepwise.setFilter({ reason: 'BackOff' });
    mirror.apply(stepwise.frame());
  }
  assert.ok(frames > 4);
  assert.equal(correlated, lines.length, 'every event correlated once');
  const whole = new Dashboard();
  whole.setRun(0, {});
  whole.setFilter({ reason: 'BackOff' });
  whole.read(encode(lines));
  whole.takeCorrelated();
  const one = new Mirror();
  one.apply(whole.frame());
  const [a, b] = [mirror.layout(), one.layout()];
  const strings = (layout, ids) => Array.from(ids, (id) => layout.strings.get(id));
  assert.equal(a.facts.length, lines.length);
  for (const column of ['namespace', 'kind', 'name', 'reason', 'type', 'component', 'message']) assert.deepStrictEqual(strings(a, a.facts[column]), strings(b, b.facts[column]), column);
  assert.deepStrictEqual(a.facts.at, b.facts.at);
  assert.deepStrictEqual(a.rowInputs, b.rowInputs);
  assert.deepStrictEqual(Array.from(a.rows.order, (r) => strings(a, [a.rows.name[r], a.rows.reason[r]]).join(' ')), Array.from(b.rows.order, (r) => strings(b, [b.rows.name[r], b.rows.reason[r]]).join(' ')));
  const [x, y] = [mirror.view(0), one.view(0)];
  assert.deepStrictEqual(x.acts, y.acts);
  assert.deepStrictEqual(x.run.stats, y.run.stats);
  // Stored events are numbered as first stored, the same way in both.
  const stored = (layout, view) => Array.from(view.run.stored.count, (count, s) => `${layout.strings.get(view.run.stored.eventName[s])} ${count} ${view.run.stored.lastNanos[s]}`);
  assert.deepStrictEqual(stored(a, x), stored(b, y));
  assert.deepStrictEqual(mirror.kept(0), one.kept(0));
  assert.ok(mirror.kept(0).inputCount > 0 && mirror.kept(0).inputCount < lines.length, 'the filter keeps some');
  assert.deepStrictEqual(Array.from(x.order, (s) => stored(a, x)[s]), Array.from(y.order, (s) => stored(b, y)[s]));
  // The overview's bars count what the filter keeps: drops, then Warnings, then the rest.
  const sum = (bars) => bars.reduce((n, k) => n + k, 0);
  const { inputs } = mirror.kept(0);
  const keptDrops = x.acts.filter((act, i) => inputs[i] && act === 2).length;
  const keptWarnings = Array.from(a.facts.type).filter((t, i) => inputs[i] && x.acts[i] !== 2 && t === a.warning).length;
  assert.equal(sum(x.histogram.dropped), keptDrops);
  assert.equal(sum(x.histogram.warning), keptWarnings);
  assert.equal(sum(x.histogram.normal) + keptWarnings + keptDrops, mirror.kept(0).inputCount);
  assert.ok(keptDrops > 0 && keptWarnings > 0);
  assert.deepStrictEqual(x.histogram, y.histogram);
  stepwise.free();
  whole.free();
});
