// The messages between the page and its worker, and the frames hush-web's
// Dashboard builds (wasm/web/src/dashboard/frame.rs): what grew since the
// last frame (events, strings, rows, decisions) and stored events that
// changed, plus the indexes the page draws from, rebuilt whole. Everything
// bulky is a typed array, transferred, not copied.

/** hush-core Options, kebab-case, as hush-web reads them. */
export interface Options {
  mode?: 'legacy' | 'series';
  burst?: number;
  qps?: number;
  'lru-cache-size'?: number;
  'max-events'?: number;
  'max-interval-seconds'?: number;
  'spam-key'?: 'source-object-type' | 'source-object-type-reason';
}

/** The string columns of an event: its involved object's namespace, kind and name, its reason, type, reporting component and message. */
export const STRING_COLUMNS = ['namespace', 'kind', 'name', 'reason', 'type', 'component', 'message'] as const;
export type StringColumn = (typeof STRING_COLUMNS)[number];

/** A column of one entry per event, as its difference from the one sent before: entries `from..` in `tail`, and older entries `at` that changed to `values` (`from` 0: whole). */
export interface ColumnDelta<T> {
  from: number;
  at: Uint32Array;
  values: T;
  tail: T;
}

/** Items grouped by key: `items[offsets[k] .. offsets[k + 1]]`. */
export interface Groups {
  offsets: Uint32Array;
  items: Uint32Array;
}

/** hush-core Stats (camelCase). */
export interface Stats {
  observed: number;
  refused: number;
  aggregated: number;
  droppedSpam: number;
  absorbed: number;
  created: number;
  patched: number;
  heartbeats: number;
  finished: number;
  evicted: number;
  [counter: string]: number;
}

/** Stored events that changed, by number: their columns in `changed`'s order. */
export type StoredDelta = { total: number; changed: Uint32Array } & Record<StringColumn | 'eventNamespace' | 'eventName', Uint32Array> & {
  first: Float64Array;
  last: Float64Array;
  firstNanos: BigInt64Array;
  lastNanos: BigInt64Array;
  count: Int32Array;
  series: Uint8Array;
  row: Int32Array;
};

/** One run in a frame. */
export interface RunFrame {
  /** The run was (re)started: what the page holds of it goes. */
  reset: boolean;
  mode: 'legacy' | 'series';
  labels: string[];
  stats: Stats;
  /** Events it has correlated. */
  correlated: number;
  /** Decisions of events `from..`: action and rule (into `labels`; rule 255: none), tokens left (NaN: none). */
  decisions: { from: number; action: Uint8Array; rule: Uint8Array; tokens: Float64Array };
  /** Per event, the stored event it went into (-1: none). */
  target: ColumnDelta<Int32Array>;
  /** Timer and retry writes: when (ms), which (into `labels`), which stored event. */
  ticks: { at: Float64Array; kind: Uint8Array; target: Int32Array };
  stored: StoredDelta;
  rowStored: Groups;
  rowTicks: Groups;
  /** What the filter keeps: stored events, rows. */
  kept: { stored: Uint8Array; rows: Uint8Array; count: number; total: number };
  /** The kept stored events in the list's order. */
  order: Uint32Array;
  /** [from, to] in ms (±Infinity when empty). */
  span: Float64Array;
  /** When its last stored event was last seen, ns. */
  lastSeen: bigint;
  histogram: Histogram;
}

/** The overview's bars over `from..to` (ms, the span padded as the timeline pads it): kept events dropped by the spam filter, and of the others Warnings and the rest. */
export interface Histogram {
  from: number;
  to: number;
  normal: Uint32Array;
  warning: Uint32Array;
  dropped: Uint32Array;
}

export interface BadRecord {
  position: string;
  message: string;
}

/** What the worker's Dashboard sends after every change. */
export interface Frame {
  /** The first frame of a new recording: what the page holds goes. */
  first: boolean;
  inputs: number;
  late: number;
  removedTotal: number;
  /** Strings numbered `from..`, as UTF-8 bytes and where each ends. */
  strings: { from: number; bytes: Uint8Array; ends: Uint32Array };
  /** Events `from..`: when (ms), string columns, row, late (1: observed before an event already correlated). */
  facts: { from: number; at: Float64Array; row: Uint32Array; late: Uint8Array } & Record<StringColumn, Uint32Array>;
  /** Rows `from..`: namespace, kind, name, reason. */
  rows: { from: number; namespace: Uint32Array; kind: Uint32Array; name: Uint32Array; reason: Uint32Array };
  /** Events removed since the last frame (their Event was deleted). */
  removed: Uint32Array;
  /** Bad records since the last frame. */
  errors: BadRecord[];
  /** The number of "Warning", or -1. */
  warning: number;
  rowOrder: Uint32Array;
  rowFirst: Uint8Array;
  rowInputs: Groups;
  /** What the filter keeps of the events (1: kept). */
  kept: { inputs: ColumnDelta<Uint8Array>; count: number; total: number };
  /** The filter's choices, when they changed. */
  choices: Record<'namespace' | 'kind' | 'type' | 'reason' | 'component', string[]> | null;
  runs: [RunFrame, RunFrame | null];
  /** Rows silenced and left stale, before and after, and the first rows that differ. */
  fates?: FatesFrame;
}

