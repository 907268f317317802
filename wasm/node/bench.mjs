// Events per second through the correlator component in Node (jco), on a
// file of Events (JSON Lines), replayed pass after pass (each pass later by
// the file's span plus a second), after a warm-up. Two figures, one JSON
// line each:
//
// * observe: one typed `observe` call per event into a sink that stores
//   nothing (what `hushd bench --engine component --typed` measures);
// * replay:  what hush-replay does per event once the input is read: the
//   replay loop, `observe` into the in-memory store, the decision line.
//
//   node wasm/node/bench.mjs FILE [--events N] [--warm-up N]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { loadCodec, loadCorrelator } from './lib/components.mjs';
import { Replay } from './lib/replay.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { events: { type: 'string', default: '200000' }, 'warm-up': { type: 'string', default: '10000' } },
});
if (positionals.length !== 1) {
  console.error('usage: node wasm/node/bench.mjs FILE [--events N] [--warm-up N]');
  process.exit(2);
}
const events = Number(values.events);
const warmUp = Number(values['warm-up']);

const json = await loadCodec();
const reader = new json.Reader();
const inputs = [];
for (const line of readFileSync(positionals[0], 'utf8').split('\n')) {
  for (const { observation } of reader.line(line)) if (observation.tag === 'ok') inputs.push(observation.val);
}
if (inputs.length === 0) throw new Error(`${positionals[0]}: no events`);
const period = inputs.at(-1).at - inputs[0].at + 1_000_000_000n;

/** Calls `step(event, at)` for `n` events of the stream from position `from`. */
function run(from, n, step) {
  for (let i = from; i < from + n; i++) {
    const { event, at } = inputs[i % inputs.length];
    step(event, at + BigInt(Math.floor(i / inputs.length)) * period);
  }
}

function measure(name, step) {
  run(0, warmUp, step);
  const start = process.hrtime.bigint();
  run(warmUp, events, step);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(JSON.stringify({ engine: `node (jco) ${name}`, events, seconds, events_per_sec: events / seconds }));
}

let now = 0n;
const nothing = {
  createEvent: (event) => ({ name: event.name, resourceVersion: '1', count: event.count }),
  patchEvent: (namespace, name, patch) => ({ name, resourceVersion: '1', count: patch.val.count }),
  listEvents: () => [],
};
const api = await loadCorrelator({ now: () => now, sink: nothing });
const correlator = api.Correlator.create(json.optionsFromJson('{}'));
measure('observe', (event, at) => {
  now = at;
  correlator.observe(event);
});

const replay = await Replay.create({ mode: 'legacy' });
measure('replay', (event, at) => replay.observe(event, at));
