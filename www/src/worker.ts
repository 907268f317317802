// The dashboard's worker: owns hush-web's Dashboard (the correlator compiled
// to wasm, the recording as the text it was read from, both runs and the
// indexes), reads files, list pages and watch lines into it, and answers
// each change with a frame. A
// live flush correlates only the events it brought, on top of what the
// runs already hold; a new what-if correlates the whole recording once.
// The page never blocks on reading, correlating or indexing.

import init, { Dashboard, defaultOptions } from 'hush-web';
import type { Filter, Frame, Options, ReadProgress, ReadSummary, Reply, Request, SortOrder, ViewSettings, Watched } from './protocol';
import { synthetic } from './synthetic';

/** The module's memory (its size is reported with each frame). */
let memory: WebAssembly.Memory | null = null;
const ready = init({ module_or_path: new URL('hush_web_bg.wasm', import.meta.url) }).then((exports) => {
  memory = exports.memory;
});

let dashboard: Dashboard | null = null;
let filter: Filter | null = null;
let sort: SortOrder = { column: 'last', descending: true };
let bins = 400;

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

/** A new, empty recording with these runs and view. */
function fresh(base: Options, whatif: Options | null, view: ViewSettings): Dashboard {
  dashboard?.free();
  filter = view.filter;
  sort = view.sort;
  bins = view.bins;
  const d = new Dashboard();
  if (filter) d.setFilter(filter);
  d.setSort(sort.column, sort.descending);
  d.setBins(bins);
  d.setRun(0, base);
  if (whatif) d.setRun(1, whatif);
  dashboard = d;
  return d;
}

function current(): Dashboard {
  if (!dashboard) throw new Error('nothing loaded');
  return dashboard;
}

/** Sends the frame of what changed, with what this request did (it read and correlated from `started`). */
function sendFrame(id: number, started: number, correlated: number, watched?: Watched, summary?: ReadSummary): void {
  const indexing = performance.now();
  const frame = current().frame() as Frame;
  const wasmBytes = memory?.buffer.byteLength ?? 0;
  post({ kind: 'frame', id, frame, readMillis: indexing - started, indexMillis: performance.now() - indexing, correlated, watched, wasmBytes, summary }, buffers(frame));
}

/** How often reading files reports its progress to the page, ms. */
const PROGRESS_EVERY = 100;

async function handle(request: Request): Promise<void> {
  await ready;
  const started = performance.now();
  switch (request.kind) {
    case 'open': {
      // Both runs first: each correlates the file's events as they are read, once.
      const d = fresh(request.base, request.whatif, request.view);
      d.read(new Uint8Array(request.bytes));
      d.finish();
      sendFrame(request.id, started, d.takeCorrelated());
      return;
    }
    case 'openFiles': {
      const d = fresh(request.base, request.whatif, request.view);
      // The reader pulls the bytes it needs, a chunk at a time: an archive is never read whole into memory.
      const reader = new FileReaderSync();
      const files = request.files;
      const read = (i: number, offset: number, length: number) => new Uint8Array(reader.readAsArrayBuffer(files[i].slice(offset, offset + length)));
      let shown = 0;
      const progress = (p: ReadProgress) => {
        const now = performance.now();
        if (now - shown < PROGRESS_EVERY) return;
        shown = now;
        post({ kind: 'progress', id: request.id, progress: p });
      };
      const sizes = new Float64Array(files.map((f) => f.size));
      const summary = d.readFiles(request.paths, sizes, request.folder, read, progress) as ReadSummary;
      d.finish();
      sendFrame(request.id, started, d.takeCorrelated(), undefined, summary);
      return;
    }
    case 'listPage': {
      const d = request.first ? fresh(request.base, request.whatif, request.view) : current();
      const listed = d.listPage(new Uint8Array(request.bytes), Date.now());
      post({ kind: 'listed', id: request.id, listed });
      return;
    }
    case 'listDone': {
      const d = current();
      d.commitList();
      sendFrame(request.id, started, d.takeCorrelated());
      return;
    }
    case 'watch': {
      const d = current();
      const watched = d.watch(new Uint8Array(request.bytes), Date.now()) as Watched;
      sendFrame(request.id, started, d.takeCorrelated(), watched);
      return;
    }
    case 'replay': {
      const d = current();
      const correlated = request.base ? d.setRun(0, request.base) : 0;
      d.setRun(1, request.whatif);
      sendFrame(request.id, started, correlated);
      return;
    }
    case 'view': {
      filter = request.filter;
      sort = request.sort;
      bins = request.bins;
      const d = current();
      d.setFilter(filter);
      d.setSort(sort.column, sort.descending);
      d.setBins(bins);
      sendFrame(request.id, started, 0);
      return;
    }
    case 'explain': {
      const d = current();
      const which = request.which === 'whatif' ? 1 : 0;
      const decision = d.explain(which, request.input);
      const raw = d.raw(request.input) ?? '';
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
