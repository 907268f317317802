// The dashboard served by `hushd serve` itself (embedded at /), connected
// live to it: the test starts a real hushd serve on a loopback port with a
// fresh database, posts events with plain HTTP, and watches them appear;
// then stops the server and sees the page count its reconnect attempts,
// starts it again and sees the page catch up.
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open } from './harness.mjs';

let browser;
const db = join(mkdtempSync(join(tmpdir(), 'hush-www-live-')), 'hush.db');

/** Starts hushd serve on `listen`; resolves to {url, stop} once it listens. */
function serve(listen = '127.0.0.1:0') {
  const child = spawn(hushd, ['serve', '--listen', listen, '--db', db], { stdio: ['ignore', 'ignore', 'pipe'] });
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

/** POSTs a core/v1 Event about pod `name` with `reason`. */
async function post(url, name, reason) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
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
