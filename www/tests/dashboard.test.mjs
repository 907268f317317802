// The dashboard in headless Chromium (Debian's, through playwright-core),
// served from www/dist by a plain static server: no daemon. Every expected
// figure comes from hushd itself (target/debug/hushd) run on the same file
// with the same options, never from the page's own output.
//
//   scripts/build-www.sh && cargo build -p hushd && node --test www/tests/

import { after, before, test } from 'node:test';
import assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hushd, launch, open, ready, root, runHushd, serveStatic, started } from './harness.mjs';

const storm = join(root, 'hushd', 'samples', 'storm.jsonl');
const stormLines = readFileSync(storm, 'utf8').trim().split('\n');
let server;
let browser;

before(async () => {
  server = await serveStatic();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** `hushd replay --output table` as rows of [LAST SEEN, TYPE, REASON, OBJECT, COUNT, MESSAGE] and its summary line. */
function hushdTable(file, args = []) {
  const out = runHushd(['replay', '--engine', 'native', '--output', 'table', ...args, file]).split('\n');
  const header = out[0];
  const starts = ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'COUNT', 'MESSAGE'].map((h) => header.indexOf(h));
  const end = out.indexOf('');
  const rows = out.slice(1, end).map((line) => starts.map((s, i) => line.slice(s, starts[i + 1]).trim()));
  return { rows, summary: out[end + 1] };
}

/** The figures of hushd's summary line. */
function summaryFigures(summary) {
  const n = (re) => Number((summary.match(re) ?? [, '0'])[1]);
  return {
    writes: n(/(\d+) writes out/),
    created: n(/(\d+) created/),
    patched: n(/(\d+) patched/),
    aggregated: n(/(\d+) aggregated/),
    dropped: n(/(\d+) spam-filtered/),
  };
}

/** `hushd replay --output decisions` for the decision lines only. */
function hushdDecisions(file, args = []) {
  return runHushd(['replay', '--engine', 'native', '--output', 'decisions', ...args, file])
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((l) => !('tick' in l));
}

/** Every row of the list view, scrolling through it (only rows in view exist). */
async function readList(page) {
  return page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const body = document.querySelector('#list .list-body');
    const total = Number(document.querySelector('#list').getAttribute('aria-rowcount')) - 1;
    const rows = new Map();
    body.scrollTop = 0;
    for (;;) {
      await frame();
      for (const row of document.querySelectorAll('#list .list-row'))
        rows.set(Number(row.getAttribute('aria-rowindex')), [...row.children].map((c) => c.textContent.trim()));
      if (rows.size >= total || body.scrollTop + body.clientHeight >= body.scrollHeight - 1) break;
      body.scrollTop += body.clientHeight;
    }
    return { total, rows: [...rows.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]) };
  });
}

const LIST = ['namespace', 'last', 'type', 'reason', 'object', 'count', 'message', 'first', 'source'];

/** A list row as hushd's table writes it: LAST SEEN, TYPE, REASON, OBJECT, COUNT, MESSAGE (cut at 80). */
function asTable(row) {
  const cell = Object.fromEntries(LIST.map((c, i) => [c, row[i]]));
  const message = [...cell.message].length > 80 ? [...cell.message].slice(0, 79).join('') + '…' : cell.message;
  return [cell.last, cell.type, cell.reason, cell.object, cell.count.replace(/,/g, ''), message];
}

async function whatIfSettled(page) {
  await page.waitForTimeout(250);
  await page.waitForFunction(() => !document.querySelector('#whatif').classList.contains('busy') && document.querySelector('[data-figure=writes]'));
}

async function figures(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-figure]')].map((tr) => [tr.dataset.figure, [...tr.querySelectorAll('td')].slice(0, 2).map((td) => Number(td.textContent.replace(/,/g, '')))]),
    ),
  );
}

test('the storm sample: the list is the table hushd replay prints, row for row', async () => {
  const { page, context, errors } = await open(browser, server.url, 'src=sample:storm&view=list');
  await ready(page);
  const { rows } = hushdTable(storm);
  const list = await readList(page);
  assert.equal(list.total, rows.length);
  assert.deepStrictEqual(list.rows.map(asTable).sort(), rows.map((r) => r.map((c) => c)).sort());
  // Sorted by LAST SEEN ascending, the order is hushd's too (ties in store order).
  await page.click('[data-column=last]');
  assert.equal(await page.getAttribute('.c-last[role=columnheader]', 'aria-sort'), 'ascending');
  assert.deepStrictEqual((await readList(page)).rows.map(asTable), rows);
  assert.deepStrictEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no errors but the 404 of /version (no hushd behind a static server)');
  await context.close();
});

