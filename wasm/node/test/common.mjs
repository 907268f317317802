// What the Node host's tests share: where things are, hushd replay as the
// reference, and input with bad records in it.

import assert from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..', '..');
export const vectorsDir = join(root, 'tests', 'vectors');
export const storm = join(root, 'hushd', 'samples', 'storm.jsonl');
export const hushd = process.env.HUSHD ?? join(root, 'target', 'debug', 'hushd');
export const cli = join(here, '..', 'replay.mjs');

assert.ok(existsSync(hushd), `${hushd} is missing: cargo build -p hushd (or set HUSHD)`);

export function run(command, args, input) {
  const done = spawnSync(command, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (done.error) throw done.error;
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

/** `hushd replay --output decisions` (the native engine) on `input`. */
export const hushdReplay = (args, input) =>
  run(hushd, ['replay', '--engine', 'native', '--output', 'decisions', ...args], input);

export const GOOD =
  '{"involvedObject":{"name":"p","namespace":"a"},"type":"Normal","reason":"X","message":"m","lastTimestamp":"2024-05-01T10:00:00Z"}';

export const BAD_LINES = [
  '',
  GOOD,
  'not json',
  '{"kind":"Pod","involvedObject":{}}',
  '   ',
  '{"involvedObject":{"name":"p"},"type":"Normal"}',
  '{"involvedObject":{"name":"p"},"type":"Weird","lastTimestamp":"2024-05-01T10:00:00Z"}',
  `{"message":"${'x'.repeat(2 * 1024 * 1024)}","involvedObject":{"name":"p"}}`,
  GOOD.replace('"m"', '"m2"'),
  // A list on one line (a must-gather events.yaml through a one-liner).
  `{"kind":"EventList","apiVersion":"v1","items":[${GOOD.replace('"p"', '"q"')},{"kind":"Pod"}]}`,
  '{"involvedObject":',
].join('\r\n');
