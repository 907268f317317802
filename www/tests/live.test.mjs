// The dashboard served by `hushd serve` itself (embedded at /), connected
// live to it: the test starts a real hushd serve on a loopback port with a
// fresh database, posts events with plain HTTP, and watches them appear;
// then stops the server and sees the page count its reconnect attempts,
// starts it again and sees the page catch up. Another test posts events in
// batches, each flushed to the page on its own, and checks that the page
// correlated each event once and decided every one as `hushd replay`
// decides the same events in the order they arrived (listed by the test
// itself and watched from the same resourceVersion); a deleted Event
// leaves the page.
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open, runHushd } from './harness.mjs';

let browser;
const dir = mkdtempSync(join(tmpdir(), 'hush-www-live-'));
const db = join(dir, 'hush.db');
const servers = new Set();

/** Starts hushd serve on `listen`; resolves to {url, stop} once it listens. */
function serve(listen = '127.0.0.1:0', database = db) {
  const child = spawn(hushd, ['serve', '--listen', listen, '--db', database], { stdio: ['ignore', 'ignore', 'pipe'] });
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hushd serve did not start:\n${log}`)), 60_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const m = log.match(/hushd serve: listening on (http:\/\/\S+)\r?\n/);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`hushd serve exited with ${code}:\n${log}`)));
  });
}

/** POSTs a core/v1 Event about pod `name` with `reason`, last seen `ago` ms ago; resolves to the answer's status. */
async function post(url, name, reason, ago = 0) {
  const now = new Date(Date.now() - ago).toISOString().replace(/\.\d+Z$/, 'Z');
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.${Date.now().toString(16)}${Math.floor(Math.random() * 1e6)}`, namespace: 'live' },
    involvedObject: { kind: 'Pod', namespace: 'live', name, uid: `uid-${name}`, apiVersion: 'v1' },
    reason,
    message: `${reason} for ${name}`,
    source: { component: 'www-test' },
    type: 'Warning',
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
  const response = await fetch(`${url}/api/v1/namespaces/live/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  assert.ok(response.status < 300 || response.status === 429, `POST answered ${response.status}: ${await response.text()}`);
  return response.status;
}

/** The OBJECT · REASON of every row the list shows. */
async function listed(page) {
  return page.$$eval('#list .list-row', (rows) => rows.map((r) => `${r.querySelector('.c-object').textContent} ${r.querySelector('.c-reason').textContent}`));
}

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
  // A failed test leaves no server behind (it would keep the test process alive).
  for (const child of servers) child.kill('SIGKILL');
});

test('served by hushd at /, the page lists, then watches: a posted event appears; a lost server is retried on schedule', async () => {
  let server = await serve();
  await post(server.url, 'web-1', 'BackOff');
  const { page, context, errors } = await open(browser, `${server.url}/`, 'view=list');
  // Served by hushd, the page connects to it by itself.
  await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'live', null, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 1);
  assert.deepStrictEqual(await listed(page), ['pod/web-1 BackOff']);
  await post(server.url, 'web-2', 'FailedMount');
  await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 2, null, { timeout: 15_000 });
  assert.deepStrictEqual((await listed(page)).sort(), ['pod/web-1 BackOff', 'pod/web-2 FailedMount']);
  assert.match(await page.textContent('#live-status'), /● Live: .* · 2 events/);

  // The server goes away: an immediate retry, then after 1 s, then 2 s …
  const address = new URL(server.url).host;
  await server.stop();
  const seen = new Set();
  await page.waitForFunction(() => /retry 2 in/.test(document.querySelector('#live-status').textContent), null, { timeout: 20_000 });
  for (let i = 0; i < 40 && seen.size < 2; i++) {
    const text = await page.textContent('#live-status');
    const m = text.match(/retry (\d+) in (\d+) s/);
    if (m) seen.add(`${m[1]}:${m[2]}`);
    await page.waitForTimeout(100);
  }
  assert.ok([...seen].some((s) => s === '2:2') || [...seen].some((s) => s.startsWith('3:')), `reconnect schedule shown: ${[...seen]}`);
  assert.equal(await page.getAttribute('#live-status', 'data-state'), 'retrying');

  // It comes back on the same address, with the same store: the page catches up.
  server = await serve(address);
  await post(server.url, 'web-3', 'Unhealthy');
  await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 3, null, { timeout: 30_000 });
  assert.equal(await page.getAttribute('#live-status', 'data-state'), 'live');
  assert.deepStrictEqual(errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(e)), []);
  await context.close();
  await server.stop();
});

/** When an Event from the API was last seen: the dashboard's rule (series, last, event time, first, creation). */
function observedAt(e) {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.deprecatedLastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp;
}

/** Watches `url`'s events from `resourceVersion`, collecting every change; `stop()` resolves to them. */
function watchAll(url, resourceVersion) {
  const abort = new AbortController();
  const changes = [];
  const done = (async () => {
    const response = await fetch(`${url}/api/v1/events?watch=true&resourceVersion=${resourceVersion}`, { signal: abort.signal });
    let text = '';
    try {
      for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
        text += chunk;
        let nl;
        while ((nl = text.indexOf('\n')) >= 0) {
          const line = text.slice(0, nl).trim();
          text = text.slice(nl + 1);
          if (line) changes.push(JSON.parse(line));
        }
      }
    } catch (e) {
      if (!abort.signal.aborted) throw e;
    }
  })();
  return {
    changes,
    stop: async () => {
      abort.abort();
      await done.catch(() => {});
      return changes;
    },
  };
}

test('each flush correlates only its new events, every decision is hushd replay\'s for the events as they arrived, and a deleted Event leaves the page', async () => {
  const server = await serve('127.0.0.1:0', join(dir, 'flushes.db'));
  try {
    const pods = ['api-1', 'api-2', 'web-1', 'web-2', 'worker-1'];
    const reasons = ['BackOff', 'Unhealthy', 'FailedMount'];
    let n = 0;
    const batch = async (size) => {
      for (let i = 0; i < size; i++, n++) await post(server.url, pods[(n * 7) % pods.length], reasons[n % reasons.length]);
    };
    await batch(12);
    await post(server.url, 'gone-1', 'Evicted');
    // What the page will list, listed by the test, and a watch of its own from there.
    const list = await (await fetch(`${server.url}/api/v1/events`)).json();
    const watch = watchAll(server.url, list.metadata.resourceVersion);

    const { page, context, errors } = await open(browser, `${server.url}/`, 'view=list');
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'live', null, { timeout: 30_000 });
    const counted = () => page.evaluate(() => window.hush.mirror.counts.inputs);
    await page.waitForFunction((k) => window.hush.mirror.ready && window.hush.mirror.counts.inputs === k, list.items.length);
    const framesAtStart = Number(await page.evaluate(() => document.body.dataset.frames));
    // Batches, each waited for: each reaches the page in a flush of its own.
    let flushes = 0;
    for (const size of [5, 9, 14, 20]) {
      const before = await counted();
      await batch(size);
      await page.waitForFunction((k) => window.hush.mirror.counts.inputs > k, before, { timeout: 15_000 });
      await page.waitForTimeout(400);
      flushes++;
    }
    // An Event last seen an hour ago arrives after newer ones: correlated late, and said so.
    assert.ok((await post(server.url, 'late-1', 'Evicted', 3600_000)) < 300);
    await page.waitForFunction(() => / · 1 late · /.test(document.querySelector('#live-status').textContent), null, { timeout: 15_000 });
    assert.match(await page.textContent('#status'), /, 1 arrived late · /);
    // The deleted Event leaves the page.
    const gone = list.items.find((e) => e.involvedObject.name === 'gone-1');
    assert.ok(gone, 'gone-1 was listed');
    assert.ok((await listed(page)).includes('pod/gone-1 Evicted'));
    const deleted = await fetch(`${server.url}/api/v1/namespaces/live/events/${gone.metadata.name}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200, await deleted.text());
    await page.waitForFunction(() => ![...document.querySelectorAll('#list .list-row .c-object')].some((c) => c.textContent === 'pod/gone-1'), null, { timeout: 15_000 });
    assert.match(await page.textContent('#live-status'), /· 1 deleted ·/);

    const changes = await watch.stop();
    assert.ok(changes.some((c) => c.type === 'DELETED' && c.object.metadata.name === gone.metadata.name), 'the watch saw the deletion');
    // The events as they arrived: the list by the time each was last seen, then the watch's.
    const observed = [...list.items].sort((a, b) => Date.parse(observedAt(a)) - Date.parse(observedAt(b)));
    for (const c of changes) if (c.type === 'ADDED' || c.type === 'MODIFIED') observed.push(c.object);
    await page.waitForFunction((k) => window.hush.mirror.counts.total === k, observed.length, { timeout: 15_000 });
    assert.ok(observed.length > list.items.length + 30, `${observed.length} events`);

    // Each event was correlated once, over several flushes.
    assert.equal(Number(await page.evaluate(() => document.body.dataset.correlated)), observed.length);
    assert.ok(Number(await page.evaluate(() => document.body.dataset.frames)) - framesAtStart >= flushes);

    const jsonl = observed.map((e) => JSON.stringify({ ...e, at: observedAt(e) })).join('\n') + '\n';
    const expected = runHushd(['replay', '--engine', 'native', '--output', 'decisions', '-'], jsonl)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => !('tick' in l));
    assert.equal(expected.length, observed.length);
    const got = await page.evaluate(async (k) => {
      const out = [];
      for (let i = 0; i < k; i++) out.push((await window.hush.ask({ kind: 'explain', which: 'base', input: i })).decision);
      return out;
    }, observed.length);
    for (const [i, want] of expected.entries()) {
      assert.equal(got[i].action, want.action, `event ${i}`);
      assert.deepStrictEqual(got[i].why, want.why, `event ${i}`);
      assert.deepStrictEqual(got[i].patch, want.patch, `event ${i}`);
    }
    assert.deepStrictEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
    await context.close();
  } finally {
    await server.stop();
  }
});
