// The batch path (`BatchReplay`: the codec's `Reader.encode`, the
// correlator's `Replay` resource) against `hushd replay`: for every shared
// vector and the sample storm, in both modes and in batches of several
// sizes, each decision and each timer firing is the one hushd prints (its
// action, rule, write status, drop cause and count; a firing's kind,
// instant and writes), bad records get hushd's messages, and the store ends
// as the typed path's store does. Plus the batch API: columns, errors.
//
//   npm run build && node --test test/      (HUSHD=… picks the hushd binary)

import { test } from 'node:test';
import assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';

import { ACTIONS, BatchReplay, MemoryStore, Outcomes, Replay, chunks, loadCorrelator, records } from '../index.mjs';
import { BAD_LINES, hushdReplay, storm, vectorsDir } from './common.mjs';

/** Nanoseconds since the epoch of an RFC 3339 UTC instant. */
function nanos(text) {
  const [, whole, fraction = ''] = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(text);
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
}

const causeName = (cause) => (typeof cause === 'string' ? cause : Object.keys(cause)[0]);

/** [write, cause] of a line's `write`, or what its action implies. */
function status(line, implied) {
  if (line.write === undefined) return implied;
  return [line.write.status, line.write.status === 'dropped' ? causeName(line.write.cause) : null];
}

const IMPLIED = {
  create: ['written', null],
  patch: ['written', null],
  drop: ['dropped', 'spam-filtered'],
  refuse: ['dropped', 'refused'],
  trap: ['dropped', 'trapped'],
  absorb: [null, null],
};

/** The count a timer's write sets: its patch's, else its event's. */
function setsCount(write) {
  if (write.patch) return write.patch.series ? write.patch.series.count : write.patch.count;
  return write.event.series ? write.event.series.count : (write.event.count ?? 0);
}

const decision = (action, rule, [write, cause], count) => ({ action, rule, write, cause, count });

/** A line of `hushd replay --output decisions`, as the batch path reports it. */
function fromHushd(line) {
  if (line.tick !== undefined) {
    const writes = line.writes.map((w) =>
      decision(w.action, w.why?.rule ?? null, status(w, ['written', null]), setsCount(w)),
    );
    return { timer: line.tick, at: nanos(line.at), writes };
  }
  return decision(line.action, line.why?.rule ?? null, status(line, IMPLIED[line.action]), line.why?.count ?? 0);
}

const firing = (f) => ({ timer: f.kind, at: f.at, writes: [...f.writes] });

/** A batch's decisions and timer firings, as one sequence of lines. */
function inOrder(batch) {
  const lines = [];
  const timers = [...batch.timers];
  let i = 0;
  for (const d of batch.decisions) {
    while (timers.length > 0 && timers[0].position === i) lines.push(firing(timers.shift()));
    lines.push(d);
    i++;
  }
  return [...lines, ...timers.map(firing)];
}

/** Every line and bad record of `text` fed `size` lines at a time (all at once for null). */
async function replayInBatches(text, size, mode = 'legacy', options = '{}') {
  const replay = await BatchReplay.create({ mode, options });
  const rows = text.split(/(?<=\n)/);
  const step = size ?? Math.max(rows.length, 1);
  const lines = [];
  const bad = [];
  for (let start = 0; start < rows.length; start += step) {
    const batch = replay.feed(rows.slice(start, start + step).join(''));
    lines.push(...inOrder(batch));
    bad.push(...batch.bad);
  }
  const last = replay.finish();
  lines.push(...inOrder(last));
  bad.push(...last.bad);
  return { replay, lines, bad };
}

async function sameAsHushd(text, mode, options, sizes) {
  const want = hushdReplay(['--mode', mode, '--options', options, '-'], text);
  assert.strictEqual(want.status, 0, want.stderr);
  const expected = want.stdout.trimEnd().split('\n').map((l) => fromHushd(JSON.parse(l)));
  let replay;
  for (const size of sizes) {
    const got = await replayInBatches(text, size, mode, options);
    assert.deepStrictEqual(got.bad, []);
    assert.strictEqual(got.lines.length, expected.length, `${size} lines per batch`);
    got.lines.forEach((line, i) => assert.deepStrictEqual(line, expected[i], `line ${i + 1}, ${size} lines per batch`));
    replay = got.replay;
  }
  return { replay, expected };
}