export interface RowList {
  total: number;
  rows: Uint32Array;
}

export interface FatesFrame {
  silenced: Uint32Array;
  stale: Uint32Array;
  newlySilenced: RowList;
  revived: RowList;
  newlyStale: RowList;
  fresh: RowList;
}

/** The filter bar's fields; empty strings keep everything. */
export interface Filter {
  namespace: string;
  kind: string;
  object: string;
  type: string;
  reason: string;
  component: string;
  text: string;
}

/** The list's sort. */
export interface SortOrder {
  column: string;
  descending: boolean;
}

/** What the worker's views are cut by: the filter and the list's order. */
export interface ViewSettings {
  filter: Filter;
  sort: SortOrder;
  /** Bars of the overview's histogram. */
  bins: number;
}

/** What a watch batch said. */
export interface Watched {
  resourceVersion: string;
  observed: number;
  deleted: number;
  bookmarks: number;
  error?: { code: number; reason: string; message: string };
}

/** A list page's metadata. */
export interface Listed {
  continue: string;
  resourceVersion: string;
  items: number;
}

/** Which run: the baseline or the what-if. */
export type Which = 'base' | 'whatif';

/** How far reading dropped or picked files has got (hush-input's progress). */
export interface ReadProgress {
  files: number;
  passedOver: number;
  bytes: number;
  /** The files' size, when known. */
  totalBytes: number | null;
  events: number;
  bad: number;
}

/** What reading dropped or picked files found (hush-input's summary). */
export interface ReadSummary {
  /** As `hushd replay` prints it. */
  text: string;
  files: { path: string; events: number; bad: number }[];
  /** Files passed over, by reason (logs, not events, links, archives nested too deep). */
  passedOver: Record<string, number>;
  events: number;
  /** Bad records by cause. */
  bad: Record<string, number>;
  /** The earliest and latest instants, ms (null when no event). */
  from: number | null;
  to: number | null;
  namespaces: [string, number][];
  noiseLines: number;
  bytes: number;
}

export type Request =
  | { kind: 'open'; id: number; bytes: ArrayBuffer; base: Options; whatif: Options | null; view: ViewSettings }
  /** Files dropped or picked: one, several, or a folder (`folder`: `paths` in it); read by the dump reader hushd replay uses. */
  | { kind: 'openFiles'; id: number; files: File[]; paths: string[]; folder: boolean; base: Options; whatif: Options | null; view: ViewSettings }
  | { kind: 'listPage'; id: number; bytes: ArrayBuffer; first: boolean; base: Options; whatif: Options | null; view: ViewSettings }
  | { kind: 'listDone'; id: number }
  | { kind: 'watch'; id: number; bytes: ArrayBuffer }
  | { kind: 'replay'; id: number; base: Options | null; whatif: Options | null }
  | ({ kind: 'view'; id: number } & ViewSettings)
  | { kind: 'explain'; id: number; which: Which; input: number }
  | { kind: 'stored'; id: number; which: Which; stored: number }
  | { kind: 'synthetic'; id: number; events: number }
  | { kind: 'defaults'; id: number };

export type Reply =
  | {
      kind: 'frame';
      id: number;
      frame: Frame;
      /** Milliseconds: reading and correlating (what this request did), then indexing for the frame. */
      readMillis: number;
      indexMillis: number;
      /** Events the baseline correlated for this request. */
      correlated: number;
      watched?: Watched;
      /** The worker's WebAssembly memory, bytes. */
      wasmBytes: number;
      /** For files read: what the read found. */
      summary?: ReadSummary;
    }
  | { kind: 'progress'; id: number; progress: ReadProgress }
  | { kind: 'listed'; id: number; listed: Listed }
  | { kind: 'explained'; id: number; decision: Decision; raw: string }
  | { kind: 'stored'; id: number; event: unknown; inputs: Uint32Array }
  | { kind: 'synthetic'; id: number; bytes: ArrayBuffer }
  | { kind: 'defaults'; id: number; options: Required<Options> }
  | { kind: 'error'; id: number; message: string };

/** A decision line as hushd prints it, with the stored event's index. */
export interface Decision {
  action: string;
  event?: unknown;
  patch?: unknown;
  why?: Why;
  write?: { status: string; cause?: unknown; retryAt?: string };
  error?: string;
  stored: number;
  /** Observed before an event already correlated: correlated on arrival, at its own instant. */
  late?: boolean;
  /** Where it was read, for an event of files read (`PATH:LINE items[N]`). */
  source?: string;
}

export interface Why {
  rule: string;
  key: string[];
  count: number;
  distinctMessages?: number;
  spamKey?: string[];
  tokens?: number;
}
