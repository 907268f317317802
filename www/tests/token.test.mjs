// The dashboard against a real `hushd serve --token-auth-file`, in
// headless Chromium: the server serves the page (its files need no token)
// and answers the API as kube-apiserver does (401 Status "Unauthorized"
// without a token it knows, 403 Status "Forbidden" with ABAC's message for
// a user whose policy does not cover listing every namespace's events).
// The page must ask for a token in an accessible dialog, ask again when
// the token is refused, send it as a bearer token on every request to the
// API, keep it for the session only, and stop with the server's message on
// a 403 instead of asking in a loop. What reached the server, and as whom,
// is read from its audit log (`--audit-level Request`: one line per
// request, with the user the token named).
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/token.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open } from './harness.mjs';

let browser;
const servers = new Set();

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
  for (const child of servers) child.kill('SIGTERM');
});

const TOKENS = 'adm1n,admin,1000,system:masters\ns3cret,alice,1001\nb0b,bob,1002\n';

// alice may read events in every namespace; bob only in "payments".
const POLICY = [
  { user: 'alice', namespace: '*', resource: '*', apiGroup: '*', readonly: true },
  { user: 'bob', namespace: 'payments', resource: '*', apiGroup: '*', readonly: true },
]
  .map((spec) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec }))
  .join('\n');

/**
 * Starts `hushd serve` with tokens, an ABAC policy and an audit log of
 * every request; resolves to {url, audit, close} once it listens.
 */
function serve() {
  const dir = mkdtempSync(join(tmpdir(), 'hush-www-token-'));
  writeFileSync(join(dir, 'tokens.csv'), TOKENS);
  writeFileSync(join(dir, 'policy.jsonl'), `${POLICY}\n`);
  const auditLog = join(dir, 'audit.log');
  const args = ['serve', '--listen', '127.0.0.1:0', '--db', join(dir, 'hush.db'), '--correlate', 'off'];
  args.push('--token-auth-file', join(dir, 'tokens.csv'), '--authorization-policy-file', join(dir, 'policy.jsonl'));
  args.push('--audit-log-path', auditLog, '--audit-level', 'Request');
  const child = spawn(hushd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
          /** The audit log's lines for the browser's requests to the API. */
          audit: () =>
            (existsSync(auditLog) ? readFileSync(auditLog, 'utf8') : '')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
              .filter((l) => l.requestURI.startsWith('/api') && /Chrome/.test(l.userAgent)),
          close: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGTERM')))),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`hushd serve exited with ${code}:\n${log}`)));
  });
}

/** POSTs a core/v1 Event about pod `pod` as the admin. */
async function post(url, i, pod, reason) {
  const at = new Date(Date.UTC(2024, 4, 1, 10, 0, i)).toISOString().replace('.000Z', 'Z');
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${pod}.${i}`, namespace: 'shop' },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod, uid: `uid-${pod}`, apiVersion: 'v1' },
    reason,
    message: `${reason} for ${pod}`,
    source: { component: 'kubelet' },
    type: 'Warning',
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
  const response = await fetch(`${url}/api/v1/namespaces/shop/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer adm1n' },
    body: JSON.stringify(event),
  });
  assert.equal(response.status, 201, await response.text());
}

