// Recording and Run (the dashboard's bulk API) against hushd itself: the
// same files replayed by `hushd replay --engine native` must give the same
// decisions, stored events, counters and bad-record messages.
//
//   bash scripts/build-web.sh && cargo build -p hushd && node --test wasm/web/tests/
//
// hushd is target/debug/hushd (or $HUSHD).

import { test } from 'node:test';
import assert from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);
const { Recording } = require(join(root, 'target', 'web', 'node', 'hush_web.js'));

const hushd = process.env.HUSHD ?? join(root, 'target', 'debug', 'hushd');
if (!existsSync(hushd)) throw new Error(`${hushd} is missing: run cargo build -p hushd first`);

const storm = join(root, 'hushd', 'samples', 'storm.jsonl');

/** hushd's decision lines and stderr for `input` (a path or text) with `args`. */
function hushdReplay(input, args = []) {
  const fromFile = existsSync(input);
  const result = spawnSync(hushd, ['replay', '--engine', 'native', '--output', 'decisions', ...args, fromFile ? input : '-'], {
    input: fromFile ? undefined : input,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { lines, stderr: result.stderr };
}

/** The summary line of `hushd replay --output table`. */
function hushdSummary(path, args = []) {
  const out = execFileSync(hushd, ['replay', '--engine', 'native', '--output', 'table', ...args, path], { encoding: 'utf8' });
  return out.trim().split('\n').at(-1);
}

function namesOf(run) {
  const { stored } = run.columns();
  return Array.from(stored.eventName, (id, i) => `${stored.strings[stored.eventNamespace[i]]}/${stored.strings[id]}`);
}

test('every decision of the storm equals hushd replay, why included', () => {
  const recording = new Recording(readFileSync(storm));
  const run = recording.replay({});
  const { lines } = hushdReplay(storm);
  const decisions = lines.filter((l) => !('tick' in l));
  assert.equal(recording.length, decisions.length);
  const columns = run.columns();
  const names = namesOf(run);
  for (const [i, expected] of decisions.entries()) {
    const got = run.explain(i);
    assert.equal(got.action, expected.action, `input ${i}`);
    assert.deepStrictEqual(got.why, expected.why, `input ${i}`);
    assert.deepStrictEqual(got.patch, expected.patch, `input ${i}`);
    assert.deepStrictEqual(got.write, expected.write, `input ${i}`);
    if (expected.action === 'create') assert.deepStrictEqual(got.event, expected.event, `input ${i}`);
    // The stored event it went into is the one hushd's line names (-1: a
    // drop under a name that was never stored).
    const { namespace, name } = expected.event.metadata;
    if (got.stored === -1) assert.ok(!names.includes(`${namespace}/${name}`), `input ${i}`);
    else assert.equal(names[got.stored], `${namespace}/${name}`, `input ${i}`);
    assert.equal(columns.target[i], got.stored);
    assert.equal(columns.labels[columns.action[i]], expected.action);
    assert.equal(columns.labels[columns.rule[i]], expected.why.rule);
    assert.equal(columns.count[i], expected.why.count);
    if (expected.why.tokens === undefined) assert.ok(Number.isNaN(columns.tokens[i]));
    else assert.equal(columns.tokens[i], expected.why.tokens);
  }
});

test('the stored events and counters equal hushd replay --output table', () => {
  for (const args of [[], ['--burst', '5'], ['--spam-key', 'source-object-type-reason'], ['--max-events', '3']]) {
    const options = {};
    for (let i = 0; i < args.length; i += 2) options[args[i].slice(2)] = args[i + 1].match(/^\d+$/) ? Number(args[i + 1]) : args[i + 1];
    const run = new Recording(readFileSync(storm)).replay(options);
    const s = run.stats();
    const summary = hushdSummary(storm, args);
    const writes = `${s.created + s.patched} writes out (${s.created} created, ${s.patched} patched), ${s.aggregated} aggregated`;
    assert.ok(summary.includes(writes), `${args}: ${summary} lacks ${writes}`);
    assert.ok(summary.includes(`${s.droppedSpam} spam-filtered`) || s.droppedSpam === 0, `${args}: ${summary}`);
    // Every stored event with its count, as the table lists them.
    const table = execFileSync(hushd, ['replay', '--engine', 'native', '--output', 'table', ...args, storm], { encoding: 'utf8' })
      .split('\n')
      .slice(1)
      .filter((l) => /^\S+\s+(Normal|Warning)\s/.test(l))
      .map((l) => l.split(/\s{3,}/).slice(1, 5).join('|'))
      .sort();
    const { stored } = run.columns();
    const str = (i) => stored.strings[i];
    const ours = Array.from(stored.count, (count, i) =>
      [str(stored.type[i]), str(stored.reason[i]), `${str(stored.kind[i]).toLowerCase()}/${str(stored.name[i])}`, count].join('|'),
    ).sort();
    assert.deepStrictEqual(ours, table, String(args));
  }
});

test('series mode: heartbeats and finishes are the ticks hushd prints', () => {
  const vector = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'series-crashloop-30min.json'), 'utf8'));
  const text = vector.input.map((e) => JSON.stringify(e)).join('\n');
  const run = new Recording(Buffer.from(text)).replay({ ...vector.options, mode: 'series' });
  const { lines } = hushdReplay(text, ['--mode', 'series', '--options', JSON.stringify(vector.options)]);
  const expected = lines.filter((l) => 'tick' in l).flatMap((l) => l.writes.map((w) => [l.tick, Date.parse(l.at), `${w.event.metadata.namespace}/${w.event.metadata.name}`]));
  assert.ok(expected.length > 0, 'the vector has timer writes');
  const { ticks, labels } = run.columns();
  const names = namesOf(run);
  const got = Array.from(ticks.kind, (k, i) => [labels[k], ticks.at[i], names[ticks.target[i]]]);
  // Date.parse keeps milliseconds only.
  assert.deepStrictEqual(got.map(([k, at, n]) => [k, Math.floor(at), n]), expected);
  const { stored } = run.columns();
  assert.ok(stored.series.some((s) => s === 1), 'a stored event is a series');
});

