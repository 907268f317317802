// The dashboard's data model, built from the worker's columns: rows (one per
// involved object and reason, grouped by namespace and kind), the input
// events and stored events of each row sorted by time, and what a filter
// keeps. Indexes are typed arrays in CSR form (offsets + items), so 100,000
// events cost a few arrays, not 100,000 objects.

import type { BadRecord, Facts, RunColumns, StringColumns } from './protocol';

/** Decisions, as the columns' `labels` name them. */
export const enum Act {
  Create,
  Patch,
  Drop,
  Absorb,
  Refuse,
  /** The correlator component trapped on the event (only component hosts report it). */
  Trap,
  Other,
}

const ACTS: Record<string, Act> = { create: Act.Create, patch: Act.Patch, drop: Act.Drop, absorb: Act.Absorb, refuse: Act.Refuse, trap: Act.Trap };

/**
 * Whether an input event with this decision is a mark of its own on its row
 * (selectable, and not drawn as a written occurrence): it was not
 * correlated into a write, by a spam drop, a refusal or a trap.
 */
export function isMark(act: Act): boolean {
  return act === Act.Drop || act === Act.Refuse || act === Act.Trap;
}

/** Items grouped by key: `items[offsets[k] .. offsets[k + 1]]`. */
export interface Groups {
  offsets: Uint32Array;
  items: Uint32Array;
}

/** Groups `n` items by `keyOf` (keys `0..keys`), each group sorted by `order`. */
export function group(n: number, keys: number, keyOf: (i: number) => number, order: (i: number) => number): Groups {
  const offsets = new Uint32Array(keys + 1);
  for (let i = 0; i < n; i++) {
    const k = keyOf(i);
    if (k >= 0) offsets[k + 1]++;
  }
  for (let k = 0; k < keys; k++) offsets[k + 1] += offsets[k];
  const fill = offsets.slice(0, keys);
  const items = new Uint32Array(offsets[keys]);
  for (let i = 0; i < n; i++) {
    const k = keyOf(i);
    if (k >= 0) items[fill[k]++] = i;
  }
  for (let k = 0; k < keys; k++) {
    const part = items.subarray(offsets[k], offsets[k + 1]);
    let sorted = true;
    for (let j = 1; j < part.length && sorted; j++) sorted = order(part[j - 1]) <= order(part[j]);
    if (!sorted) part.sort((a, b) => order(a) - order(b) || a - b);
  }
  return { offsets, items };
}

/** One timeline row: an object and one of its reasons. */
export interface Row {
  namespace: string;
  kind: string;
  name: string;
  reason: string;
  /** Whether it is the object's first row (the one that shows its name). */
  first: boolean;
}

/** What is run-independent: the rows and the input events in them. */
export interface Layout {
  facts: Facts;
  errors: BadRecord[];
  rows: Row[];
  /** Row of each input event. */
  inputRow: Int32Array;
  /** Input events by row, by time. */
  rowInputs: Groups;
  /** Row of an object and reason, by `namespace\0kind\0name\0reason`. */
  rowOf: Map<string, number>;
  /** The time the recording spans, ms. */
  from: number;
  to: number;
}

const key = (...parts: string[]) => parts.join('\0');