const vectorFiles = readdirSync(vectorsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const ran = new Set();
let timers = 0;

for (const file of vectorFiles) {
  const name = basename(file, '.json');
  test(`batch: vector ${name}`, async () => {
    const vector = JSON.parse(readFileSync(join(vectorsDir, file), 'utf8'));
    const text = vector.input.map((e) => `${JSON.stringify(e)}\n`).join('');
    const { expected } = await sameAsHushd(text, vector.mode, JSON.stringify(vector.options), [1, 3, null]);
    timers += expected.filter((l) => l.timer !== undefined).length;
    ran.add(name);
  });
}

test('batch: every vector file was replayed, and the vectors fire timers', () => {
  assert.ok(vectorFiles.length > 0, `no vectors in ${vectorsDir}`);
  assert.deepStrictEqual([...ran].sort(), vectorFiles.map((f) => basename(f, '.json')).sort());
  assert.ok(timers > 0);
});

/** What a store holds, by namespace and name. */
function stored(events) {
  return new Map(
    events.map((e) => [`${e.namespace}/${e.name}`, [e.resourceVersion, e.series ? e.series.count : e.count, e.lastTimestamp]]),
  );
}

for (const mode of ['legacy', 'series']) {
  test(`batch: the sample storm, ${mode}, and its store`, async () => {
    const text = readFileSync(storm, 'utf8');
    const { replay } = await sameAsHushd(text, mode, '{}', [1, 250, null]);
    const store = new MemoryStore();
    const typed = await Replay.create({ mode, sink: store });
    for await (const r of records(Readable.from([Buffer.from(text)]), typed.json)) typed.observe(r.event, r.at);
    typed.finish();
    assert.deepStrictEqual(stored(replay.events()), stored(store.events()));
    assert.deepStrictEqual(replay.stats(), typed.stats());
  });
}

test('batch: bad records get hushd messages', async () => {
  const want = hushdReplay(['-'], BAD_LINES);
  assert.strictEqual(want.status, 0);
  const wantBad = [...want.stderr.matchAll(/^hushd: skipped (.+?): (.*)$/gm)].map(([, position, error]) => ({
    position,
    error,
  }));
  assert.strictEqual(wantBad.length, 7);
  const expected = want.stdout.trimEnd().split('\n').map((l) => fromHushd(JSON.parse(l)));
  for (const size of [1, 4, null]) {
    const got = await replayInBatches(BAD_LINES, size);
    assert.deepStrictEqual(got.bad, wantBad);
    assert.deepStrictEqual(got.lines, expected);
  }
});

test('batch: a kubectl list is replayed at the end', async () => {
  const vector = JSON.parse(readFileSync(join(vectorsDir, 'legacy-aggregation.json'), 'utf8'));
  const text = `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: vector.input }, null, 2)}\n`;
  const want = hushdReplay(['-'], text);
  const replay = await BatchReplay.create();
  assert.strictEqual(replay.feed(text).decisions.length, 0, 'a document is read to its end first');
  assert.deepStrictEqual(
    inOrder(replay.finish()),
    want.stdout.trimEnd().split('\n').map((l) => fromHushd(JSON.parse(l))),
  );
});

test('batch: the columns agree with the decisions', async () => {
  const replay = await BatchReplay.create();
  const { decisions } = replay.feed(readFileSync(storm));
  const all = [...decisions];
  const stats = replay.stats();
  assert.strictEqual(BigInt(decisions.length), stats.observed);
  assert.deepStrictEqual([...decisions.actions], all.map((d) => ACTIONS.indexOf(d.action)));
  assert.deepStrictEqual([...decisions.counts], all.map((d) => d.count));
  assert.strictEqual(BigInt(decisions.count('create')), stats.created);
  assert.strictEqual(BigInt(decisions.count('drop')), stats.droppedSpam);
  assert.deepStrictEqual(decisions.at(-1), all.at(-1));
  assert.strictEqual(decisions.at(decisions.length), undefined);
  assert.deepStrictEqual(new Set([...decisions.writes, ...decisions.causes]), new Set([0, 1, 3]));
  assert.throws(() => new Outcomes(new Uint8Array(7)), RangeError);
});

test('batch: an encoded batch replays under other options', async () => {
  const text = readFileSync(storm, 'utf8');
  const first = await BatchReplay.create();
  const encoded = new first.json.Reader().encode(text);
  assert.strictEqual(encoded.observations, text.split('\n').length - 1);
  const drops = [];
  for (const burst of [25, 5]) {
    const replay = await BatchReplay.create({ options: { burst } });
    drops.push(replay.observeEncoded(encoded.batch).decisions.count('drop'));
    assert.strictEqual(replay.stats().observed, BigInt(encoded.observations));
  }
  assert.ok(drops[0] < drops[1]);
});

test('batch: a bad batch is an error and replays nothing', async () => {
  const replay = await BatchReplay.create();
  const encoded = new replay.json.Reader().encode(readFileSync(storm, 'utf8'));
  for (const [batch, message] of [
    [encoded.batch.slice(0, -3), /^bad encoded batch at byte \d+: truncated \(observation 1869\); nothing was replayed$/],
    [`\x01${'\x00'.repeat(8)}`, /^bad encoded batch at byte 9: truncated \(observation 0\)/],
    [`${encoded.batch}€`, /^byte \d+: '€' \(U\+20AC\) carries no byte/],
  ]) {
    assert.throws(() => replay.observeEncoded(batch), (e) => e instanceof TypeError && message.test(e.message));
    assert.strictEqual(replay.stats().observed, 0n);
  }
  assert.strictEqual(replay.observeEncoded(encoded.batch).decisions.length, encoded.observations);
});

test('batch: chunks are whole lines', async () => {
  const data = Buffer.from(
    `${Array.from({ length: 1000 }, (_, i) => `${i} ${'x'.repeat(i % 7)}\n`).join('')}last`,
  );
  const pieces = [];
  for (let i = 0; i < data.length; i += 37) pieces.push(data.subarray(i, i + 37));
  const parts = [];
  for await (const part of chunks(Readable.from(pieces), 64)) parts.push(part);
  assert.deepStrictEqual(Buffer.concat(parts), data);
  assert.ok(parts.slice(0, -1).every((p) => p.at(-1) === 10));
  assert.ok(parts.length > 10);
  assert.match(parts.at(-1).toString(), /\nlast$/);
});

test('batch: bad options', async () => {
  await assert.rejects(BatchReplay.create({ options: '{"qps": -1}' }), /qps/);
  await assert.rejects(BatchReplay.create({ options: '{"bogus": 1}' }), /unknown field/);
});

test("the correlator's observe-encoded decides as the batch replay does (the recorder's completion does not leak)", async () => {
  // The codec leaves a field out when it repeats the previous event's; the
  // events read have no name yet, so each name the recorder generates must
  // stay with its own event.
  const replay = await BatchReplay.create();
  const encoded = new replay.json.Reader().encode(readFileSync(storm, 'utf8'));
  const api = await loadCorrelator({ now: () => 0n, sink: new MemoryStore() });
  const correlator = api.Correlator.create(replay.json.optionsFromJson('{}'));
  const got = new Outcomes(correlator.observeEncoded(Buffer.from(encoded.batch, 'latin1')));
  const want = replay.observeEncoded(encoded.batch).decisions;
  assert.strictEqual(got.length, encoded.observations);
  assert.ok(got.count('create') > 0 && got.count('patch') > 0);
  assert.deepStrictEqual([...got], [...want]);
});
