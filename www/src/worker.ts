// The dashboard's worker: owns hush-web (the correlator compiled to wasm),
// reads files, replays them under the baseline and what-if options, and
// answers explanations. The page never blocks on parsing or correlation.

import init, { Recording, defaultOptions, type Run } from 'hush-web';
import type { Facts, Options, Reply, Request, RunColumns, Stats, Which } from './protocol';
import { synthetic } from './synthetic';

const ready = init({ module_or_path: new URL('hush_web_bg.wasm', import.meta.url) });

/** The stream read so far, as the chunks it arrived in. */
let chunks: { offset: number; bytes: Uint8Array }[] = [];
let recording: Recording | null = null;
let facts: Facts | null = null;
const runs: Record<Which, Run | null> = { base: null, whatif: null };

function post(reply: Reply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(reply, transfer);
}

/** The buffers of every typed array in `value`, to transfer them. */
function buffers(value: unknown, out: Transferable[] = []): Transferable[] {
  if (ArrayBuffer.isView(value)) out.push(value.buffer as ArrayBuffer);
  else if (value && typeof value === 'object' && !Array.isArray(value)) for (const v of Object.values(value)) buffers(v, out);
  return out;
}

function replay(which: Which, options: Options | null): RunColumns | null {
  runs[which]?.free();
  runs[which] = null;
  if (!options || !recording) return null;
  const started = performance.now();
  const run = recording.replay(options);
  runs[which] = run;
  const columns = run.columns() as Omit<RunColumns, 'stats' | 'options' | 'millis'>;
  return { ...columns, stats: run.stats() as Stats, options, millis: performance.now() - started };
}

function read(bytes: Uint8Array, append: boolean): number {
  const started = performance.now();
  if (!append || !recording) {
    recording?.free();
    chunks = [];
    recording = new Recording(bytes);
  } else {
    recording.append(bytes);
  }
  const offset = chunks.reduce((n, c) => n + c.bytes.length, 0);
  chunks.push({ offset, bytes });
  facts = recording.facts() as Facts;
  return performance.now() - started;
}

/** The text of the input record at `start..end` of the stream. */
function rawText(start: number, end: number): string {
  const chunk = chunks.findLast((c) => c.offset <= start);
  if (!chunk) return '';
  return new TextDecoder().decode(chunk.bytes.subarray(start - chunk.offset, end - chunk.offset));
}

async function handle(request: Request): Promise<void> {
  await ready;
  switch (request.kind) {
    case 'load':
    case 'append': {
      const readMillis = read(new Uint8Array(request.bytes), request.kind === 'append');
      const base = replay('base', request.base)!;
      const whatif = replay('whatif', request.whatif);
      const errors = recording!.errors();
      const reply: Reply = { kind: 'loaded', id: request.id, facts: facts!, errors, base, whatif, readMillis };
      // facts stay here too (for raw text): send a copy of their buffers.
      const sent = { ...reply, facts: structuredClone(facts!) };
      post(sent, buffers([sent.facts, base, whatif]));
      return;
    }
    case 'replay': {
      const base = request.base ? replay('base', request.base) : null;
      const whatif = replay('whatif', request.whatif);
      post({ kind: 'replayed', id: request.id, base, whatif }, buffers([base, whatif]));
      return;
    }
    case 'explain': {
      const run = runs[request.which];
      if (!run || !facts) throw new Error(`no ${request.which} run`);
      const decision = run.explain(request.input);
      const raw = rawText(facts.start[request.input], facts.end[request.input]);
      post({ kind: 'explained', id: request.id, decision, raw });
      return;
    }
    case 'stored': {
      const run = runs[request.which];
      if (!run) throw new Error(`no ${request.which} run`);
      post({ kind: 'stored', id: request.id, event: run.storedEvent(request.stored) });
      return;
    }
    case 'defaults':
      post({ kind: 'defaults', id: request.id, options: defaultOptions() });
      return;
    case 'synthetic': {
      const bytes = new TextEncoder().encode(synthetic(request.events));
      post({ kind: 'synthetic', id: request.id, bytes: bytes.buffer }, [bytes.buffer]);
      return;
    }
  }
}

self.onmessage = (e: MessageEvent<Request>) => {
  handle(e.data).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    post({ kind: 'error', id: e.data.id, message });
  });
};
