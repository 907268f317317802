// The dashboard's pure helpers, compiled from its TypeScript with esbuild
// and run in Node: the reconnect schedule, the URL state round trip,
// kubectl's ages.

import { test } from 'node:test';
import assert from 'node:assert';
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
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
