// The dashboard against a server that wants a bearer token, in headless
// Chromium: a stand-in (standin.mjs) that answers as kube-apiserver does
// (401 Status "Unauthorized" without a token it knows, 403 Status
// "Forbidden" for a user who may not list events) serves the page and its
// events from one origin. The page must ask for a token in an accessible
// dialog, ask again when the token is refused, send it as a bearer token
// on every request to the API, keep it for the session only, and stop with
// the server's message on a 403 instead of asking in a loop.
//
// When `hushd serve --token-auth-file` exists, this test can run against
// it instead of the stand-in (the answers are the same).
//
//   scripts/build-www.sh && node --test www/tests/token.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { launch, open } from './harness.mjs';
import { standIn } from './standin.mjs';

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** An Event as the API server lists it. */
function event(i, pod, reason) {
  const at = new Date(Date.UTC(2024, 4, 1, 10, 0, i)).toISOString().replace('.000Z', 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${pod}.${i}`, namespace: 'shop', resourceVersion: String(i + 1) },
    involvedObject: { kind: 'Pod', namespace: 'shop', name: pod, uid: `uid-${pod}`, apiVersion: 'v1' },
    reason,
    message: `${reason} for ${pod}`,
    source: { component: 'kubelet' },
    type: 'Warning',
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

const listed = [event(1, 'web-1', 'BackOff'), event(2, 'web-2', 'FailedMount'), event(3, 'web-3', 'Unhealthy')];

function serve(tokens) {
  return standIn({ total: listed.length, items: (from, to) => listed.slice(from, to).map((e) => JSON.stringify(e)), tokens });
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

const apiRequests = (server) => server.requests.filter((r) => r.path.startsWith('/api'));

test('a 401 asks for a token, a refused token is asked for again, and the token goes with every request for this session only', async () => {
  const server = await serve({ s3cret: 'allowed' });
  try {
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
    assert.ok(apiRequests(server).every((r) => r.authorization === null), 'nothing was sent before a token was given');

    await answer(page, 'wrong');
    await page.waitForFunction(() => /refused the token: Unauthorized/.test(document.querySelector('#token-dialog [data-field=message]').textContent) && document.querySelector('#token-dialog').open);
    assert.ok(apiRequests(server).some((r) => r.authorization === 'Bearer wrong'), 'the refused token was tried');

    const before = apiRequests(server).length;
    await answer(page, 's3cret');
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'live', null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 3);
    assert.deepStrictEqual((await listedRows(page)).sort(), ['pod/web-1 BackOff', 'pod/web-2 FailedMount', 'pod/web-3 Unhealthy']);

    // A watched event arrives with the token too.
    server.emit([['ADDED', event(4, 'web-4', 'Killing')]]);
    await page.waitForFunction(() => document.querySelectorAll('#list .list-row').length === 4, null, { timeout: 15_000 });
    const since = apiRequests(server).slice(before);
    assert.ok(since.some((r) => r.search.includes('watch=true')) && since.some((r) => !r.search.includes('watch=true')), 'a list and a watch');
    assert.deepStrictEqual([...new Set(since.map((r) => r.authorization))], ['Bearer s3cret']);

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

test('a 403 shows the server\'s Forbidden message and is not retried; a cancelled dialog stops too', async () => {
  const server = await serve({ readonly: 'forbidden' });
  try {
    const { page, context } = await open(browser, `${server.url}/`, 'view=list');
    await answer(page, 'readonly');
    await page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'forbidden', null, { timeout: 30_000 });
    assert.equal(
      await page.textContent('#live-status'),
      `${server.url}: forbidden: events is forbidden: User "alice" cannot list resource "events" in API group "" at the cluster scope`,
    );
    const count = apiRequests(server).length;
    await page.waitForTimeout(3000);
    assert.equal(apiRequests(server).length, count, 'no request after the 403');
    assert.equal(await page.evaluate(() => document.querySelector('#token-dialog').open), false);
    await context.close();

    const fresh = await open(browser, `${server.url}/`, 'view=list');
    await answer(fresh.page, null);
    await fresh.page.waitForFunction(() => document.querySelector('#live-status')?.dataset.state === 'unauthorized', null, { timeout: 30_000 });
    assert.match(await fresh.page.textContent('#live-status'), /unauthorized \(no token given\): Unauthorized$/);
    const n = apiRequests(server).length;
    await fresh.page.waitForTimeout(2000);
    assert.equal(apiRequests(server).length, n, 'no request after the cancel');
    await fresh.context.close();
  } finally {
    await server.close();
  }
});