test('filters keep the rows they name, and the URL reproduces the view', async () => {
  const { page, context } = await open(browser, server.url, 'src=sample:storm&view=list');
  await ready(page);
  await page.selectOption('select[name=type]', 'Warning');
  await page.selectOption('select[name=reason]', 'BackOff');
  await page.waitForFunction(() => location.hash.includes('reason=BackOff'));
  const expected = hushdTable(storm).rows.filter((r) => r[1] === 'Warning' && r[2] === 'BackOff');
  assert.ok(expected.length > 0);
  const backoff = await readList(page);
  assert.deepStrictEqual(backoff.rows.map(asTable).sort(), expected.sort());
  // Free text finds one object; the count line says what is kept.
  await page.click('button[type=reset]');
  await page.fill('input[name=text]', 'analytics-worker-2');
  await page.waitForFunction(() => location.hash.includes('q=analytics-worker-2'));
  const one = await readList(page);
  assert.deepStrictEqual(one.rows.map((r) => r[4]), ['pod/analytics-worker-2']);
  const inputs = stormLines.filter((l) => l.includes('"analytics-worker-2"')).length;
  assert.match(await page.textContent('.counts'), new RegExp(`^${inputs} of 1,870 events · 1 of \\d+ stored$`));
  // The link alone gives the same view in a fresh page.
  const link = page.url();
  const again = await context.newPage();
  await again.goto(link);
  await ready(again);
  assert.deepStrictEqual(await readList(again), one);
  assert.equal(await again.inputValue('input[name=text]'), 'analytics-worker-2');
  await context.close();
});

test('keyboard to a dropped event: the detail panel gives hushd\'s why and the raw object', async () => {
  const object = 'search-6f7d8c9b5-k2j8n';
  const { page, context } = await open(browser, server.url, `src=sample:storm&obj=${object}&reason=Failed`);
  await ready(page);
  await page.focus('#timeline');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('End');
  await page.waitForSelector('#detail [data-rule]');
  // hushd's decision for the last dropped Failed event about that pod.
  const decisions = hushdDecisions(storm);
  const index = stormLines.findLastIndex((l, i) => {
    const e = JSON.parse(l);
    return e.involvedObject.name === object && e.reason === 'Failed' && decisions[i].action === 'drop';
  });
  const why = decisions[index].why;
  assert.equal(await page.getAttribute('#detail', 'data-shown'), `input:${index}`);
  assert.equal(await page.getAttribute('#detail [data-rule]', 'data-rule'), 'spam-filtered');
  assert.equal(await page.textContent('#detail [data-field=tokens]'), why.tokens.toFixed(4));
  assert.equal(await page.textContent('#detail [data-field=action]'), 'dropped by the spam filter');
  const table = async (which) =>
    page.$$eval(`#detail table[data-key=${which}] tr`, (trs) => trs.map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent]));
  const key = await table('key');
  assert.deepStrictEqual(key.map(([, v]) => (v === '""' ? '' : v)), why.key);
  assert.deepStrictEqual(Object.fromEntries(key).reason, 'Failed');
  assert.deepStrictEqual(Object.fromEntries(key)['involvedObject.name'], object);
  const spam = await table('spam');
  assert.deepStrictEqual(spam.map(([, v]) => (v === '""' ? '' : v)), why.spamKey);
  assert.deepStrictEqual(JSON.parse(await page.textContent('#detail pre.json')), JSON.parse(stormLines[index]));
  // Its stored event, one click away, has the count hushd's table gives.
  await page.click('#detail [data-select^=stored]');
  await page.waitForFunction(() => document.querySelector('#detail').dataset.shown.startsWith('stored'));
  const row = hushdTable(storm).rows.find((r) => r[2] === 'Failed' && r[3] === `pod/${object}`);
  assert.equal((await page.textContent('#detail [data-field=count]')).replace(/,/g, ''), row[4]);
  await context.close();
});

test('what-if: a burst of 5 gives the figures hushd replay --burst 5 gives', async () => {
  const { page, context } = await open(browser, server.url, 'src=sample:storm');
  await ready(page);
  await page.focus('input[name=burst-range]');
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => location.hash.includes('w.burst=5'));
  await whatIfSettled(page);
  const got = await figures(page);
  const b = summaryFigures(hushdTable(storm).summary);
  const a = summaryFigures(hushdTable(storm, ['--burst', '5']).summary);
  assert.notDeepStrictEqual(a, b, 'the knob changes something');
  for (const f of ['writes', 'created', 'patched', 'aggregated', 'dropped']) assert.deepStrictEqual(got[f], [b[f], a[f]], f);
  await context.close();
});

