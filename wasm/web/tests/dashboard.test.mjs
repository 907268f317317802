// Dashboard (the dashboard's model, in its worker) against hushd itself: a
// recording read in pieces, each piece correlated on top of the last, must
// decide every event as `hushd replay --engine native` decides the whole
// stream; so must a what-if started half-way (it correlates what was read,
// once, then goes on); and so must a live feed (list pages, then watch
// lines with modifications, a late event, a deletion, a bookmark, an
// expired resourceVersion), against the same events written as JSON Lines
// in the order they arrived.
//
//   bash scripts/build-web.sh && cargo build -p hushd && node --test wasm/web/tests/

import { test } from 'node:test';
import assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);
const { Dashboard } = require(join(root, 'target', 'web', 'node', 'hush_web.js'));

const hushd = process.env.HUSHD ?? join(root, 'target', 'debug', 'hushd');
if (!existsSync(hushd)) throw new Error(`${hushd} is missing: run cargo build -p hushd first`);

const stormLines = readFileSync(join(root, 'hushd', 'samples', 'storm.jsonl'), 'utf8').trim().split('\n');
const encode = (text) => new TextEncoder().encode(text);

/** hushd's decision lines (ticks left out) for JSON Lines `text`. */
function hushdDecisions(text, args = []) {
  const result = spawnSync(hushd, ['replay', '--engine', 'native', '--output', 'decisions', ...args, '-'], { input: text, encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => !('tick' in l));
}

/** Asserts that run `which` decided every event as hushd did. */
function sameDecisions(dashboard, which, expected) {
  assert.equal(dashboard.length, expected.length);
  for (const [i, want] of expected.entries()) {
    const got = dashboard.explain(which, i);
    assert.equal(got.action, want.action, `event ${i}`);
    assert.deepStrictEqual(got.why, want.why, `event ${i}`);
    assert.deepStrictEqual(got.patch, want.patch, `event ${i}`);
    assert.deepStrictEqual(got.write, want.write, `event ${i}`);
    if (want.action === 'create') assert.deepStrictEqual(got.event, want.event, `event ${i}`);
  }
}

test('a file read in pieces, each correlated on top of the last, decides as hushd replay; a what-if started half-way too', () => {
  const d = new Dashboard();
  d.setRun(0, {});
  let correlated = 0;
  let whatif = 0;
  let pieces = 0;
  for (let at = 0, size = 3; at < stormLines.length; at += size, size = Math.ceil(size * 1.7)) {
    d.read(encode(stormLines.slice(at, at + size).join('\n') + '\n'));
    correlated += d.takeCorrelated();
    // The what-if, started with what was read so far: it correlates that once, then goes on.
    if (++pieces === 5) whatif = d.setRun(1, { burst: 5 });
    d.frame();
  }
  assert.ok(pieces > 8, `${pieces} pieces`);
  assert.equal(correlated, stormLines.length, 'each event correlated once by the baseline');
  assert.ok(whatif > 0 && whatif < stormLines.length);
  const text = stormLines.join('\n') + '\n';
  sameDecisions(d, 0, hushdDecisions(text));
  sameDecisions(d, 1, hushdDecisions(text, ['--burst', '5']));
  d.free();
});

/** A core/v1 Event object as an API server would send it. */
function apiEvent(name, pod, reason, last, count, resourceVersion) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'shop', resourceVersion: String(resourceVersion), uid: `uid-${name}` },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod, uid: `uid-${pod}`, apiVersion: 'v1' },
    reason,
    message: `${reason} for ${pod}`,
    source: { component: 'kubelet' },
    type: 'Warning',
    firstTimestamp: '2024-05-01T10:00:00Z',
    lastTimestamp: last,
    count,
  };
}

const second = (s) => `2024-05-01T10:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}Z`;

