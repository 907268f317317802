// Loading hush's two components in Node, from their jco transpilations in
// gen/ (made by `npm run build`):
//
// * the correlator (wit/correlator.wit, world `hush`): client-go's
//   decisions and write path; it imports a clock and a sink from its host;
// * the codec (wit/codec.wit, world `codec`): Kubernetes JSON in, hushd's
//   decision lines out; it imports nothing.
//
// jco names the imports with and without the package version depending on
// its release; both spellings are given.

import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Where `npm run build` writes the transpiled components. */
export const GEN_DIR = join(here, '..', 'gen');

const PACKAGE = 'hush:correlator';
const VERSION = '0.1.0';

/** The import object for `interfaces`, under both spellings of each name. */
function importObject(interfaces) {
  const object = {};
  for (const [name, functions] of Object.entries(interfaces)) {
    object[`${PACKAGE}/${name}`] = functions;
    object[`${PACKAGE}/${name}@${VERSION}`] = functions;
  }
  return object;
}

/**
 * `f`, with an exception that is not a sink error (a bug or a failure in
 * the host's sink) turned into the sink error `failed`, which the
 * correlator counts and retries, instead of a trap.
 */
function guarded(f) {
  return (...args) => {
    try {
      return f(...args);
    } catch (e) {
      if (e !== null && typeof e === 'object' && Object.hasOwn(e, 'payload')) throw e;
      throw { payload: { tag: 'failed', val: e instanceof Error ? e.message : String(e) } };
    }
  };
}

async function load(name, interfaces, dir) {
  const base = join(dir, name);
  let module;
  try {
    module = await import(join(base, `${name}.js`));
  } catch (e) {
    throw new Error(`the ${name} component is not built in ${base}: run \`npm run build\` in wasm/node (${e.message})`);
  }
  const getCoreModule = async (file) => WebAssembly.compile(await readFile(join(base, file)));
  return module.instantiate(getCoreModule, importObject(interfaces));
}

/**
 * Instantiates the correlator component with its host: `now()` returns the
 * instant in nanoseconds (a BigInt); `sink` has `createEvent(event)`,
 * `patchEvent(namespace, name, patch, body)` and `listEvents(controller,
 * instance)`, which return the stored answer or throw `{ payload: sinkError }`
 * (any other exception is the sink error `failed`).
 * Resolves to the `hush:correlator/correlator` interface: `Correlator`,
 * `defaultOptions()`.
 */
export async function loadCorrelator({ now, sink }, dir = GEN_DIR) {
  const exports = await load(
    'correlator',
    {
      clock: { now },
      sink: {
        createEvent: guarded((event) => sink.createEvent(event)),
        patchEvent: guarded((namespace, name, patch, body) => sink.patchEvent(namespace, name, patch, body)),
        listEvents: guarded((controller, instance) => sink.listEvents(controller, instance)),
      },
      types: {},
    },
    dir,
  );
  return exports.correlator;
}

/**
 * Instantiates the correlator component for its `replay` interface alone
 * (`hushd replay` inside the component, a batch per call, writing into its
 * own store): `now()` is read only for observations without an instant.
 * Resolves to the `hush:correlator/replay` interface: `Replay`.
 */
export async function loadReplay({ now = () => 0n } = {}, dir = GEN_DIR) {
  const noSink = () => {
    throw new Error('this component was instantiated without a sink');
  };
  const exports = await load(
    'correlator',
    {
      clock: { now },
      sink: { createEvent: guarded(noSink), patchEvent: guarded(noSink), listEvents: guarded(noSink) },
      types: {},
    },
    dir,
  );
  return exports.replay;
}

/**
 * Instantiates the codec component. Resolves to the `hush:correlator/json`
 * interface: `readRecord`, `readDocument`, `optionsFromJson`,
 * `decisionLine`, `tickLine`, `retryLine`.
 */
export async function loadCodec(dir = GEN_DIR) {
  const exports = await load('codec', { types: {}, correlator: {} }, dir);
  return exports.json;
}
