// The messages between the page and its worker, and the column shapes that
// hush-web's Recording and Run return (see wasm/web/src/recording.rs and
// run.rs). Everything bulky is a typed array, transferred, not copied.

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

/** An event's strings as columns: numbers into `strings`. The involved object's namespace, kind and name; the event's reason, type, reporting component and message. */
export interface StringColumns {
  namespace: Uint32Array;
  kind: Uint32Array;
  name: Uint32Array;
  reason: Uint32Array;
  type: Uint32Array;
  component: Uint32Array;
  message: Uint32Array;
  strings: string[];
}

/** One column per input event: when it is observed (ms), its bytes in the file, its strings. */
export interface Facts extends StringColumns {
  at: Float64Array;
  start: Uint32Array;
  end: Uint32Array;
}

/** The stored events of a run, as columns. */
export interface StoredColumns extends StringColumns {
  eventNamespace: Uint32Array;
  eventName: Uint32Array;
  first: Float64Array;
  last: Float64Array;
  /** The same instants to the nanosecond (ages and order are exact). */
  firstNanos: BigInt64Array;
  lastNanos: BigInt64Array;
  count: Int32Array;
  series: Uint8Array;
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

/** A run: per input its decision, the stored events, the timer writes. */
export interface RunColumns {
  mode: 'legacy' | 'series';
  action: Uint8Array;
  rule: Uint8Array;
  target: Int32Array;
  count: Int32Array;
  tokens: Float64Array;
  ticks: { at: Float64Array; kind: Uint8Array; target: Int32Array };
  stored: StoredColumns;
  labels: string[];
  stats: Stats;
  options: Options;
  /** Milliseconds the worker spent correlating. */
  millis: number;
}

export interface BadRecord {
  position: string;
  message: string;
}

/** Which run: the baseline or the what-if. */
export type Which = 'base' | 'whatif';

export type Request =
  | { kind: 'load'; id: number; bytes: ArrayBuffer; base: Options; whatif: Options | null }
  | { kind: 'append'; id: number; bytes: ArrayBuffer; base: Options; whatif: Options | null }
  | { kind: 'replay'; id: number; base: Options | null; whatif: Options | null }
  | { kind: 'explain'; id: number; which: Which; input: number }
  | { kind: 'stored'; id: number; which: Which; stored: number }
  | { kind: 'synthetic'; id: number; events: number }
  | { kind: 'defaults'; id: number };

export type Reply =
  | {
      kind: 'loaded';
      id: number;
      facts: Facts;
      errors: BadRecord[];
      base: RunColumns;
      whatif: RunColumns | null;
      /** Milliseconds: reading the file, building the columns. */
      readMillis: number;
    }
  | { kind: 'replayed'; id: number; base: RunColumns | null; whatif: RunColumns | null }
  | { kind: 'explained'; id: number; decision: Decision; raw: string }
  | { kind: 'stored'; id: number; event: unknown }
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
}

export interface Why {
  rule: string;
  key: string[];
  count: number;
  distinctMessages?: number;
  spamKey?: string[];
  tokens?: number;
}