test('bad records are reported with the positions and messages hushd gives', () => {
  const good = '{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}';
  const text = `${good}\n\nnot json\n{"involvedObject":{"name":"p"},"type":"Normal"}\n{"kind":"Pod"}\n${good}\n`;
  const recording = new Recording(Buffer.from(text));
  assert.equal(recording.length, 2);
  const { stderr } = hushdReplay(text);
  const expected = [...stderr.matchAll(/^hushd: skipped (.*)$/gm)].map((m) => m[1]);
  assert.equal(expected.length, 3);
  assert.deepStrictEqual(recording.errors().map((e) => `${e.position}: ${e.message}`), expected);
});

test('a pretty-printed kubectl list reads its items and keeps their bytes', () => {
  const items = readFileSync(storm, 'utf8').trim().split('\n').slice(0, 50).map((l) => JSON.parse(l));
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } }, null, 2);
  const bytes = Buffer.from(list);
  const recording = new Recording(bytes);
  assert.equal(recording.length, 50);
  assert.deepStrictEqual(recording.errors(), []);
  const facts = recording.facts();
  for (const i of [0, 17, 49]) {
    const raw = bytes.subarray(facts.start[i], facts.end[i]).toString('utf8');
    assert.deepStrictEqual(JSON.parse(raw), items[i]);
    assert.equal(facts.strings[facts.reason[i]], items[i].reason);
    assert.equal(facts.strings[facts.name[i]], items[i].involvedObject.name);
    assert.equal(facts.at[i], Date.parse(items[i].at));
  }
  const run = recording.replay({});
  const { lines } = hushdReplay(list);
  assert.deepStrictEqual(
    Array.from({ length: 50 }, (_, i) => run.explain(i).action),
    lines.filter((l) => !('tick' in l)).map((l) => l.action),
  );
});

