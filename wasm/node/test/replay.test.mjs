// The Node host against `hushd replay`: every shared vector
// (tests/vectors/*.json) and the sample storm, in both modes, give the same
// bytes on stdout; bad input gives the same messages on stderr and the same
// exit status. Plus the library: the sink's answers, a failing sink.
//
//   npm run build && node --test test/      (HUSHD=… picks the hushd binary)

import { test } from 'node:test';
import assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';

import { MemoryStore, Replay, records } from '../index.mjs';
import { BAD_LINES, GOOD, cli, hushdReplay, root, run, vectorsDir } from './common.mjs';

const node = (args, input) => run(process.execPath, [cli, ...args], input);

/** Asserts that both print the same bytes, and returns the Node host's output. */
function sameAsHushd(args, input) {
  const want = hushdReplay(args, input);
  assert.strictEqual(want.status, 0, `hushd failed: ${want.stderr}`);
  const got = node(args, input);
  assert.strictEqual(got.stderr, '', 'nothing on stderr');
  assert.strictEqual(got.status, 0);
  assert.ok(got.stdout.length > 0, 'some output');
  assert.strictEqual(got.stdout, want.stdout);
  return got.stdout;
}

// ---- the shared vectors: one test per file ----

const vectorFiles = readdirSync(vectorsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const ran = new Set();

for (const file of vectorFiles) {
  const name = basename(file, '.json');
  test(`vector ${name}`, () => {
    const vector = JSON.parse(readFileSync(join(vectorsDir, file), 'utf8'));
    const input = vector.input.map((e) => `${JSON.stringify(e)}\n`).join('');
    const args = ['--mode', vector.mode, '--options', JSON.stringify(vector.options), '-'];
    const stdout = sameAsHushd(args, input);
    const lines = stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepStrictEqual(lines, vector.expect);
    ran.add(name);
  });
}

test('every vector file was found and replayed', () => {
  assert.ok(vectorFiles.length > 0, `no vectors in ${vectorsDir}`);
  assert.deepStrictEqual(
    [...ran].sort(),
    vectorFiles.map((f) => basename(f, '.json')).sort(),
  );
});

// ---- the sample storm ----

for (const mode of ['legacy', 'series']) {
  test(`the sample storm, ${mode}`, () => {
    const storm = join(root, 'hushd', 'samples', 'storm.jsonl');
    const stdout = sameAsHushd(['--mode', mode, storm]);
    assert.strictEqual(stdout.split('\n').length - 1 >= readFileSync(storm, 'utf8').split('\n').length - 1, true);
  });
}

// ---- bad input ----


// The bad records' messages, line for line; the summary after them is
// each CLI's own (hushd's read summary, the host's count of skipped records).
const skipped = (stderr) => stderr.split('\n').filter((line) => /^[a-z-]+: skipped /.test(line)).join('\n');

function sameMessagesAsHushd(args, input) {
  const want = hushdReplay(args, input);
  const got = node(args, input);
  assert.strictEqual(got.stdout, want.stdout);
  assert.strictEqual(skipped(got.stderr), skipped(want.stderr.replaceAll(/^hushd:/gm, 'hush-replay:')));
  assert.strictEqual(got.status, want.status);
  return got;
}

test('bad records are skipped with hushd messages, and --strict fails', () => {
  const got = sameMessagesAsHushd(['--strict', '-'], BAD_LINES);
  assert.strictEqual(got.status, 1);
  assert.match(got.stderr, /^hush-replay: skipped line 3: not valid JSON: /m);
  assert.match(got.stderr, /^hush-replay: skipped line 8: \d+ bytes, more than the 2 MiB limit$/m);
  assert.match(got.stderr, /^hush-replay: skipped line 10 items\[1\]: not an Event: unknown kind "Pod"/m);
  assert.match(got.stderr, /^hush-replay: skipped line 11: not valid JSON: EOF while parsing/m);
  assert.match(got.stderr, /^hush-replay: 7 bad input records skipped$/m);
  assert.strictEqual(got.stdout.split('\n').length - 1, 3);
  assert.strictEqual(sameMessagesAsHushd(['-'], BAD_LINES).status, 0);
});

test('a kubectl list is read item by item', () => {
  const vector = JSON.parse(readFileSync(join(vectorsDir, 'legacy-aggregation.json'), 'utf8'));
  const items = [...vector.input];
  items.splice(2, 0, { involvedObject: {}, type: 'Bad' });
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2);
  const got = sameMessagesAsHushd(['-'], `\n${list}\n`);
  assert.match(got.stderr, /^hush-replay: skipped items\[2\]: not an Event: type "Bad"/m);
  assert.strictEqual(got.stdout.split('\n').length - 1, vector.expect.length);
  const broken = sameMessagesAsHushd(['-'], '{\n "items": [\n  nope\n ]\n}\n');
  assert.match(broken.stderr, /^hush-replay: skipped line 3: not valid JSON/m);
});

