// Dumps as people have them, on the dashboard in headless Chromium: the
// committed public must-gather (input/tests/data/must-gather, see its
// SOURCES.md) as a folder and as a .tar.gz, through the file inputs and
// dropped on the page (Chromium's own drag and drop of files from disk,
// through the DevTools protocol), and a folder with bad records. Every
// expected figure comes from hushd replay (target/debug/hushd) of the same
// input: the events and their decisions in order, the stored events as its
// table, the bad records with their places, and the summary it prints.
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open, ready, root, started, serveStatic } from './harness.mjs';

const mustGather = join(root, 'input', 'tests', 'data', 'must-gather');
let server;
let browser;
let scratch;
let tgz;

before(async () => {
  server = await serveStatic();
  browser = await launch();
  scratch = mkdtempSync(join(tmpdir(), 'hush-dumps-'));
  // The archive a person makes of the folder.
  tgz = join(scratch, 'must-gather.tar.gz');
  execFileSync('tar', ['czf', tgz, '-C', join(mustGather, '..'), 'must-gather']);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** hushd replay of `input`: its decision lines (ticks left out), table rows, and stderr. */
function hushdReplay(input, args = []) {
  const run = (output) => {
    const r = spawnSync(hushd, ['replay', '--engine', 'native', '--output', output, ...args, input], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`hushd replay ${input}: ${r.status}\n${r.stderr}`);
    return r;
  };
  const replayed = run('decisions');
  const decisions = replayed.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => !('tick' in l));
  const table = run('table').stdout.split('\n');
  const header = table[0];
  const starts = ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'COUNT', 'MESSAGE'].map((h) => header.indexOf(h));
  const end = table.indexOf('');
  const rows = table.slice(1, end).map((line) => starts.map((s, i) => line.slice(s, starts[i + 1]).trim()));
  return { decisions, rows, stderr: replayed.stderr };
}

/** What the page holds: per event (in the order correlated) its object, reason and action; and the bad records. */
async function pageEvents(page) {
  return page.evaluate(() => {
    const layout = window.hush.mirror.layout();
    const run = window.hush.mirror.view(0).run;
    const f = layout.facts;
    const s = (ids, i) => layout.strings.get(ids[i]);
    const events = [];
    for (let i = 0; i < f.at.length; i++) events.push({ namespace: s(f.namespace, i), name: s(f.name, i), reason: s(f.reason, i), action: run.labels[run.action[i]] });
    return { events, errors: layout.errors.map((e) => `${e.position}: ${e.message}`) };
  });
}

/** hushd's decisions as the page's events. */
function asEvents(decisions) {
  return decisions.map((d) => ({
    namespace: d.event?.involvedObject?.namespace ?? d.event?.regarding?.namespace ?? '',
    name: d.event?.involvedObject?.name ?? d.event?.regarding?.name ?? '',
    reason: d.event?.reason ?? '',
    action: d.action,
  }));
}

/** Every row of the list view as hushd's table writes it. */
async function listRows(page) {
  await page.click('#tab-list');
  return page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const body = document.querySelector('#list .list-body');
    const rows = new Map();
    body.scrollTop = 0;
    const total = Number(document.querySelector('#list').getAttribute('aria-rowcount')) - 1;
    for (;;) {
      await frame();
      for (const row of document.querySelectorAll('#list .list-row')) rows.set(Number(row.getAttribute('aria-rowindex')), [...row.children].map((c) => c.textContent.trim()));
      if (rows.size >= total || body.scrollTop + body.clientHeight >= body.scrollHeight - 1) break;
      body.scrollTop += body.clientHeight;
    }
    return [...rows.values()];
  });
}

const LIST = ['namespace', 'last', 'type', 'reason', 'object', 'count', 'message', 'first', 'source'];
function asTable(row) {
  const cell = Object.fromEntries(LIST.map((c, i) => [c, row[i]]));
  const message = [...cell.message].length > 80 ? [...cell.message].slice(0, 79).join('') + '…' : cell.message;
  return [cell.last, cell.type, cell.reason, cell.object, cell.count.replace(/,/g, ''), message];
}

/** The summary hushd prints on stderr (its `hushd: ` lines after the skipped ones), as the page's summary card shows it. */
function summaryLines(stderr) {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('hushd: ') && !l.startsWith('hushd: skipped ') && !l.includes('not in time order'))
    .map((l) => l.slice('hushd: '.length));
}

/** Drops `paths` (files or folders on disk) on the page as a person's drag from a file manager does. */
async function dropFromDisk(page, context, paths) {
  const cdp = await context.newCDPSession(page);
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, x: 300, y: 300, data });
}

/** Asserts the page shows what hushd replay of `input` decides, prints and lists. */
async function sameAsHushd(page, input) {
  await ready(page);
  const want = hushdReplay(input);
  const got = await pageEvents(page);
  assert.ok(want.decisions.length > 0);
  assert.deepStrictEqual(got.events, asEvents(want.decisions), 'the events, in order, and their decisions');
  assert.deepStrictEqual((await listRows(page)).map(asTable).sort(), want.rows.sort(), 'the stored events');
  const summary = await page.$$eval('#summary p', (ps) => ps.map((p) => p.textContent));
  assert.ok(summary.length >= 2 && summary[0].startsWith('read '), summary.join('\n'));
  assert.deepStrictEqual(summary, summaryLines(want.stderr), 'the summary');
  return want;
}

test('a must-gather folder picked with the folder input is read as hushd replay reads it', async () => {
  const { page, context, errors } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#folder', mustGather);
  await sameAsHushd(page, mustGather);
  assert.match(await page.textContent('#status'), /^must-gather\/: 11 events/);
  // Each event's details name the file and item it was read from.
  const source = await page.evaluate(async () => (await window.hush.ask({ kind: 'explain', which: 'base', input: 0 })).decision.source);
  assert.match(source, /^namespaces\/kube-system\/core\/events\.yaml:\d+ items\[\d+\]$/);
  assert.deepStrictEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
  await context.close();
});