test('the shapes of real dumps read and replay as hushd reads them', () => {
  // hushd/tests/fixtures/real_shapes: a cluster-info dump, its 2017-2019 form
  // of internal objects, a must-gather events.yaml converted to one line.
  const dir = join(root, 'hushd', 'tests', 'fixtures', 'real_shapes');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 3);
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    const recording = new Recording(bytes);
    assert.deepStrictEqual(recording.errors(), [], file);
    const { lines, stderr } = hushdReplay(join(dir, file), ['--strict']);
    const decisions = lines.filter((l) => !('tick' in l));
    assert.equal(recording.length, decisions.length, `${file}: ${stderr}`);
    const run = recording.replay({});
    assert.deepStrictEqual(
      Array.from({ length: recording.length }, (_, i) => run.explain(i).action),
      decisions.map((l) => l.action),
      file,
    );
  }
});

test('appended bytes continue the stream and its byte offsets', () => {
  const text = readFileSync(storm, 'utf8');
  const cut = text.indexOf('\n', text.length >> 1) + 1;
  const whole = new Recording(Buffer.from(text));
  const parts = new Recording(Buffer.from(text.slice(0, cut)));
  const added = parts.append(Buffer.from(text.slice(cut)));
  assert.equal(parts.length, whole.length);
  assert.equal(added, whole.length - text.slice(0, cut).trim().split('\n').length);
  const [a, b] = [whole.facts(), parts.facts()];
  assert.deepStrictEqual(b.start, a.start);
  assert.deepStrictEqual(b.end, a.end);
  assert.deepStrictEqual(parts.replay({}).stats(), whole.replay({}).stats());
});

test('bad options, bad bytes and bad indexes throw the JavaScript errors a caller expects', () => {
  const recording = new Recording(readFileSync(storm));
  assert.throws(() => recording.replay({ qps: -1 }), RangeError);
  assert.throws(() => recording.replay({ brust: 3 }), /unknown field `brust`/);
  assert.throws(() => new Recording(new Uint8Array([0x7b, 0xff, 0x7d])), { name: 'TypeError', message: /offset 1/ });
  const run = recording.replay({});
  assert.throws(() => run.explain(recording.length), { name: 'RangeError', message: `index ${recording.length} out of range: there are ${recording.length}` });
  assert.throws(() => run.storedEvent(1e6), RangeError);
  assert.equal(run.storedEvent(0).kind, 'Event');
});

test('every shared vector through Recording and Run: the decisions and timer writes it expects', () => {
  const dir = join(root, 'tests', 'vectors');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length > 0);
  for (const file of files) {
    const vector = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const text = vector.input.map((e) => JSON.stringify(e)).join('\n');
    const recording = new Recording(Buffer.from(text));
    assert.equal(recording.length, vector.input.length, file);
    const run = recording.replay({ ...vector.options, mode: vector.mode });
    const names = namesOf(run);
    const decisions = vector.expect.filter((l) => !('tick' in l));
    for (const [i, expected] of decisions.entries()) {
      const { stored, ...got } = run.explain(i);
      const want = { ...expected };
      // A Run names the stored event of a patch, drop or absorb instead of
      // repeating it.
      if (!['create', 'refuse'].includes(want.action)) delete want.event;
      assert.deepStrictEqual(got, want, `${file} input ${i}`);
    }
    const ticks = vector.expect
      .filter((l) => 'tick' in l)
      .flatMap((l) => l.writes.map((w) => `${l.tick} ${w.event.metadata.namespace}/${w.event.metadata.name}`));
    const columns = run.columns();
    const got = Array.from(columns.ticks.kind, (k, i) => `${columns.labels[k]} ${names[columns.ticks.target[i]]}`);
    assert.deepStrictEqual(got, ticks, file);
  }
});

test("defaultOptions() are client-go's", () => {
  const { defaultOptions } = require(join(root, 'target', 'web', 'node', 'hush_web.js'));
  const o = defaultOptions();
  assert.equal(o.mode, 'legacy');
  assert.equal(o.burst, 25);
  assert.equal(Math.fround(o.qps), Math.fround(1 / 300));
  assert.equal(o['lru-cache-size'], 4096);
  assert.equal(o['max-events'], 10);
  assert.equal(o['max-interval-seconds'], 600);
  assert.equal(o['spam-key'], 'source-object-type');
});