/** Waits until `audit()` has a line `found` accepts. */
async function audited(server, found, what) {
  const deadline = Date.now() + 15_000;
  while (!server.audit().some(found)) {
    if (Date.now() > deadline) assert.fail(`no audit line for ${what}: ${JSON.stringify(server.audit(), null, 1)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The OBJECT · REASON of every row the list shows. */
async function listedRows(page) {
  return page.$$eval('#list .list-row', (rows) => rows.map((r) => `${r.querySelector('.c-object').textContent} ${r.querySelector('.c-reason').textContent}`));
}

/** Waits for the token dialog and gives `token` (or cancels when null). */
async function answer(page, token) {
  await page.waitForSelector('#token-dialog[open]', { timeout: 30_000 });
  if (token === null) return page.click('#token-dialog button[value=cancel]');
  await page.fill('#token-dialog input[name=token]', token);
  await page.click('#token-dialog button[value=submit]');
}

const noCredentials = (l) => l.responseStatus.code === 401 && l.responseStatus.message === 'Authentication failed, no credentials provided';

test('a 401 asks for a token, a refused token is asked for again, and the token goes with every request for this session only', async () => {
  const server = await serve();
  try {
    await post(server.url, 1, 'web-1', 'BackOff');
    await post(server.url, 2, 'web-2', 'FailedMount');
    await post(server.url, 3, 'web-3', 'Unhealthy');
    const { page, context } = await open(browser, `${server.url}/`, 'view=list');
    // The dialog: a labelled password field, the server's message, focus on the field.
    await page.waitForSelector('#token-dialog[open]', { timeout: 30_000 });
    const dialog = await page.evaluate(() => {
      const d = document.querySelector('#token-dialog');
      const input = d.querySelector('input[name=token]');
      return {
        title: document.getElementById(d.getAttribute('aria-labelledby')).textContent,
        label: input.closest('label').textContent.trim(),
        type: input.type,
        focused: document.activeElement === input,
        message: d.querySelector('[data-field=message]').textContent,
      };
    });
    assert.deepStrictEqual(dialog, { title: 'This server needs a token', label: 'Bearer token', type: 'password', focused: true, message: 'The server answered: Unauthorized' });
    await audited(server, noCredentials, 'the first list');
    assert.ok(server.audit().every(noCredentials), 'nothing but requests without credentials before a token was given');

    await answer(page, 'wrong');
    await page.waitForFunction(() => /refused the token: Unauthorized/.test(document.querySelector('#token-dialog [data-field=message]').textContent) && document.querySelector('#token-dialog').open);
    await audited(server, (l) => l.responseStatus.code === 401 && l.responseStatus.message === 'Authentication failed, attempted: bearer', 'the refused token');

    await answer(page, 's3cret');
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'live', null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 3);
    assert.deepStrictEqual((await listedRows(page)).sort(), ['pod/web-1 BackOff', 'pod/web-2 FailedMount', 'pod/web-3 Unhealthy']);

    // A watched event arrives (the watch was made with the token too).
    await post(server.url, 4, 'web-4', 'Killing');
    await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 4, null, { timeout: 15_000 });
    await audited(server, (l) => l.verb === 'watch' && l.user.username === 'alice', 'the watch');
    const lines = server.audit();
    const since = lines.slice(lines.findIndex((l) => l.user.username === 'alice'));
    assert.deepStrictEqual([...new Set(since.map((l) => l.user.username))], ['alice'], JSON.stringify(since));
    assert.deepStrictEqual([...new Set(since.map((l) => l.verb))].sort(), ['list', 'watch']);
    assert.ok(since.every((l) => l.responseStatus.code === 200), JSON.stringify(since));

    // Kept for the session only: sessionStorage, never localStorage, never a cookie.
    const kept = await page.evaluate(() => ({ session: Object.entries(sessionStorage), local: JSON.stringify(Object.entries(localStorage)), cookie: document.cookie }));
    assert.deepStrictEqual(kept.session.map(([, v]) => v), ['s3cret']);
    assert.ok(!kept.local.includes('s3cret'), `localStorage: ${kept.local}`);
    assert.equal(kept.cookie, '');
    assert.deepStrictEqual(await context.cookies(), []);

    // A reload in the same tab keeps the session: no dialog.
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'live', null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => document.querySelector('#token-dialog').open), false);
    await context.close();

    // Another session starts without it.
    const other = await open(browser, `${server.url}/`, 'view=list');
    await other.page.waitForSelector('#token-dialog[open]', { timeout: 30_000 });
    await other.context.close();
  } finally {
    await server.close();
  }
});

/** The number of the browser's audited requests once no new line has come for a second. */
async function settled(server) {
  let count = server.audit().length;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = server.audit().length;
    if (now === count) return now;
    count = now;
  }
}

test('a 403 shows the server\'s Forbidden message and is not retried; a cancelled dialog stops too', async () => {
  const server = await serve();
  try {
    const { page, context } = await open(browser, `${server.url}/`, 'view=list');
    await answer(page, 'b0b');
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'forbidden', null, { timeout: 30_000 });
    // kube-apiserver's words for ABAC's refusal.
    assert.equal(
      await page.textContent('#live-status'),
      `${server.url}: forbidden: events is forbidden: User "bob" cannot list resource "events" in API group "" at the cluster scope: No policy matched.`,
    );
    await audited(server, (l) => l.responseStatus.code === 403 && l.user.username === 'bob', 'the 403');
    const count = await settled(server);
    await page.waitForTimeout(3000);
    assert.equal(server.audit().length, count, 'no request after the 403');
    assert.equal(await page.evaluate(() => document.querySelector('#token-dialog').open), false);
    await context.close();

    const fresh = await open(browser, `${server.url}/`, 'view=list');
    await answer(fresh.page, null);
    await fresh.page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'unauthorized', null, { timeout: 30_000 });
    assert.match(await fresh.page.textContent('#live-status'), /unauthorized \(no token given\): Unauthorized$/);
    const n = await settled(server);
    await fresh.page.waitForTimeout(2000);
    assert.equal(server.audit().length, n, 'no request after the cancel');
    await fresh.context.close();
  } finally {
    await server.close();
  }
});
