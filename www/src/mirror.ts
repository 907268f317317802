// The page's copy of what the worker's Dashboard holds, kept by applying
// its frames in order: columns that only grow are appended to (the events,
// strings, rows, each run's decisions), stored events are replaced where
// they changed, and the indexes are taken as sent. Applying a frame costs
// what it carries, not the size of the recording: a live flush of a few
// events on top of a million touches a few entries and swaps a few arrays.

import { type Act, type Facts, type Kept, type Layout, type RowTable, type RunView, type StoredColumns, Strings, actsOf, reserve } from './model';
import { type BadRecord, type ColumnDelta, type Frame, type FatesFrame, type Groups, type RunFrame, STRING_COLUMNS, type Stats } from './protocol';

const EMPTY_GROUPS: Groups = { offsets: new Uint32Array(1), items: new Uint32Array(0) };

/** Typed columns that grow: each `name` holds at least `length` entries. */
class Columns<K extends string> {
  length = 0;
  readonly data: Record<K, Uint8Array | Uint32Array | Int32Array | Float64Array | BigInt64Array>;

  constructor(kinds: Record<K, new (n: number) => Uint8Array | Uint32Array | Int32Array | Float64Array | BigInt64Array>) {
    this.data = Object.fromEntries(Object.entries(kinds).map(([k, Ctor]) => [k, new (Ctor as new (n: number) => Uint8Array)(16)])) as typeof this.data;
  }

  /** Makes room for `n` entries (new ones zero). */
  grow(n: number): void {
    for (const k of Object.keys(this.data) as K[]) this.data[k] = reserve(this.data[k], n);
    this.length = Math.max(this.length, n);
  }

  /** Views of the first `length` entries. */
  view(): Record<K, never> {
    return Object.fromEntries(Object.entries(this.data).map(([k, a]) => [k, (a as Uint8Array).subarray(0, this.length)])) as Record<K, never>;
  }
}

const FACTS = {
  at: Float64Array, namespace: Uint32Array, kind: Uint32Array, name: Uint32Array, reason: Uint32Array, type: Uint32Array, component: Uint32Array, message: Uint32Array,
  row: Uint32Array, late: Uint8Array, removed: Uint8Array,
};
const ROWS = { namespace: Uint32Array, kind: Uint32Array, name: Uint32Array, reason: Uint32Array };
const DECISIONS = { action: Uint8Array, rule: Uint8Array, tokens: Float64Array, acts: Uint8Array };
const STORED = {
  namespace: Uint32Array, kind: Uint32Array, name: Uint32Array, reason: Uint32Array, type: Uint32Array, component: Uint32Array, message: Uint32Array,
  eventNamespace: Uint32Array, eventName: Uint32Array, first: Float64Array, last: Float64Array, firstNanos: BigInt64Array, lastNanos: BigInt64Array,
  count: Int32Array, series: Uint8Array, row: Int32Array,
};

/** Applies a column's difference (from the worker) to `column` (grown to hold it); returns the column. */
function patch<T extends Uint8Array | Int32Array>(column: T, delta: ColumnDelta<T>): T {
  const grown = reserve(column, delta.from + delta.tail.length);
  grown.set(delta.tail, delta.from);
  for (let j = 0; j < delta.at.length; j++) grown[delta.at[j]] = delta.values[j];
  return grown;
}

/** Copies `from` into `to` at `at`. */
function put(to: Uint8Array | Uint32Array | Int32Array | Float64Array | BigInt64Array, from: ArrayLike<number | bigint>, at: number): void {
  (to as Uint8Array).set(from as ArrayLike<number>, at);
}

/** One run as the page holds it. */
class RunMirror {
  private decisions = new Columns(DECISIONS);
  private stored = new Columns(STORED);
  private target: Int32Array = new Int32Array(16);
  frame: RunFrame | null = null;
  private acts: Act[] = [];

  apply(run: RunFrame): void {
    this.frame = run;
    this.acts = actsOf(run.labels);
    const d = run.decisions;
    if (d.from !== this.decisions.length) throw new Error(`decisions: got ${d.from}, have ${this.decisions.length}`);
    this.decisions.grow(d.from + d.action.length);
    const c = this.decisions.data;
    put(c.action, d.action, d.from);
    put(c.rule, d.rule, d.from);
    put(c.tokens, d.tokens, d.from);
    const acts = c.acts as Uint8Array;
    for (let i = 0; i < d.action.length; i++) acts[d.from + i] = this.acts[d.action[i]];
    this.target = patch(this.target, run.target);
    const s = run.stored;
    this.stored.grow(s.total);
    const data = this.stored.data as Record<keyof typeof STORED, Uint8Array>;
    for (const key of Object.keys(STORED) as (keyof typeof STORED)[]) {
      const column = data[key];
      const values = s[key] as ArrayLike<number>;
      for (let j = 0; j < s.changed.length; j++) column[s.changed[j]] = values[j];
    }
  }

