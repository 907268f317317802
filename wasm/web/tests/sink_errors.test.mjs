// What a JavaScript sink throws, and what the recorder makes of it (the
// convention documented in wasm/web/src/sink.rs and the README): an HTTP
// status ends the write or pauses the sink, a network error code pauses the
// sink, and anything else fails that one write, never the whole sink.
//
//   bash scripts/build-web.sh && node --test wasm/web/tests/

import { test } from 'node:test';
import assert from 'node:assert';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);
const { Replay } = require(join(root, 'target', 'web', 'node', 'hush_web.js'));

const AT = '2024-05-01T10:00:00Z';

function backOff(at) {
  return {
    at,
    metadata: { namespace: 'default' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u1' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    type: 'Warning',
    source: { component: 'kubelet', host: 'node-1' },
  };
}

/**
 * A sink that stores what it is given, except that `create` or `patch`
 * throws `thrown()` while `failing.create` / `failing.patch` is set.
 */
function sink(failing) {
  const calls = { create: 0, patch: 0 };
  const stored = new Map();
  let version = 0;
  const answer = (e) => ({ name: e.metadata.name, resourceVersion: String(++version), count: e.count ?? 0 });
  return {
    calls,
    stored,
    create(event) {
      calls.create += 1;
      if (failing.create) throw failing.create();
      stored.set(event.metadata.name, event);
      return answer(event);
    },
    patch(namespace, name, patch) {
      calls.patch += 1;
      if (failing.patch) throw failing.patch();
      const event = stored.get(name);
      if (!event) throw { status: 404 };
      event.count = patch.count;
      return answer(event);
    },
    list() {
      return [];
    },
  };
}

function withProps(error, props) {
  return Object.assign(error, props);
}

// Final answers: the write is dropped with a cause naming the status, counted,
// and never retried.
const finals = [
  ['{status: 403}', () => ({ status: 403, message: 'events is forbidden' }), 403, 'events is forbidden'],
  ['Error with status 422', () => withProps(new Error('message too long'), { status: 422 }), 422, 'message too long'],
  ['{statusCode: 400}', () => ({ statusCode: 400, message: 'bad request' }), 400, 'bad request'],
  [
    'a Kubernetes Status {code: 403, reason: Forbidden}',
    () => ({ kind: 'Status', status: 'Failure', code: 403, reason: 'Forbidden', message: 'no' }),
    403,
    'no',
  ],
  ['{reason: "Invalid"}', () => ({ reason: 'Invalid', message: 'x' }), 422, 'x'],
  ['an unknown status {status: 418}', () => ({ status: 418, message: 'teapot' }), 418, 'teapot'],
];

for (const [name, thrown, status, message] of finals) {
  test(`a create answered ${name} is dropped as rejected (${status}) and not retried`, () => {
    const store = sink({ create: thrown });
    const replay = new Replay({}, store);
    const [decision] = replay.observe(backOff(AT));
    assert.strictEqual(decision.action, 'create');
    assert.deepStrictEqual(decision.write, { status: 'dropped', cause: { rejected: { status, message } } });
    const stats = replay.stats();
    assert.strictEqual(stats.droppedRejected, 1);
    assert.strictEqual(stats.held, 0);
    assert.strictEqual(stats.unreachable, 0);
    assert.deepStrictEqual(replay.finish(), [], 'nothing held, nothing retried');
    assert.strictEqual(store.calls.create, 1);
    replay.free();
  });
}

test('a 409 answered to a create is "already exists"; to a patch it is a rejected conflict', () => {
  const onCreate = sink({ create: () => ({ status: 409, message: 'exists' }) });
  let replay = new Replay({}, onCreate);
  let [decision] = replay.observe(backOff(AT));
  assert.deepStrictEqual(decision.write, { status: 'dropped', cause: 'already-exists' });
  assert.strictEqual(replay.stats().droppedAlreadyExists, 1);
  replay.free();

  const failing = {};
  const onPatch = sink(failing);
  replay = new Replay({}, onPatch);
  replay.observe(backOff(AT));
  failing.patch = () => ({ status: 409, message: 'conflict' });
  [decision] = replay.observe(backOff('2024-05-01T10:00:05Z'));
  assert.strictEqual(decision.action, 'patch');
  assert.deepStrictEqual(decision.write, {
    status: 'dropped',
    cause: { rejected: { status: 409, message: 'conflict' } },
  });
  assert.strictEqual(onPatch.calls.create, 1, 'no create after a conflict');
  replay.free();
});

test('a 404 answered to a patch makes the recorder create the event', () => {
  const failing = {};
  const store = sink(failing);
  const replay = new Replay({}, store);
  replay.observe(backOff(AT));
  store.stored.clear();
  failing.patch = () => ({ code: 404 });
  const [decision] = replay.observe(backOff('2024-05-01T10:00:05Z'));
  assert.strictEqual(decision.action, 'patch');
  assert.strictEqual(decision.write, undefined, 'written');
  assert.strictEqual(store.calls.create, 2);
  assert.strictEqual([...store.stored.values()][0].count, 2);
  replay.free();
});

// Sink-wide answers: the write is held and retried once the backoff expires.
// An unreachable sink is probed again at once, then after 1 s.
const RECONNECT = '2024-05-01T10:00:01Z';
const sinkWide = [
  ['{status: 429, retryAfterSeconds: 7}', () => ({ status: 429, retryAfterSeconds: 7 }), 'throttled', '2024-05-01T10:00:07Z'],
  ['{status: 503}', () => ({ status: 503, message: 'etcd leader changed' }), 'unavailable', null],
  ['{code: "ECONNREFUSED"}', () => withProps(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'unreachable', RECONNECT],
  [
    "fetch's TypeError with cause.code",
    () => new TypeError('fetch failed', { cause: { code: 'ETIMEDOUT' } }),
    'unreachable',
    RECONNECT,
  ],
  ['{status: 0}', () => ({ status: 0 }), 'unreachable', RECONNECT],
];

for (const [name, thrown, counter, retryAt] of sinkWide) {
  test(`a create answered ${name} is held (${counter}) and written once the sink recovers`, () => {
    const failing = { create: thrown };
    const store = sink(failing);
    const replay = new Replay({}, store);
    const [decision] = replay.observe(backOff(AT));
    assert.strictEqual(decision.write.status, 'held');
    if (retryAt) assert.strictEqual(decision.write.retryAt.replace(/\.0+Z$/, 'Z'), retryAt);
    const stats = replay.stats();
    assert.ok(stats[counter] >= 1, `${counter}: ${stats[counter]}`);
    assert.strictEqual(stats.failed, 0);
    assert.strictEqual(stats.held, 1);
    delete failing.create;
    const rest = replay.finish();
    assert.strictEqual(rest.at(-1).tick, 'retry');
    assert.strictEqual(rest.at(-1).writes[0].action, 'create');
    assert.strictEqual(store.stored.size, 1);
    replay.free();
  });
}

// Anything else is a failure of that one write: never "unreachable".
const unrecognised = [
  ['a plain Error', () => new Error('boom'), 'boom'],
  ['a string', () => 'no sink today', 'no sink today'],
  ['an object without status, reason or code', () => ({ message: 'odd' }), 'odd'],
  ['a non-network code', () => withProps(new Error('EACCES: permission denied'), { code: 'EACCES' }), 'EACCES: permission denied'],
];

for (const [name, thrown] of unrecognised) {
  test(`${name} fails that write alone, counted as failed, not unreachable`, () => {
    const failing = { create: thrown };
    const store = sink(failing);
    const replay = new Replay({}, store);
    const [decision] = replay.observe(backOff(AT));
    assert.strictEqual(decision.write.status, 'held');
    const stats = replay.stats();
    assert.strictEqual(stats.failed, 1, "one attempt so far");
    assert.strictEqual(stats.unreachable, 0);
    delete failing.create;
    replay.finish();
    assert.strictEqual(store.stored.size, 1, 'retried and written');
    replay.free();
  });
}