test('the must-gather .tar.gz picked with the file input', async () => {
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#file', tgz);
  await sameAsHushd(page, tgz);
  // The details show where an event was read; selecting it from the list.
  await page.click('#list .list-row');
  await page.waitForSelector('#detail');
  await context.close();
});

test('the must-gather folder dropped on the page', async () => {
  const { page, context } = await open(browser, server.url);
  await started(page);
  await dropFromDisk(page, context, [mustGather]);
  await sameAsHushd(page, mustGather);
  await context.close();
});

test('the must-gather .tar.gz dropped on the page', async () => {
  const { page, context } = await open(browser, server.url);
  await started(page);
  await dropFromDisk(page, context, [tgz]);
  await sameAsHushd(page, tgz);
  await context.close();
});

test('several files picked together are each read and merged by time, as hushd replay reads the folder holding them', async () => {
  // Two clusters' files, named as people name what they save: the
  // must-gather's events.yaml and a kubectl JSON list whose times fall
  // between its events.
  const dir = join(scratch, 'several');
  mkdirSync(dir, { recursive: true });
  const yaml = join(dir, 'cluster-a-events.yaml');
  copyFileSync(join(mustGather, 'namespaces', 'kube-system', 'core', 'events.yaml'), yaml);
  const items = [];
  for (let i = 0; i < 6; i++) {
    const t = `2021-08-03T09:${String(15 + i * 3).padStart(2, '0')}:30Z`;
    items.push({ apiVersion: 'v1', kind: 'Event', involvedObject: { kind: 'Pod', namespace: 'shop', name: `web-${i % 2}` }, reason: 'BackOff', message: 'Back-off restarting failed container', type: 'Warning', count: 1, firstTimestamp: t, lastTimestamp: t, metadata: { name: `web.${i}`, namespace: 'shop' } });
  }
  const json = join(dir, 'cluster-b-events.json');
  writeFileSync(json, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4));
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#file', [yaml, json]);
  const want = await sameAsHushd(page, dir);
  assert.equal(want.decisions.length, 17, 'both files read');
  assert.match(await page.textContent('#status'), /^2 files: 17 events/);
  // Each event names the file it came from.
  const sources = await page.evaluate(async () => {
    const out = [];
    for (let input = 0; input < 17; input++) out.push((await window.hush.ask({ kind: 'explain', which: 'base', input })).decision.source);
    return out;
  });
  assert.ok(sources.some((s) => /^cluster-a-events\.yaml:\d+ items\[\d+\]$/.test(s)), sources.join('\n'));
  assert.ok(sources.some((s) => /^cluster-b-events\.json items\[\d+\]$/.test(s)), sources.join('\n'));
  await context.close();
});

test('bad records of a folder are listed at their places, as hushd replay reports them', async () => {
  const dir = join(scratch, 'bad');
  const event = (name, second) => ({ involvedObject: { kind: 'Pod', namespace: 'a', name }, reason: 'BackOff', message: 'm', type: 'Warning', lastTimestamp: `2024-05-01T10:00:0${second}Z` });
  mkdirSync(join(dir, 'a'), { recursive: true });
  writeFileSync(join(dir, 'a', 'events.json'), JSON.stringify({ kind: 'EventList', items: [event('web', 1), { involvedObject: {}, type: 'Odd' }] }, null, 2));
  mkdirSync(join(dir, 'ns', 'b', 'core'), { recursive: true });
  writeFileSync(join(dir, 'ns', 'b', 'core', 'events.yaml'), 'apiVersion: v1\nitems:\n- involvedObject: {name: p, namespace: b}\n  lastTimestamp: "2024-05-01T10:00:02Z"\n- involvedObject: {name: q}\n  reason: NoTime\nkind: EventList\n');
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#folder', dir);
  const want = await sameAsHushd(page, dir);
  const problems = await page.$$eval('#problems li', (lis) => lis.map((li) => li.textContent));
  const skipped = [...want.stderr.matchAll(/^hushd: skipped (.*)$/gm)].map((m) => m[1]);
  assert.deepStrictEqual(problems, skipped);
  assert.equal(problems.length, 2);
  await context.close();
});

test('a large input shows a progress bar while it is read', async () => {
  // A YAML list of about 4 MiB: read at a few MiB a second, it reports progress.
  const items = [];
  for (let i = 0; i < 8000; i++) {
    const second = (i * 7919) % 3600;
    const t = `2024-05-01T10:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}Z`;
    items.push(`- involvedObject:\n    kind: Pod\n    name: pod-${i % 40}\n    namespace: shop\n  reason: BackOff\n  message: Back-off restarting failed container ${'x'.repeat(300)}\n  type: Warning\n  lastTimestamp: "${t}"\n`);
  }
  const file = join(scratch, 'events.yaml');
  writeFileSync(file, `apiVersion: v1\nitems:\n${items.join('')}kind: List\n`);
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#file', file);
  await ready(page);
  const reports = await page.evaluate(() => Number(document.querySelector('#progress').dataset.reports ?? 0));
  assert.ok(reports >= 1, `progress reports: ${reports}`);
  assert.match(await page.evaluate(() => document.querySelector('#progress span').textContent), /^1 file, [\d.]+ MiB of [\d.]+ MiB, [\d,]+ events$/);
  assert.ok(await page.isHidden('#progress'), 'the bar goes once the file is read');
  assert.match(await page.textContent('#status'), /^events\.yaml: 8,000 events/);
  await context.close();
});
