// The dashboard's pure helpers, compiled from its TypeScript with esbuild
// and run in Node: the reconnect schedule, the URL state round trip,
// kubectl's ages, the decisions' categories (over a real hush-web run,
// target/web/node from scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert';
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
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

test('a trapped event is a category of its own: a mark on its row, selectable, with its own words', async () => {
  const { layout, runView, keep, noFilter, isMark } = await load('model');
  const { items } = await load('entries');
  const { actionWords } = await load('why');
  const { Recording } = createRequire(import.meta.url)(join(root, 'target', 'web', 'node', 'hush_web.js'));
  const event = (second, reason) =>
    JSON.stringify({ involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-1' }, reason, message: reason, type: 'Warning', source: { component: 'kubelet' }, lastTimestamp: `2024-05-01T10:00:0${second}Z` });
  const recording = new Recording(new TextEncoder().encode([event(1, 'BackOff'), event(2, 'BackOff'), event(3, 'BackOff')].join('\n')));
  const facts = recording.facts();
  const run = recording.replay({});
  const columns = { ...run.columns(), stats: run.stats(), options: {}, millis: 0 };
  // The second event as a component host reports a trap: hush-web's native
  // core never traps, so the label is added as hushd's component engine names it.
  assert.deepStrictEqual(columns.labels.filter((l) => ['create', 'patch'].includes(l)).sort(), ['create', 'patch']);
  columns.action[1] = columns.labels.push('trap') - 1;
  const lay = layout(facts, []);
  const view = runView(lay, columns);
  const [created, trapped, patched] = view.acts;
  assert.ok(isMark(trapped), 'a trapped event is drawn as a mark, not as a written occurrence');
  assert.ok(!isMark(created) && !isMark(patched));
  assert.equal(new Set([created, trapped, patched]).size, 3, 'trap is neither create nor patch');
  const kept = keep(lay, view, noFilter);
  const selectable = items(lay, view, kept, 0).filter((item) => item.selection.kind === 'input');
  assert.deepStrictEqual(selectable.map((item) => item.selection.index), [1]);
  assert.equal(actionWords('trap'), 'trapped (the correlator failed on it; nothing was written)');
  assert.notEqual(actionWords('trap'), actionWords('refuse'));
  run.free();
  recording.free();
});
