// Transpiles hush's two components with jco into gen/: the correlator
// (target/component/hush.component.wasm, from scripts/build-component.sh)
// and the codec (target/component/hush-codec.component.wasm, from
// scripts/build-codec.sh). Other builds: HUSH_COMPONENT=… HUSH_CODEC=….

import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { transpile } from '@bytecodealliance/jco';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');

const components = {
  correlator: process.env.HUSH_COMPONENT ?? join(root, 'target', 'component', 'hush.component.wasm'),
  codec: process.env.HUSH_CODEC ?? join(root, 'target', 'component', 'hush-codec.component.wasm'),
};

for (const [name, wasm] of Object.entries(components)) {
  if (!existsSync(wasm)) {
    console.error(`build: ${wasm} is missing: run scripts/build-component.sh and scripts/build-codec.sh`);
    process.exit(1);
  }
  const out = join(here, 'gen', name);
  await rm(out, { recursive: true, force: true });
  // Async instantiation: the host passes the clock and the sink at run time.
  const { files } = await transpile(await readFile(wasm), { name, instantiation: 'async', wasiShim: false });
  for (const [file, bytes] of Object.entries(files)) {
    await mkdir(dirname(join(out, file)), { recursive: true });
    await writeFile(join(out, file), bytes);
  }
  console.log(`${wasm} -> ${out}`);
}
