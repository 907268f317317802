// Builds the dashboard into www/dist: a static site that needs no daemon.
//
//   node www/build.mjs          (scripts/build-www.sh runs it after the web build)
//
// dist/index.html, app.js + app.css (the page), worker.js (parsing and
// correlation off the main thread), hush_web_bg.wasm (hush-web, from
// target/web/browser, built by scripts/build-web.sh) and samples/ (the
// built-in recordings, taken from the repository's sample and vectors).

import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const www = dirname(fileURLToPath(import.meta.url));
const root = join(www, '..');
const dist = join(www, 'dist');
const web = join(root, 'target', 'web', 'browser');

if (!existsSync(join(web, 'hush_web.js'))) {
  console.error(`build-www: ${web}/hush_web.js is missing: run scripts/build-web.sh first`);
  process.exit(1);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'samples'), { recursive: true });

const started = performance.now();
await build({
  entryPoints: { app: join(www, 'src', 'main.ts'), worker: join(www, 'src', 'worker.ts') },
  outdir: dist,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  alias: { 'hush-web': join(web, 'hush_web.js') },
  logLevel: 'warning',
  legalComments: 'linked',
});

copyFileSync(join(www, 'index.html'), join(dist, 'index.html'));
copyFileSync(join(www, 'favicon.svg'), join(dist, 'favicon.svg'));
copyFileSync(join(web, 'hush_web_bg.wasm'), join(dist, 'hush_web_bg.wasm'));

// The built-in samples: the storm hushd replays by default, and the inputs
// of the shared vectors that tell a story (the CronJob whose chatty reason
// starves the others, a crash loop as an events.k8s.io/v1 series).
copyFileSync(join(root, 'hushd', 'samples', 'storm.jsonl'), join(dist, 'samples', 'storm.jsonl'));
for (const [vector, name] of [
  ['legacy-cronjob-default-key', 'cronjob'],
  ['series-crashloop-30min', 'series-crashloop'],
]) {
  const { input } = JSON.parse(readFileSync(join(root, 'tests', 'vectors', `${vector}.json`), 'utf8'));
  writeFileSync(join(dist, 'samples', `${name}.jsonl`), input.map((e) => JSON.stringify(e)).join('\n') + '\n');
}

const files = readdirSync(dist, { recursive: true })
  .map((f) => join(dist, f))
  .filter((f) => statSync(f).isFile());
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
console.log(`build-www: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB in www/dist (${(performance.now() - started).toFixed(0)} ms)`);