/** The rows of a recording, sorted by namespace, kind, object, then reason as first seen. */
export function layout(facts: Facts, errors: BadRecord[]): Layout {
  const s = facts.strings;
  const n = facts.at.length;
  const S = s.length;
  // Distinct (namespace, kind, name, reason) id tuples, found with two
  // number-keyed maps (no string per event): object part, then kind and reason.
  const tuples = new Map<number, Map<number, number>>();
  const firsts: number[] = [];
  const found: number[] = [];
  const tupleOf = new Int32Array(n);
  let from = Infinity;
  let to = -Infinity;
  for (let i = 0; i < n; i++) {
    const k1 = facts.name[i] * S + facts.namespace[i];
    const k2 = facts.kind[i] * S + facts.reason[i];
    let inner = tuples.get(k1);
    if (!inner) tuples.set(k1, (inner = new Map()));
    let t = inner.get(k2);
    if (t === undefined) {
      t = firsts.length;
      inner.set(k2, t);
      firsts.push(facts.at[i]);
      found.push(i);
    }
    tupleOf[i] = t;
    const at = facts.at[i];
    if (at < from) from = at;
    if (at > to) to = at;
  }
  const rows: (Row & { tuple: number })[] = found.map((i, tuple) => ({
    namespace: s[facts.namespace[i]], kind: s[facts.kind[i]], name: s[facts.name[i]], reason: s[facts.reason[i]], first: false, tuple,
  }));
  const order = new Intl.Collator('en', { numeric: true }).compare;
  rows.sort((a, b) => order(a.namespace, b.namespace) || order(a.kind, b.kind) || order(a.name, b.name) || firsts[a.tuple] - firsts[b.tuple]);
  const rowOfTuple = new Int32Array(rows.length);
  const rowOf = new Map<string, number>();
  rows.forEach((r, i) => {
    rowOfTuple[r.tuple] = i;
    rowOf.set(key(r.namespace, r.kind, r.name, r.reason), i);
    const prev = rows[i - 1];
    r.first = !prev || prev.namespace !== r.namespace || prev.kind !== r.kind || prev.name !== r.name;
  });
  const inputRow = new Int32Array(n);
  for (let i = 0; i < n; i++) inputRow[i] = rowOfTuple[tupleOf[i]];
  const rowInputs = group(n, rows.length, (i) => inputRow[i], (i) => facts.at[i]);
  if (!Number.isFinite(from)) from = to = Date.now();
  return { facts, errors, rows: rows.map(({ tuple: _, ...r }) => r), inputRow, rowInputs, rowOf, from, to };
}

/** One run seen through a layout: decisions as `Act`s, stored events and timer writes by row. */
export interface RunView {
  run: RunColumns;
  acts: Uint8Array;
  rules: string[];
  /** Row of each stored event (-1: an object no input names). */
  storedRow: Int32Array;
  rowStored: Groups;
  /** Timer writes by the row of the stored event they wrote. */
  rowTicks: Groups;
  /** Input events by the stored event they went into. */
  storedInputs: Groups;
  /** The latest instant in the run (ms). */
  to: number;
  /** When the last stored event was last seen (ns): what ages count from, as in `hushd replay --output table`. */
  lastSeen: bigint;
}

export function runView(layout: Layout, run: RunColumns): RunView {
  const acts = new Uint8Array(run.action.length);
  const actOfLabel = run.labels.map((l) => ACTS[l] ?? Act.Other);
  for (let i = 0; i < acts.length; i++) acts[i] = actOfLabel[run.action[i]];
  const st = run.stored;
  const s = st.strings;
  const storedRow = new Int32Array(st.count.length);
  let to = layout.to;
  let lastSeen = BigInt(Math.round(to)) * 1_000_000n;
  for (let i = 0; i < storedRow.length; i++) {
    storedRow[i] = layout.rowOf.get(key(s[st.namespace[i]], s[st.kind[i]], s[st.name[i]], s[st.reason[i]])) ?? -1;
    if (i === 0 || st.lastNanos[i] > lastSeen) lastSeen = st.lastNanos[i];
    if (st.last[i] > to) to = st.last[i];
  }
  const rows = layout.rows.length;
  const rowStored = group(storedRow.length, rows, (i) => storedRow[i], (i) => st.first[i]);
  const ticks = run.ticks;
  const rowTicks = group(ticks.at.length, rows, (i) => (ticks.target[i] >= 0 ? storedRow[ticks.target[i]] : -1), (i) => ticks.at[i]);
  for (const at of ticks.at) if (at > to) to = at;
  const storedInputs = group(run.target.length, storedRow.length, (i) => run.target[i], (i) => layout.facts.at[i]);
  return { run, acts, rules: run.labels, storedRow, rowStored, rowTicks, storedInputs, to, lastSeen };
}

/** The filters of the view; empty strings keep everything. */
export interface Filter {
  namespace: string;
  kind: string;
  object: string;
  type: string;
  reason: string;
  component: string;
  text: string;
}

export const noFilter: Filter = { namespace: '', kind: '', object: '', type: '', reason: '', component: '', text: '' };

