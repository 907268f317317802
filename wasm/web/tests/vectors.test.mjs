// The shared vectors (tests/vectors/*.json) replayed through the wasm-bindgen
// build of hush (target/web/node, made by scripts/build-web.sh), one named
// test per file, plus tests of the JavaScript API itself.
//
//   bash scripts/build-web.sh && node --test wasm/web/tests/
//
// Only node:test and node:assert: no npm packages.

import { test } from 'node:test';
import assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);
const { Correlator, Replay } = require(join(root, 'target', 'web', 'node', 'hush_web.js'));

const vectorsDir = join(root, 'tests', 'vectors');

/**
 * An in-memory sink with the semantics of hush_core::store::MemoryStore:
 * one global resource-version counter ("1", "2", …) bumped by every
 * successful create and patch; creating an existing namespace/name throws
 * AlreadyExists, patching a missing one NotFound.
 */
function memoryStore() {
  const events = new Map();
  let lastResourceVersion = 0;
  const key = (namespace, name) => `${namespace ?? ''}/${name ?? ''}`;
  const countField = (event) => (event.apiVersion === 'events.k8s.io/v1' ? 'deprecatedCount' : 'count');
  const storedCount = (event) => (event.series ? event.series.count : (event[countField(event)] ?? 0));
  const answer = (event) => ({
    name: event.metadata.name ?? '',
    resourceVersion: event.metadata.resourceVersion,
    count: storedCount(event),
  });
  return {
    events,
    create(event) {
      const k = key(event.metadata?.namespace, event.metadata?.name);
      if (events.has(k)) throw { reason: 'AlreadyExists' };
      const stored = structuredClone(event);
      stored.metadata = { ...stored.metadata, resourceVersion: String(++lastResourceVersion) };
      events.set(k, stored);
      return answer(stored);
    },
    patch(namespace, name, patch) {
      const stored = events.get(key(namespace, name));
      if (!stored) throw { reason: 'NotFound' };
      stored.metadata.resourceVersion = String(++lastResourceVersion);
      if ('series' in patch) {
        stored.series = structuredClone(patch.series);
      } else {
        stored[countField(stored)] = patch.count;
        if ('lastTimestamp' in patch) {
          stored[stored.apiVersion === 'events.k8s.io/v1' ? 'deprecatedLastTimestamp' : 'lastTimestamp'] =
            patch.lastTimestamp;
        }
        if ('message' in patch) stored[stored.apiVersion === 'events.k8s.io/v1' ? 'note' : 'message'] = patch.message;
      }
      return answer(stored);
    },
    list(reportingController, reportingInstance) {
      return [...events.values()]
        .filter(
          (e) =>
            (e.reportingController ?? e.reportingComponent ?? '') === reportingController &&
            (e.reportingInstance ?? '') === reportingInstance,
        )
        .map((e) => structuredClone(e));
    },
  };
}

// ---- the shared vectors: one test per file ----

