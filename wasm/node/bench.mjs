// Events per second through the correlator component in Node (jco), on a
// file of Events (JSON Lines), replayed pass after pass (each pass later by
// the file's span plus a second), after a warm-up. Two figures, one JSON
// line each:
//
// * observe: one typed `observe` call per event into a sink that stores
//   nothing (what `hushd bench --engine component --typed` measures);
// * replay:  what hush-replay does per event once the input is read: the
//   replay loop, `observe` into the in-memory store, the decision line;
// * batch from JSON: the batch path from the input's bytes, 1024 lines per
//   batch: the codec reads and encodes them, the `Replay` resource replays
//   them into its own store, the decisions are read back (`BatchReplay.feed`);
// * batch pre-encoded: the same with the batches encoded before the clock
//   starts, as hushd reads its input before it (`observeEncoded`).
//
// The file holds one Event per line.
//
//   node wasm/node/bench.mjs FILE [--events N] [--warm-up N]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { BatchReplay } from './lib/batch.mjs';
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
const objects = [];
for (const line of readFileSync(positionals[0], 'utf8').split('\n')) {
  const read = reader.line(line);
  if (read.length > 1 || read.some(({ observation }) => observation.tag !== 'ok')) {
    throw new Error(`${positionals[0]}: the benchmark takes one Event per line`);
  }
  if (read.length === 1) {
    inputs.push(read[0].observation.val);
    objects.push(JSON.parse(line));
  }
}
if (inputs.length === 0) throw new Error(`${positionals[0]}: no events`);
const period = inputs.at(-1).at - inputs[0].at + 1_000_000_000n;

/** When stream position `i` is observed: pass after pass. */
const at = (i) => inputs[i % inputs.length].at + BigInt(Math.floor(i / inputs.length)) * period;

/** Calls `step(event, at)` for `n` events of the stream from position `from`. */
function run(from, n, step) {
  for (let i = from; i < from + n; i++) step(inputs[i % inputs.length].event, at(i));
}

function report(name, n, seconds) {
  console.log(JSON.stringify({ engine: `node (jco) ${name}`, events: n, seconds, events_per_sec: n / seconds }));
}

/** Seconds `f` takes. */
function time(f) {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function measure(name, step) {
  run(0, warmUp, step);
  report(name, events, time(() => run(warmUp, events, step)));
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

/** Lines per batch, as hushd's component figure takes 1024 events per call. */
const BATCH = 1024;

/** RFC 3339 with nanoseconds. */
function stamp(nanos) {
  const seconds = nanos / 1_000_000_000n;
  const rest = nanos % 1_000_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${String(rest).padStart(9, '0')}Z`;
}

/** Stream positions `start` to `start + n` as JSON Lines, BATCH lines per text, each Event at its pass's instant. */
function texts(start, n) {
  const out = [];
  for (let first = start; first < start + n; first += BATCH) {
    const lines = [];
    for (let i = first; i < Math.min(first + BATCH, start + n); i++) {
      lines.push(JSON.stringify({ ...objects[i % objects.length], at: stamp(at(i)) }));
    }
    out.push(`${lines.join('\n')}\n`);
  }
  return out;
}

const warmUpTexts = texts(0, warmUp);
const measuredTexts = texts(warmUp, events);
let batch = await BatchReplay.create();
for (const text of warmUpTexts) batch.feed(text);
let decided = 0;
report('batch from JSON', events, time(() => {
  for (const text of measuredTexts) decided += batch.feed(text).decisions.length;
}));
if (decided !== events) throw new Error(`${decided} decisions for ${events} events`);

const encoder = new json.Reader();
const warmUpBatches = warmUpTexts.map((text) => encoder.encode(text).batch);
const measuredBatches = measuredTexts.map((text) => encoder.encode(text).batch);
batch = await BatchReplay.create();
for (const encoded of warmUpBatches) batch.observeEncoded(encoded);
decided = 0;
report('batch pre-encoded', events, time(() => {
  for (const encoded of measuredBatches) decided += batch.observeEncoded(encoded).decisions.length;
}));
if (decided !== events) throw new Error(`${decided} decisions for ${events} events`);