test('what-if on the CronJob story: the reason-aware spam key keeps SawCompletedJob up to date', async () => {
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.selectOption('#sample', 'cronjob');
  await ready(page);
  await whatIfSettled(page);
  const vector = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'legacy-cronjob-default-key.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'hush-www-'));
  const file = join(dir, 'cronjob.jsonl');
  writeFileSync(file, vector.input.map((e) => JSON.stringify(e)).join('\n'));
  // Independently of the page: per object and reason, was anything written, and was the latest occurrence dropped?
  const fates = (args) => {
    const decisions = hushdDecisions(file, args);
    const rows = new Map();
    vector.input.forEach((e, i) => {
      const row = `${e.involvedObject.name} ${e.reason}`;
      const r = rows.get(row) ?? { written: false, last: '' };
      r.written ||= ['create', 'patch'].includes(decisions[i].action);
      r.last = decisions[i].action;
      rows.set(row, r);
    });
    const all = [...rows.values()];
    return { silenced: all.filter((r) => !r.written).length, stale: all.filter((r) => r.written && r.last === 'drop').length };
  };
  const [b, a] = [fates([]), fates(['--spam-key', 'source-object-type-reason'])];
  const got = await figures(page);
  assert.deepStrictEqual(got.stale, [b.stale, a.stale]);
  assert.deepStrictEqual(got.silenced, [b.silenced, a.silenced]);
  assert.ok(b.stale > a.stale, 'the story: stale before, not after');
  assert.match(await page.textContent('[data-rows=fresh]'), /cronjob\/hello -n default · SawCompletedJob/);
  const summary = summaryFigures(hushdTable(file, ['--spam-key', 'source-object-type-reason']).summary);
  assert.deepStrictEqual((await figures(page)).writes[1], summary.writes);
  await context.close();
});