test('bad options and arguments are usage errors', () => {
  for (const [args, message] of [
    [['--options', '{"qps": -1}'], /^hush-replay: --options: .*qps/],
    [['--options', '{"bogus": 1}'], /^hush-replay: --options: unknown field `bogus`/],
    [['--options', '@/nonexistent/options.json'], /^hush-replay: cannot read \/nonexistent\/options.json/],
    [['--mode', 'sideways'], /^hush-replay: --mode: expected legacy or series/],
    [['a', 'b'], /^hush-replay: one input at most/],
  ]) {
    const got = node(args, '');
    assert.strictEqual(got.status, 2, `${args}: ${got.stderr}`);
    assert.match(got.stderr, message);
  }
  const missing = node(['/nonexistent/events.jsonl'], '');
  assert.strictEqual(missing.status, 1);
  assert.match(missing.stderr, /^hush-replay: cannot open \/nonexistent\/events.jsonl/);
});

// ---- the library ----

async function readAll(text, json) {
  const all = [];
  for await (const record of records(Readable.from([Buffer.from(text)]), json)) all.push(record);
  return all;
}

test('the memory store answers as the API server: 409 on a second create, 404 for a missing patch', async () => {
  const store = new MemoryStore();
  const replay = await Replay.create({ sink: store });
  const [record] = await readAll(GOOD, replay.json);
  // As read, before the recorder completes it: no name, count 0.
  const event = { ...record.event, namespace: 'a', name: 'p.17cb550d96f24000', count: 1 };
  assert.deepStrictEqual(store.createEvent(event), { name: event.name, resourceVersion: '1', count: 1 });
  assert.throws(() => store.createEvent(event), (e) => e.payload.tag === 'already-exists');
  const patch = { tag: 'legacy', val: { count: 2, lastTimestamp: 5n, message: '' } };
  assert.throws(() => store.patchEvent('a', 'nope', patch, '{"count":2}'), (e) => e.payload.tag === 'not-found');
  assert.deepStrictEqual(store.patchEvent('a', event.name, patch, '{"count":2,"lastTimestamp":"x"}'), {
    name: event.name,
    resourceVersion: '2',
    count: 2,
  });
  const stored = store.get('a', event.name);
  assert.strictEqual(stored.lastTimestamp, 5n);
  assert.strictEqual(stored.message, 'm', 'a message absent from the body is kept');
  const message = { tag: 'legacy', val: { count: 3, lastTimestamp: 6n, message: 'm2' } };
  assert.strictEqual(store.patchEvent('a', event.name, message, '{"count":3,"message":"m2"}').count, 3);
  assert.strictEqual(stored.message, 'm2');
  assert.strictEqual(stored.lastTimestamp, 5n, 'a lastTimestamp absent from the body is kept');
});

test('a failing sink holds the write and the retry is printed', async () => {
  const store = new MemoryStore();
  const create = store.createEvent.bind(store);
  let failures = 1;
  store.createEvent = (event) => {
    if (failures-- > 0) throw { payload: { tag: 'unavailable', val: '503 Service Unavailable' } };
    return create(event);
  };
  const replay = await Replay.create({ sink: store });
  const [record] = await readAll(GOOD, replay.json);
  const first = replay.observe(record.event, record.at).map((l) => JSON.parse(l));
  assert.strictEqual(first[0].action, 'create');
  assert.strictEqual(first[0].write.status, 'held');
  const rest = replay.finish().map((l) => JSON.parse(l));
  assert.strictEqual(rest.length, 1);
  assert.strictEqual(rest[0].tick, 'retry');
  assert.strictEqual(rest[0].writes[0].action, 'create');
  assert.strictEqual(store.events().length, 1);
  assert.strictEqual(replay.stats().retries, 1n);
});

test('a sink that throws an exception fails the write, which is counted and retried', async () => {
  const store = new MemoryStore();
  const create = store.createEvent.bind(store);
  let failures = 1;
  store.createEvent = (event) => {
    if (failures-- > 0) throw new TypeError('the sink has a bug');
    return create(event);
  };
  const replay = await Replay.create({ sink: store });
  const [record] = await readAll(GOOD, replay.json);
  const [decision] = replay.observe(record.event, record.at).map((l) => JSON.parse(l));
  // A failure without a status fails that write alone: it is held with its
  // own backoff, and the retry writes it.
  assert.strictEqual(decision.action, 'create');
  assert.strictEqual(decision.write.status, 'held');
  const rest = replay.finish().map((l) => JSON.parse(l));
  assert.strictEqual(rest.length, 1);
  assert.strictEqual(rest[0].tick, 'retry');
  assert.strictEqual(rest[0].writes[0].action, 'create');
  assert.strictEqual(rest[0].writes[0].write, undefined, 'written');
  assert.strictEqual(store.events().length, 1);
  const stats = replay.stats();
  assert.strictEqual(stats.failed, 1n);
  assert.strictEqual(stats.retries, 1n);
});
