#!/usr/bin/env node
// hush-replay: recorded Kubernetes Events through the hush correlator
// component into an in-memory API server, printing one decision line per
// input (and per timer firing) exactly as `hushd replay --output decisions`.
//
//   node wasm/node/replay.mjs [--mode legacy|series] [--options JSON|@FILE] [--strict] [FILE|-]

import { createReadStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

import { records } from './lib/input.mjs';
import { Replay } from './lib/replay.mjs';

const NAME = 'hush-replay';
const USAGE = `usage: ${NAME} [--mode legacy|series] [--options JSON|@FILE] [--strict] [FILE|-]

Replays Events (JSON Lines, or one \`kubectl get events -o json\` list) from
FILE or standard input through the hush correlator component and prints
one JSON decision per input, as \`hushd replay --output decisions\` does.

  --mode legacy|series   core/v1 tools/record, or events.k8s.io/v1 series (default legacy)
  --options JSON|@FILE   hush-core options, kebab-case (e.g. '{"burst": 5}')
  --strict               exit 1 if any input record was bad
`;

function fail(message, code = 2) {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        mode: { type: 'string', default: 'legacy' },
        options: { type: 'string', default: '{}' },
        strict: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    fail(`${e.message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  if (!['legacy', 'series'].includes(values.mode)) fail(`--mode: expected legacy or series, got "${values.mode}"`);
  if (positionals.length > 1) fail(`one input at most, got ${positionals.length}\n${USAGE}`);
  let options = values.options;
  if (options.startsWith('@')) {
    try {
      options = readFileSync(options.slice(1), 'utf8');
    } catch (e) {
      fail(`cannot read ${options.slice(1)}: ${e.message}`);
    }
  }
  return { mode: values.mode, options, strict: values.strict, file: positionals[0] };
}

function input(file) {
  if (file === undefined && process.stdin.isTTY) fail(`no input: give FILE, or pipe Events to standard input\n${USAGE}`);
  if (file === undefined || file === '-') return process.stdin;
  const stream = createReadStream(file);
  stream.on('error', (e) => fail(`cannot open ${file}: ${e.message}`, 1));
  return stream;
}

/** Writes `text` to stdout, waiting when the pipe is full. */
async function write(text) {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

async function main() {
  const args = parse(process.argv.slice(2));
  let replay;
  try {
    replay = await Replay.create({ mode: args.mode, options: args.options });
  } catch (e) {
    fail(e.payload !== undefined ? `--options: ${e.payload}` : e.message);
  }
  let bad = 0;
  for await (const record of records(input(args.file), replay.json)) {
    if (record.error !== undefined) {
      bad += 1;
      process.stderr.write(`${NAME}: skipped ${record.position}: ${record.error}\n`);
      continue;
    }
    const lines = replay.observe(record.event, record.at);
    if (lines.length > 0) await write(`${lines.join('\n')}\n`);
  }
  const lines = replay.finish();
  if (lines.length > 0) await write(`${lines.join('\n')}\n`);
  if (bad > 0) process.stderr.write(`${NAME}: ${bad} bad input records skipped\n`);
  process.exitCode = args.strict && bad > 0 ? 1 : 0;
}

process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

await main();