  view(strings: Strings): RunView {
    const run = this.frame!;
    const d = this.decisions.view() as unknown as { action: Uint8Array; rule: Uint8Array; tokens: Float64Array; acts: Uint8Array };
    const stored = { ...(this.stored.view() as unknown as Omit<StoredColumns, 'strings'>), strings };
    return {
      run: { mode: run.mode, labels: run.labels, stats: run.stats, action: d.action, rule: d.rule, tokens: d.tokens, target: this.target.subarray(0, this.decisions.length), ticks: run.ticks, stored },
      acts: d.acts,
      rules: run.labels,
      storedRow: stored.row,
      rowStored: run.rowStored,
      rowTicks: run.rowTicks,
      order: run.order,
      from: run.span[0],
      to: run.span[1],
      lastSeen: run.lastSeen,
      storedTotal: run.kept.total,
      histogram: run.histogram,
    };
  }
}

/** The page's copy of the worker's model. */
export class Mirror {
  strings = new Strings();
  private facts = new Columns(FACTS);
  private rows = new Columns(ROWS);
  private runs: [RunMirror | null, RunMirror | null] = [null, null];
  private last: Frame | null = null;
  /** What the filter keeps of the events. */
  private keptInputs: Uint8Array = new Uint8Array(16);
  errors: BadRecord[] = [];
  choices: Frame['choices'] = null;
  fates: FatesFrame | undefined;

  /** Applies the worker's next frame. */
  apply(frame: Frame): void {
    if (frame.first) {
      this.strings = new Strings();
      this.facts = new Columns(FACTS);
      this.rows = new Columns(ROWS);
      this.runs = [null, null];
      this.errors = [];
      this.keptInputs = new Uint8Array(16);
    }
    this.strings.append(frame.strings.from, frame.strings.bytes, frame.strings.ends);
    const f = frame.facts;
    if (f.from !== this.facts.length) throw new Error(`events: got ${f.from}, have ${this.facts.length}`);
    this.facts.grow(frame.inputs);
    const data = this.facts.data as Record<keyof typeof FACTS, Uint8Array>;
    for (const key of ['at', 'row', 'late', ...STRING_COLUMNS] as const) put(data[key], f[key], f.from);
    for (const i of frame.removed) data.removed[i] = 1;
    this.keptInputs = patch(this.keptInputs, frame.kept.inputs);
    const r = frame.rows;
    this.rows.grow(r.from + r.namespace.length);
    const rows = this.rows.data as Record<keyof typeof ROWS, Uint32Array>;
    for (const key of ['namespace', 'kind', 'name', 'reason'] as const) put(rows[key], r[key], r.from);
    this.errors.push(...frame.errors);
    if (frame.choices) this.choices = frame.choices;
    this.fates = frame.fates;
    frame.runs.forEach((run, which) => {
      if (!run) {
        this.runs[which] = null;
        return;
      }
      if (run.reset || !this.runs[which]) this.runs[which] = new RunMirror();
      this.runs[which]!.apply(run);
    });
    this.last = frame;
  }

  /** Whether a frame was applied. */
  get ready(): boolean {
    return this.last !== null;
  }

  layout(): Layout {
    const frame = this.last!;
    const rows: RowTable = { ...(this.rows.view() as unknown as Omit<RowTable, 'count' | 'order' | 'first'>), count: this.rows.length, order: frame.rowOrder, first: frame.rowFirst };
    const facts: Facts = { ...(this.facts.view() as unknown as Omit<Facts, 'length'>), length: this.facts.length };
    return { facts, strings: this.strings, rows, rowInputs: frame.rowInputs ?? EMPTY_GROUPS, warning: frame.warning, errors: this.errors };
  }

  /** Run 0 (the baseline) or 1 (the what-if), if there is one. */
  view(which: 0 | 1): RunView | null {
    return this.runs[which]?.view(this.strings) ?? null;
  }

  /** What the filter keeps, seen through run `which`. */
  kept(which: 0 | 1): Kept {
    const frame = this.last!;
    const run = (frame.runs[which] ?? frame.runs[0])!;
    return { inputs: this.keptInputs.subarray(0, this.facts.length), stored: run.kept.stored, rows: run.kept.rows, inputCount: frame.kept.count, storedCount: run.kept.count };
  }

  /** Events in the recording (not deleted), and late ones. */
  get counts(): { inputs: number; total: number; late: number; removed: number } {
    const frame = this.last!;
    return { inputs: frame.kept.total, total: frame.inputs, late: frame.late, removed: frame.removedTotal };
  }

  /** The stats of run `which`. */
  stats(which: 0 | 1): Stats | null {
    return this.runs[which]?.frame?.stats ?? null;
  }
}