test('a kubectl list picked from disk: bad records listed as hushd lists them, the rest as its table', async () => {
  const items = stormLines.slice(0, 300).map((l) => JSON.parse(l));
  items.splice(7, 0, { involvedObject: { name: 'x' }, type: 'Sideways', lastTimestamp: '2024-05-01T09:00:00Z' });
  items.splice(20, 0, { kind: 'Pod', metadata: { name: 'not-an-event' } });
  const dir = mkdtempSync(join(tmpdir(), 'hush-www-'));
  const file = join(dir, 'events.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } }, null, 2));
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.setInputFiles('#file', file);
  await ready(page);
  const problems = await page.$$eval('#problems li', (lis) => lis.map((li) => li.textContent));
  let stderr = '';
  try {
    // Run where the file is: hushd names it as it is given, the page by its name.
    execFileSync(hushd, ['replay', '--engine', 'native', '--output', 'table', '--strict', 'events.json'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    stderr = e.stderr;
  }
  assert.deepStrictEqual(problems, [...stderr.matchAll(/^hushd: skipped (.*)$/gm)].map((m) => m[1]));
  assert.equal(problems.length, 2);
  await page.click('#tab-list');
  assert.deepStrictEqual((await readList(page)).rows.map(asTable).sort(), hushdTable(file).rows.sort());
  await page.waitForFunction(() => location.hash.includes('src=file%3Aevents.json'));
  await context.close();
});

test('a JSON Lines file dropped on the page is loaded', async () => {
  const text = stormLines.slice(0, 120).join('\n');
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.evaluate((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.jsonl', { type: 'application/x-ndjson' }));
    for (const type of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, text);
  await ready(page);
  assert.match(await page.textContent('#status'), /^dropped\.jsonl: 120 events/);
  await context.close();
});

test('the series sample: the list is the table hushd replay --mode series prints, heartbeats drawn', async () => {
  const { page, context } = await open(browser, server.url);
  await started(page);
  await page.selectOption('#sample', 'series');
  await ready(page);
  assert.equal(await page.inputValue('#mode'), 'series');
  const vector = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'series-crashloop-30min.json'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'hush-www-'));
  const file = join(dir, 'series.jsonl');
  writeFileSync(file, vector.input.map((e) => JSON.stringify(e)).join('\n'));
  await page.click('#tab-list');
  assert.deepStrictEqual((await readList(page)).rows.map(asTable).sort(), hushdTable(file, ['--mode', 'series']).rows.sort());
  await context.close();
});

test('keyboard only: tab order reaches every control with a visible focus ring; tabs switch with arrows', async () => {
  const { page, context } = await open(browser, server.url, 'src=sample:storm');
  await ready(page);
  const seen = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const e = document.activeElement;
      const style = getComputedStyle(e);
      return { id: e.id || e.getAttribute('name') || e.textContent.trim().slice(0, 20), outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    // Past the last control focus leaves the page; the round is over.
    if (focus.id === '' || (i > 0 && focus.id === seen[0])) break;
    seen.push(focus.id);
    assert.ok(focus.outline !== 'none' && focus.width >= 2, `focus on ${focus.id} is visible (${focus.outline} ${focus.width}px)`);
  }
  for (const id of ['open', 'sample', 'connect', 'theme', 'namespace', 'text', 'tab-timeline', 'timeline', 'burst']) assert.ok(seen.includes(id), `Tab reaches ${id}: ${seen.join(', ')}`);
  await page.focus('#tab-timeline');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-list');
  assert.equal(await page.isVisible('#list'), true);
  assert.equal(await page.isVisible('#timeline'), false);
  // In the list, arrows move the selection and the detail follows.
  await page.focus('#list');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const selected = await page.getAttribute('#list .list-row[aria-selected=true]', 'data-stored');
  await page.waitForFunction((s) => document.querySelector('#detail').dataset.shown === `stored:${s}`, selected);
  await context.close();
});

/** sRGB hex to linear RGB, the colour-vision simulation of Machado et al. (2009, severity 1), and CIELAB ΔE. */
function lab([r, g, b]) {
  const xyz = [
    0.4124 * r + 0.3576 * g + 0.1805 * b,
    0.2126 * r + 0.7152 * g + 0.0722 * b,
    0.0193 * r + 0.1192 * g + 0.9505 * b,
  ].map((v, i) => v / [0.9505, 1, 1.089][i]);
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  return [116 * f(xyz[1]) - 16, 500 * (f(xyz[0]) - f(xyz[1])), 200 * (f(xyz[1]) - f(xyz[2]))];
}
const linear = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
const SIMULATIONS = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
};
const deltaE = (a, b) => Math.hypot(...a.map((v, i) => v - b[i]));

test('light and dark themes, with categories that stay apart for colour-blind readers', async () => {
  const { page, context } = await open(browser, server.url, 'src=sample:storm', { colorScheme: 'light' });
  await ready(page);
  const colours = () =>
    page.evaluate(() => {
      const css = getComputedStyle(document.documentElement);
      const hex = (name) => {
        const c = document.createElement('canvas').getContext('2d');
        c.fillStyle = css.getPropertyValue(`--${name}`).trim();
        return c.fillStyle;
      };
      return Object.fromEntries(['bg', 'normal', 'warning', 'drop', 'heartbeat', 'refused', 'trap'].map((n) => [n, hex(n)]));
    });
  const pixel = () =>
    page.evaluate(() => {
      const canvas = document.querySelector('#timeline canvas');
      const ctx = canvas.getContext('2d');
      const d = ctx.getImageData(canvas.width - 4, canvas.height - 4, 1, 1).data;
      return `#${[...d.slice(0, 3)].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    });
  const light = await colours();
  // The trapped category's legend entry is drawn in its colour.
  const legend = () =>
    page.evaluate(() => {
      const mark = document.querySelector('.legend .mark.trap');
      const c = document.createElement('canvas').getContext('2d');
      c.fillStyle = getComputedStyle(mark).color;
      return { text: mark.parentElement.textContent, colour: c.fillStyle };
    });
  assert.deepStrictEqual(await legend(), { text: '▲trapped (correlator failed)', colour: light.trap });
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  assert.equal(await pixel(), light.bg, 'the canvas is drawn in the theme');
  await page.click('#theme');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await page.getAttribute('#theme', 'aria-pressed'), 'true');
  const dark = await colours();
  assert.deepStrictEqual(await legend(), { text: '▲trapped (correlator failed)', colour: dark.trap });
  assert.notEqual(dark.bg, light.bg);
  await page.waitForFunction((bg) => {
    const canvas = document.querySelector('#timeline canvas');
    const d = canvas.getContext('2d').getImageData(canvas.width - 4, canvas.height - 4, 1, 1).data;
    return `#${[...d.slice(0, 3)].map((v) => v.toString(16).padStart(2, '0')).join('')}` === bg;
  }, dark.bg);
  // The choice survives a reload.
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  for (const [theme, c] of [['light', light], ['dark', dark]]) {
    const categories = ['normal', 'warning', 'drop', 'heartbeat', 'trap'];
    for (const [vision, m] of Object.entries(SIMULATIONS)) {
      const seen = (hex) => lab(m.map((row) => Math.min(1, Math.max(0, row[0] * linear(hex)[0] + row[1] * linear(hex)[1] + row[2] * linear(hex)[2]))));
      for (const [i, a] of categories.entries()) {
        assert.ok(deltaE(seen(c[a]), seen(c.bg)) > 20, `${theme}, ${vision}: ${a} stands out from the background`);
        for (const b of categories.slice(i + 1)) assert.ok(deltaE(seen(c[a]), seen(c[b])) > 12, `${theme}, ${vision}: ${a} and ${b} stay apart (ΔE ${deltaE(seen(c[a]), seen(c[b])).toFixed(1)})`);
      }
    }
  }
  await context.close();
});
