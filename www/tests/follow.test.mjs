// The dashboard served by a following `hushd serve --follow` (embedded at
// /): the test starts an upstream hushd serve and a follower of it, each
// on a loopback port with a fresh database; the page reads the follower's
// occurrences (not its stored events): a count that went 1 → 3 upstream
// is three events on the page, and a later rise to 6 arrives as three
// more, through the tail.
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open } from './harness.mjs';

let browser;
const dir = mkdtempSync(join(tmpdir(), 'hush-www-follow-'));
const servers = new Set();

/** Starts hushd serve with `args`; resolves to its URL once it listens. */
function serve(name, args) {
  const child = spawn(hushd, ['serve', '--listen', '127.0.0.1:0', '--db', join(dir, `${name}.db`), '--correlate', 'off', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
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
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`hushd serve exited with ${code}:\n${log}`)));
  });
}

/** Writes event `name` with `count` (its last time `last`) to the upstream: a POST, or a merge patch when `patch`. */
async function write(url, name, count, last, patch = false) {
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'shop' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: name.split('.')[0], apiVersion: 'v1' },
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    source: { component: 'kubelet', host: 'node-1' },
    type: 'Warning',
    firstTimestamp: '2026-05-01T10:00:00Z',
    lastTimestamp: last,
    count,
  };
  const response = patch
    ? await fetch(`${url}/api/v1/namespaces/shop/events/${name}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ count, lastTimestamp: last }) })
    : await fetch(`${url}/api/v1/namespaces/shop/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
  assert.ok(response.status < 300, `${response.status}: ${await response.text()}`);
}

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const child of servers) child.kill('SIGKILL');
});

test('served by a following hushd, the page reads and then tails the occurrences', async () => {
  const upstream = await serve('upstream', []);
  await write(upstream, 'web-1.a', 3, '2026-05-01T10:03:00Z');
  await write(upstream, 'db-1.b', 1, '2026-05-01T10:01:00Z');
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: up\nclusters:\n- name: up\n  cluster:\n    server: ${upstream}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: up\n  context:\n    cluster: up\n    user: u\n`);
  const follower = await serve('follower', ['--follow', '--kubeconfig', kubeconfig]);
  const stored = async () => (await (await fetch(`${follower}/apis/hush.dev/v1/occurrences`)).text()).split('\n').filter(Boolean).length;
  for (let i = 0; i < 300 && (await stored()) < 4; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(await stored(), 4);

  const { page, context, errors } = await open(browser, `${follower}/`, 'view=list');
  await page.waitForFunction(() => /● Following: .* · 4 occurrences/.test(document.querySelector('#live-status')?.textContent), null, { timeout: 30_000 });
  await page.waitForFunction(() => window.hush.mirror.ready && window.hush.mirror.counts.inputs === 4);
  // Two stored events, from four occurrences: the three of web-1 counted into one.
  await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 2);

  // Three more upstream, through the follower's tail.
  await write(upstream, 'web-1.a', 6, '2026-05-01T10:09:00Z', true);
  await page.waitForFunction(() => /· 7 occurrences/.test(document.querySelector('#live-status').textContent), null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.hush.mirror.counts.inputs), 7);
  assert.deepStrictEqual(errors, []);
  await context.close();
});