test('a live feed: list pages sorted by time, then watch lines with changes, a late event, a deletion and an expired version', () => {
  const d = new Dashboard();
  d.setRun(0, {});
  // The list gives Events by name; the dashboard correlates them by when they were last seen.
  const listed = [
    apiEvent('e-c', 'web-3', 'BackOff', second(30), 1, 3),
    apiEvent('e-a', 'web-1', 'BackOff', second(50), 4, 1),
    apiEvent('e-b', 'web-2', 'Failed', second(10), 1, 2),
    apiEvent('e-d', 'web-1', 'Unhealthy', second(40), 2, 4),
  ];
  const page = (items, token) => encode(JSON.stringify({ kind: 'EventList', apiVersion: 'v1', metadata: { resourceVersion: '10', continue: token }, items }));
  const first = d.listPage(page(listed.slice(0, 2), 'next'), Date.now());
  assert.deepStrictEqual(first, { continue: 'next', resourceVersion: '10', items: 2 });
  assert.equal(d.listPage(page(listed.slice(2), ''), Date.now()).continue, '');
  assert.equal(d.commitList(), 4);
  assert.equal(d.takeCorrelated(), 4);
  const frame0 = d.frame();
  assert.equal(frame0.first, true);
  const observed = [...listed].sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp));

  // The watch, in two batches, one line cut across them.
  const changes = [
    ['MODIFIED', apiEvent('e-a', 'web-1', 'BackOff', second(70), 5, 11)],
    ['ADDED', apiEvent('e-e', 'web-4', 'BackOff', second(75), 1, 12)],
    ['BOOKMARK', { kind: 'Event', apiVersion: 'v1', metadata: { resourceVersion: '13' } }],
    // Seen at 60 s, after an event seen at 75 s was correlated: late.
    ['ADDED', apiEvent('e-f', 'web-5', 'Failed', second(60), 1, 14)],
    ['MODIFIED', apiEvent('e-a', 'web-1', 'BackOff', second(90), 6, 15)],
    ['DELETED', apiEvent('e-b', 'web-2', 'Failed', second(10), 1, 16)],
  ];
  const lines = changes.map(([type, object]) => JSON.stringify({ type, object }) + '\n').join('');
  const cut = lines.indexOf('"BOOKMARK"') + 3;
  const w1 = d.watch(encode(lines.slice(0, lines.lastIndexOf('\n', cut) + 1)), Date.now());
  assert.deepStrictEqual(w1, { resourceVersion: '12', observed: 2, deleted: 0, bookmarks: 0 });
  assert.equal(d.takeCorrelated(), 2, 'only the new events are correlated');
  const frame1 = d.frame();
  assert.equal(frame1.first, false);
  assert.equal(frame1.facts.from, 4);
  assert.equal(frame1.facts.at.length, 2);
  const w2 = d.watch(encode(lines.slice(lines.lastIndexOf('\n', cut) + 1)), Date.now());
  assert.deepStrictEqual(w2, { resourceVersion: '16', observed: 2, deleted: 1, bookmarks: 1 });
  assert.equal(d.takeCorrelated(), 2);
  const frame2 = d.frame();
  for (const [type, object] of changes) if (type === 'ADDED' || type === 'MODIFIED') observed.push(object);

  // Every decision is hushd's for the same events in the order they arrived, each at its last-seen time.
  const jsonl = observed.map((e) => JSON.stringify({ ...e, at: e.lastTimestamp })).join('\n') + '\n';
  sameDecisions(d, 0, hushdDecisions(jsonl));
  // A what-if started now reads every event again from the text it came in (the list's and the watch's).
  assert.equal(d.setRun(1, { burst: 2 }), observed.length);
  sameDecisions(d, 1, hushdDecisions(jsonl, ['--burst', '2']));

  // The late one is marked; nothing else is.
  const late = [...frame0.facts.late, ...frame1.facts.late, ...frame2.facts.late];
  assert.deepStrictEqual(late, observed.map((e, i) => (observed.slice(0, i).some((x) => x.lastTimestamp > e.lastTimestamp) ? 1 : 0)));
  assert.deepStrictEqual(late.flatMap((l, i) => (l ? [observed[i].metadata.name] : [])), ['e-f']);
  assert.equal(frame2.late, 1);
  assert.equal(d.explain(0, observed.findIndex((e) => e.metadata.name === 'e-f')).late, true);

  // e-b was deleted: its event is removed from every view, and so is the stored event only it went into.
  const gone = observed.findIndex((e) => e.metadata.name === 'e-b');
  assert.deepStrictEqual(Array.from(frame2.removed), [gone]);
  assert.equal(frame2.removedTotal, 1);
  // What the filter keeps changed for that one event only (sent as a difference), and the new events are kept.
  assert.deepStrictEqual([Array.from(frame2.kept.inputs.at), Array.from(frame2.kept.inputs.values)], [[gone], [0]]);
  assert.deepStrictEqual(Array.from(frame2.kept.inputs.tail), [1, 1]);
  assert.equal(frame2.kept.count, observed.length - 1);
  assert.equal(frame2.kept.total, observed.length - 1);
  const run = frame2.runs[0];
  const storedOfGone = d.explain(0, gone).stored;
  assert.ok(storedOfGone >= 0);
  assert.equal(run.kept.stored[storedOfGone], 0, 'the stored event only e-b went into is not shown');
  assert.equal(run.kept.total, run.stored.total - 1);
  assert.deepStrictEqual(Array.from(d.storedInputs(0, storedOfGone)), []);

  // An expired resourceVersion: the ERROR line says so, and nothing after it is read.
  const expired = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version: 16 (20)', reason: 'Expired', code: 410 } });
  const after = JSON.stringify({ type: 'ADDED', object: apiEvent('e-z', 'web-9', 'BackOff', second(95), 1, 21) });
  const w3 = d.watch(encode(`${expired}\n${after}\n`), Date.now());
  assert.deepStrictEqual(w3.error, { code: 410, reason: 'Expired', message: 'too old resource version: 16 (20)' });
  assert.equal(w3.observed, 0);
  assert.equal(d.length, observed.length);
  // So does the baseline in the other mode.
  d.setRun(0, { mode: 'series' });
  sameDecisions(d, 0, hushdDecisions(jsonl, ['--mode', 'series']));
  // The raw objects are the text as it came.
  assert.deepStrictEqual(JSON.parse(d.raw(observed.length - 1)), observed.at(-1));
  assert.deepStrictEqual(JSON.parse(d.raw(0)), observed[0]);
  d.free();
});

test('bad list items and watch lines are listed with where they are, the rest is read', () => {
  const d = new Dashboard();
  d.setRun(0, {});
  const items = [apiEvent('e-a', 'web-1', 'BackOff', second(5), 1, 1), { kind: 'Pod', metadata: { name: 'p' } }];
  d.listPage(encode(JSON.stringify({ kind: 'EventList', metadata: { resourceVersion: '3' }, items })), Date.now());
  d.commitList();
  d.watch(encode(`not json\n${JSON.stringify({ type: 'ADDED', object: { kind: 'Event', involvedObject: {}, type: 'Sideways' } })}\n`), Date.now());
  d.takeCorrelated();
  const errors = d.frame().errors.map((e) => e.position);
  assert.deepStrictEqual(errors, ['list page 1 items[1]', 'watch line 1', 'watch line 2']);
  assert.equal(d.length, 1);
  d.free();
});