const vectorFiles = readdirSync(vectorsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const ran = new Set();

for (const file of vectorFiles) {
  const name = basename(file, '.json');
  test(name, () => {
    ran.add(name);
    const vector = JSON.parse(readFileSync(join(vectorsDir, file), 'utf8'));
    const replay = new Replay({ ...vector.options, mode: vector.mode }, memoryStore());
    try {
      const lines = [];
      vector.input.forEach((input, i) => {
        assert.ok(input !== null && typeof input === 'object', `input ${i} is an object`);
        lines.push(...replay.observe(input));
      });
      lines.push(...replay.finish());
      assert.deepStrictEqual(lines, vector.expect);
    } finally {
      replay.free();
    }
  });
}

test('every vector file was found and replayed', () => {
  const listing = readdirSync(vectorsDir, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.json'))
    .map((d) => basename(d.name, '.json'))
    .sort();
  assert.ok(listing.length > 0, `no vectors in ${vectorsDir}`);
  assert.deepStrictEqual([...ran].sort(), listing, 'every vector test ran');
});

// ---- the JavaScript API ----

const T0 = Date.parse('2024-05-01T10:00:00Z');

function backOff(extra = {}) {
  return {
    involvedObject: { kind: 'Pod', namespace: 'prod', name: 'web-1', uid: 'u-1', apiVersion: 'v1' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    source: { component: 'kubelet', host: 'node-1' },
    type: 'Warning',
    ...extra,
  };
}

test('api: invalid options throw RangeError with a message', () => {
  const cases = [
    [{ qps: -1 }, /option qps: .*\(0 means client-go's default, 1\/300\)/],
    [{ qps: NaN }, /option qps/],
    [{ 'backoff-initial-ms': 10, 'backoff-max-ms': 5 }, /backoff-initial-ms/],
    [{ bogus: 1 }, /invalid options: unknown field `bogus`/],
    [{ burst: 'many' }, /invalid options: .*burst|invalid options: invalid type/],
    [{ 'lru-cache-size': -1 }, /invalid options/],
    [{ mode: 'sideways' }, /invalid options: unknown variant `sideways`/],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => new Replay(options, memoryStore()),
      (e) => {
        assert.ok(e instanceof RangeError, `${JSON.stringify(options)}: ${e}`);
        assert.match(e.message, message);
        return true;
      },
    );
  }
  assert.throws(() => new Replay(42, memoryStore()), TypeError);
  // undefined, null and undefined values mean the defaults
  new Replay(undefined, memoryStore()).free();
  new Replay(null, memoryStore()).free();
  new Replay({ burst: undefined, 'jitter-seed': 7n }, memoryStore()).free();
  // as in client-go, a zero means the default
  new Replay({ burst: 0, qps: 0, 'lru-cache-size': 0, 'max-interval-seconds': 0 }, memoryStore()).free();
});

test('api: a host or sink without its methods throws TypeError', () => {
  assert.throws(() => new Replay({}, null), { name: 'TypeError', message: 'sink must be an object' });
  assert.throws(() => new Replay({}, { create() {}, list() {} }), {
    name: 'TypeError',
    message: 'sink.patch is not a function',
  });
  const { create, patch, list } = memoryStore();
  assert.throws(() => new Correlator({}, { create, patch, list }), {
    name: 'TypeError',
    message: 'host.now is not a function',
  });
});

test('api: a non-Event throws TypeError', () => {
  const replay = new Replay({}, memoryStore());
  for (const input of ['hello', 42, null, [1, 2], { kind: 'Pod', involvedObject: {} }, { reason: 'x' }]) {
    assert.throws(
      () => replay.observe(input),
      (e) => {
        assert.ok(e instanceof TypeError, `${JSON.stringify(input)}: ${e}`);
        assert.match(e.message, /^not an Event: /);
        return true;
      },
    );
  }
  assert.throws(() => replay.observe(backOff()), {
    name: 'TypeError',
    message: /needs an instant: at, eventTime, lastTimestamp or firstTimestamp/,
  });
  replay.free();
  const host = { ...memoryStore(), now: () => T0 };
  const correlator = new Correlator({}, host);
  assert.throws(() => correlator.observe({ type: 'Info', involvedObject: {} }), {
    name: 'TypeError',
    message: /^not an Event: type "Info"/,
  });
  assert.deepStrictEqual(correlator.stats().observed, 0);
  correlator.free();
});

test('api: a live Correlator creates, then patches, at host.now()', () => {
  const store = memoryStore();
  let now = T0;
  const host = { ...store, now: () => now };
  const correlator = new Correlator({ mode: 'legacy' }, host);

  const first = correlator.observe(backOff());
  assert.strictEqual(first.action, 'create');
  assert.strictEqual(first.why.rule, 'first-seen');
  assert.strictEqual(first.event.firstTimestamp, '2024-05-01T10:00:00Z');
  assert.strictEqual(first.event.eventTime, null);
  assert.strictEqual(first.write, undefined, 'a written create shows no write status');

  now = T0 + 5_000.5; // fractional milliseconds are allowed
  const second = correlator.observe(backOff());
  assert.strictEqual(second.action, 'patch');
  assert.strictEqual(second.why.rule, 'repeat');
  assert.deepStrictEqual(second.patch, {
    count: 2,
    lastTimestamp: '2024-05-01T10:00:05Z',
    message: 'Back-off restarting failed container',
  });
  assert.strictEqual(second.event.metadata.name, first.event.metadata.name);

  assert.strictEqual(store.events.size, 1);
  const [stored] = store.events.values();
  assert.strictEqual(stored.count, 2);
  assert.strictEqual(stored.lastTimestamp, '2024-05-01T10:00:05Z');
  assert.strictEqual(stored.metadata.resourceVersion, '2');

  assert.deepStrictEqual(correlator.tick(), []);
  assert.strictEqual(correlator.nextDue(), undefined);
  const stats = correlator.stats();
  assert.strictEqual(stats.observed, 2);
  assert.strictEqual(stats.created, 1);
  assert.strictEqual(stats.patched, 1);
  correlator.free();
});

test('api: host.now() may return bigint nanoseconds; a bad clock throws', () => {
  const base = BigInt(T0) * 1_000_000n;
  let now = base + 123n;
  const host = { ...memoryStore(), now: () => now };
  const correlator = new Correlator(undefined, host);
  const d = correlator.observe(backOff());
  assert.strictEqual(d.action, 'create');
  // The name is the involved object's name and the instant in hex nanoseconds.
  assert.strictEqual(d.event.metadata.name, `web-1.${(base + 123n).toString(16)}`);

  now = 'soon';
  assert.throws(() => correlator.tick(), { name: 'TypeError', message: /host\.now\(\) must return/ });
  now = Number.NaN;
  assert.throws(() => correlator.observe(backOff()), RangeError);
  const boom = new Error('clock broke');
  host.now = () => {
    throw boom;
  };
  // host.now is looked up once, at construction: the old clock still answers.
  now = base + 5_000_000_000n;
  assert.strictEqual(correlator.observe(backOff()).action, 'patch');
  correlator.free();

  const broken = new Correlator({}, { ...memoryStore(), now: () => { throw boom; } });
  assert.throws(() => broken.observe(backOff()), (e) => e === boom);
  broken.free();
});

test('api: series mode writes events.k8s.io/v1 through the host', () => {
  const store = memoryStore();
  let now = T0;
  const correlator = new Correlator({ mode: 'series' }, { ...store, now: () => now });
  const event = {
    apiVersion: 'events.k8s.io/v1',
    regarding: { kind: 'Pod', namespace: 'prod', name: 'web-1', uid: 'u-1', apiVersion: 'v1' },
    reason: 'BackOff',
    action: 'Restarting',
    note: 'Back-off restarting failed container',
    type: 'Warning',
    reportingController: 'kubelet',
    reportingInstance: 'kubelet-node-1',
  };
  const first = correlator.observe(event);
  assert.strictEqual(first.action, 'create', JSON.stringify(first));
  assert.strictEqual(first.event.apiVersion, 'events.k8s.io/v1');
  const [stored] = store.events.values();
  assert.strictEqual(stored.apiVersion, 'events.k8s.io/v1');
  assert.strictEqual(stored.note, event.note);
  now += 1_000;
  const second = correlator.observe(event);
  assert.strictEqual(second.action, 'patch');
  assert.strictEqual(second.why.rule, 'series-start');
  assert.strictEqual(second.patch.series.count, 2);
  now += 1_000;
  assert.strictEqual(correlator.observe(event).action, 'absorb');
  assert.strictEqual(correlator.nextDue(), T0 + 6 * 60 * 1000, 'the first finish check');
  now = T0 + 13 * 60 * 1000;
  const ticks = correlator.tick();
  assert.strictEqual(ticks.length, 1);
  assert.strictEqual(ticks[0].tick, 'finish');
  assert.strictEqual(ticks[0].at, '2024-05-01T10:12:00Z');
  assert.deepStrictEqual(ticks[0].writes[0].patch, {
    series: { count: 3, lastObservedTime: '2024-05-01T10:00:02.000000Z' },
  });
  assert.strictEqual(stored.series.count, 3);
  assert.strictEqual(correlator.stats().finished, 1);
  correlator.free();
});