/** Which rows of `c` (input events or stored events) pass `f`: a predicate compiled against its string table. */
export function compile(f: Filter, c: StringColumns): (i: number) => boolean {
  const s = c.strings;
  const exact = (want: string) => (want === '' ? null : new Set(s.flatMap((v, id) => (v === want ? [id] : []))));
  const contains = (want: string) => {
    if (want === '') return null;
    const needle = want.toLowerCase();
    const ids = new Uint8Array(s.length);
    s.forEach((v, id) => (ids[id] = v.toLowerCase().includes(needle) ? 1 : 0));
    return ids;
  };
  const ns = exact(f.namespace);
  const kind = exact(f.kind);
  const type = exact(f.type);
  const reason = exact(f.reason);
  const component = exact(f.component);
  const object = contains(f.object);
  const text = contains(f.text);
  return (i) =>
    (!ns || ns.has(c.namespace[i])) &&
    (!kind || kind.has(c.kind[i])) &&
    (!type || type.has(c.type[i])) &&
    (!reason || reason.has(c.reason[i])) &&
    (!component || component.has(c.component[i])) &&
    (!object || object[c.name[i]] === 1) &&
    (!text ||
      text[c.message[i]] === 1 ||
      text[c.reason[i]] === 1 ||
      text[c.name[i]] === 1 ||
      text[c.component[i]] === 1 ||
      text[c.namespace[i]] === 1 ||
      text[c.kind[i]] === 1);
}

/** What a filter keeps of a layout and a run. */
export interface Kept {
  inputs: Uint8Array;
  stored: Uint8Array;
  rows: Uint8Array;
  inputCount: number;
  storedCount: number;
}

export function keep(layout: Layout, view: RunView, f: Filter): Kept {
  const n = layout.facts.at.length;
  const inputs = new Uint8Array(n);
  const rows = new Uint8Array(layout.rows.length);
  const passInput = compile(f, layout.facts);
  let inputCount = 0;
  for (let i = 0; i < n; i++)
    if (passInput(i)) {
      inputs[i] = 1;
      rows[layout.inputRow[i]] = 1;
      inputCount++;
    }
  const st = view.run.stored;
  const stored = new Uint8Array(st.count.length);
  const passStored = compile(f, st);
  let storedCount = 0;
  for (let i = 0; i < stored.length; i++)
    if (passStored(i)) {
      stored[i] = 1;
      storedCount++;
      if (view.storedRow[i] >= 0) rows[view.storedRow[i]] = 1;
    }
  return { inputs, stored, rows, inputCount, storedCount };
}

/** The distinct values of a facts column, most frequent first, for a filter's choices. */
export function choices(facts: Facts, column: keyof Omit<Facts, 'strings' | 'at' | 'start' | 'end'>): string[] {
  const counts = new Map<number, number>();
  for (const id of facts[column]) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts.entries()]
    .filter(([id]) => facts.strings[id] !== '')
    .sort((a, b) => b[1] - a[1] || facts.strings[a[0]].localeCompare(facts.strings[b[0]]))
    .map(([id]) => facts.strings[id]);
}

/** How a row (object · reason) fared in a run. */
export interface Fates {
  /** Rows with input events and no stored event: the API server never heard of them. */
  silenced: Set<string>;
  /** Rows whose latest occurrence was dropped: the stored event is out of date. */
  stale: Set<string>;
}

/** A row as people write it: `pod/web-1 -n shop · BackOff`. */
export function rowName(r: Row): string {
  return `${r.kind.toLowerCase()}/${r.name}${r.namespace ? ` -n ${r.namespace}` : ''} · ${r.reason}`;
}

export function fates(layout: Layout, view: RunView): Fates {
  const silenced = new Set<string>();
  const stale = new Set<string>();
  const { offsets, items } = layout.rowInputs;
  layout.rows.forEach((r, row) => {
    if (offsets[row] === offsets[row + 1]) return;
    if (view.rowStored.offsets[row] === view.rowStored.offsets[row + 1]) silenced.add(rowName(r));
    else if (view.acts[items[offsets[row + 1] - 1]] === Act.Drop) stale.add(rowName(r));
  });
  return { silenced, stale };
}
