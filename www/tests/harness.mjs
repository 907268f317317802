// What the browser tests and the benchmark share: a static file server for
// www/dist on 127.0.0.1 (as any static host would serve it, no daemon), a
// headless Chromium through playwright-core (Debian's /usr/bin/chromium, or
// $CHROMIUM), and hushd (target/debug/hushd, or $HUSHD).

import { createServer } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

export const www = join(dirname(fileURLToPath(import.meta.url)), '..');
export const root = join(www, '..');
export const dist = join(www, 'dist');
export const hushd = process.env.HUSHD ?? join(root, 'target', 'debug', 'hushd');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.map': 'application/json',
};

/** Answers `req` with the file of `dir` it names (index.html for a folder), or 404. */
export function serveFile(dir, req, res) {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  let file = join(dir, path);
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  if (!file.startsWith(dir) || !existsSync(file)) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
}

/** Serves `dir` on a free loopback port; resolves to {url, close}. */
export function serveStatic(dir = dist) {
  if (!existsSync(join(dir, 'index.html'))) throw new Error(`${dir}/index.html is missing: run scripts/build-www.sh`);
  const server = createServer((req, res) => serveFile(dir, req, res));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Headless Chromium. */
export function launch() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: scripts/lib/setup.sh ensure_chromium installs it`);
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page of the dashboard at `url#fragment`, with console errors collected. */
export async function open(browser, url, fragment = '', options = {}) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  const page = await context.newPage();
  // Behave as the focused window, as a person's would be (keyboard focus rings, document.hasFocus()).
  await (await context.newCDPSession(page)).send('Emulation.setFocusEmulationEnabled', { enabled: true });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${url}${fragment ? `#${fragment}` : ''}`);
  return { page, context, errors };
}

/** Waits until the page is wired up (its controls answer). */
export async function started(page) {
  await page.waitForFunction(() => document.body.dataset.status !== 'starting', null, { timeout: 30_000 });
}

/** Waits until the page has loaded a source and drawn it. */
export async function ready(page) {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.status), null, { timeout: 60_000 });
  const status = await page.evaluate(() => document.body.dataset.status);
  if (status !== 'ready') throw new Error(`the page says: ${await page.textContent('#status')}`);
}

/** hushd's output for `args`. */
export function runHushd(args, input) {
  if (!existsSync(hushd)) throw new Error(`${hushd} is missing: cargo build -p hushd`);
  return execFileSync(hushd, args, { encoding: 'utf8', input, maxBuffer: 1 << 28 });
}
