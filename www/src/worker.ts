// The dashboard's worker: owns hush-web's Dashboard (the correlator compiled
// to wasm, the recording, both runs and the indexes), reads files, list
// pages and watch lines into it, and answers each change with a frame. A
// live flush correlates only the events it brought, on top of what the
// runs already hold; a new what-if correlates the whole recording once.
// The page never blocks on reading, correlating or indexing.

import init, { Dashboard, defaultOptions } from 'hush-web';
import type { Filter, Frame, Options, Reply, Request, SortOrder, ViewSettings, Watched } from './protocol';
import { synthetic } from './synthetic';

/** The module's memory (its size is reported with each frame). */
let memory: WebAssembly.Memory | null = null;
const ready = init({ module_or_path: new URL('hush_web_bg.wasm', import.meta.url) }).then((exports) => {
  memory = exports.memory;
});

let dashboard: Dashboard | null = null;
/** Every byte given to the dashboard, as the chunks it came in (raw objects are cut from them). */
let chunks: { offset: number; bytes: Uint8Array }[] = [];
let bytesRead = 0;
let filter: Filter | null = null;
let sort: SortOrder = { column: 'last', descending: true };

function post(reply: Reply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(reply, transfer);
}

/** The buffers of every typed array in `value`, to transfer them. */
function buffers(value: unknown, out: Transferable[] = []): Transferable[] {
  if (ArrayBuffer.isView(value)) out.push(value.buffer as ArrayBuffer);
  else if (value && typeof value === 'object' && !Array.isArray(value)) for (const v of Object.values(value)) buffers(v, out);
  else if (Array.isArray(value)) for (const v of value) if (v && typeof v === 'object') buffers(v, out);
  return out;
}

/** A new, empty recording with the runs and view of the old one. */
function fresh(base: Options, whatif: Options | null, view: ViewSettings): Dashboard {
  dashboard?.free();
  filter = view.filter;
  sort = view.sort;
  chunks = [];
  bytesRead = 0;
  const d = new Dashboard();
  if (filter) d.setFilter(filter);
  d.setSort(sort.column, sort.descending);
  d.setRun(0, base);
  if (whatif) d.setRun(1, whatif);
  dashboard = d;
  return d;
}

/** Keeps `bytes` (the dashboard just read them) for raw objects. */
function keep(bytes: Uint8Array): void {
  chunks.push({ offset: bytesRead, bytes });
  bytesRead += bytes.length;
}

/** The text of the input record at `start..end` of the stream. */
function rawText(start: number, end: number): string {
  const chunk = chunks.findLast((c) => c.offset <= start);
  if (!chunk) return '';
  return new TextDecoder().decode(chunk.bytes.subarray(start - chunk.offset, end - chunk.offset));
}

function current(): Dashboard {
  if (!dashboard) throw new Error('nothing loaded');
  return dashboard;
}

/** Sends the frame of what changed, with what this request did. */
function sendFrame(id: number, started: number, correlateStarted: number, correlated: number, watched?: Watched): void {
  const frame = current().frame() as Frame;
  const now = performance.now();
  const wasmBytes = memory?.buffer.byteLength ?? 0;
  post({ kind: 'frame', id, frame, readMillis: correlateStarted - started, correlateMillis: now - correlateStarted, correlated, watched, wasmBytes }, buffers(frame));
}

async function handle(request: Request): Promise<void> {
  await ready;
  const started = performance.now();
  switch (request.kind) {
    case 'open': {
      const d = fresh(request.base, null, request.view);
      const bytes = new Uint8Array(request.bytes);
      d.read(bytes);
      keep(bytes);
      const correlating = performance.now();
      const correlated = d.advance();
      if (request.whatif) d.setRun(1, request.whatif);
      d.finish();
      sendFrame(request.id, started, correlating, correlated);
      return;
    }
    case 'listPage': {
      const d = request.first ? fresh(request.base, request.whatif, request.view) : current();
      const bytes = new Uint8Array(request.bytes);
      const listed = d.listPage(bytes, Date.now());
      keep(bytes);
      post({ kind: 'listed', id: request.id, listed });
      return;
    }
    case 'listDone': {
      const d = current();
      d.commitList();
      const correlating = performance.now();
      sendFrame(request.id, started, correlating, d.advance());
      return;
    }
    case 'watch': {
      const d = current();
      const bytes = new Uint8Array(request.bytes);
      const watched = d.watch(bytes, Date.now()) as Watched;
      keep(bytes);
      const correlating = performance.now();
      sendFrame(request.id, started, correlating, d.advance(), watched);
      return;
    }
    case 'replay': {
      const d = current();
      const correlating = performance.now();
      const correlated = request.base ? d.setRun(0, request.base) : 0;
      d.setRun(1, request.whatif);
      sendFrame(request.id, started, correlating, correlated);
      return;
    }
    case 'view': {
      filter = request.filter;
      sort = request.sort;
      const d = current();
      d.setFilter(filter);
      d.setSort(sort.column, sort.descending);
      sendFrame(request.id, started, performance.now(), 0);
      return;
    }
    case 'explain': {
      const d = current();
      const which = request.which === 'whatif' ? 1 : 0;
      const decision = d.explain(which, request.input);
      const span = d.span(request.input);
      const raw = span ? rawText(span[0], span[1]) : '';
      post({ kind: 'explained', id: request.id, decision, raw });
      return;
    }
    case 'stored': {
      const d = current();
      const which = request.which === 'whatif' ? 1 : 0;
      const inputs = d.storedInputs(which, request.stored);
      post({ kind: 'stored', id: request.id, event: d.storedEvent(which, request.stored), inputs }, [inputs.buffer]);
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

// One request at a time, in order: frames must reach the page in the order they are built.
let queue: Promise<void> = Promise.resolve();
self.onmessage = (e: MessageEvent<Request>) => {
  queue = queue.then(() =>
    handle(e.data).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      post({ kind: 'error', id: e.data.id, message });
    }),
  );
};
