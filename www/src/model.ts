// The dashboard's data model as the views read it: the events (one entry
// per column, typed arrays), the rows (one per involved object and reason),
// each run's decisions and stored events, and the indexes between them
// (CSR groups: offsets + items). The worker builds and sends them (see
// mirror.ts for how a frame is applied); nothing here is one JavaScript
// object per event.

import type { BadRecord, Groups, Histogram, Stats } from './protocol';

/** Decisions, as the runs' `labels` name them. */
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

/** The `Act` of each label. */
export function actsOf(labels: string[]): Act[] {
  return labels.map((l) => ACTS[l] ?? Act.Other);
}

/**
 * Whether an input event with this decision is a mark of its own on its row
 * (selectable, and not drawn as a written occurrence): it was not
 * correlated into a write, by a spam drop, a refusal or a trap.
 */
export function isMark(act: Act): boolean {
  return act === Act.Drop || act === Act.Refuse || act === Act.Trap;
}

/** The strings the worker numbered, decoded from UTF-8 only when shown. */
export class Strings {
  private bytes = new Uint8Array(1 << 16);
  private used = 0;
  private ends = new Uint32Array(1024);
  private count = 0;
  private decoded: (string | undefined)[] = [];
  private decoder = new TextDecoder();

  get length(): number {
    return this.count;
  }

  /** Appends strings numbered `from..` (`ends` count from the start of `bytes`). */
  append(from: number, bytes: Uint8Array, ends: Uint32Array): void {
    if (from !== this.count) throw new Error(`strings: got ${from}, have ${this.count}`);
    this.bytes = reserve(this.bytes, this.used + bytes.length);
    this.bytes.set(bytes, this.used);
    this.ends = reserve(this.ends, this.count + ends.length);
    for (let i = 0; i < ends.length; i++) this.ends[this.count + i] = this.used + ends[i];
    this.used += bytes.length;
    this.count += ends.length;
  }

  /** String `id` ("" if there is none). */
  get(id: number): string {
    let s = this.decoded[id];
    if (s === undefined) {
      if (!(id >= 0 && id < this.count)) return '';
      s = this.decoder.decode(this.bytes.subarray(id === 0 ? 0 : this.ends[id - 1], this.ends[id]));
      this.decoded[id] = s;
    }
    return s;
  }
}

type Typed = Uint8Array | Uint32Array | Int32Array | Float64Array | BigInt64Array;

/**
 * `array`, or a copy with room for `n` entries and a quarter more (at least
 * twice as large) when it has fewer: a live view that grows copies its
 * columns rarely.
 */
export function reserve<T extends Typed>(array: T, n: number): T {
  if (n <= array.length) return array;
  const grown = new (array.constructor as new (n: number) => T)(Math.max(Math.ceil(n * 1.25), array.length * 2, 16));
  (grown as Uint8Array).set(array as Uint8Array);
  return grown;
}

/** One column per event; every array has `length` entries. */
export interface Facts {
  length: number;
  /** When it was observed, ms. */
  at: Float64Array;
  namespace: Uint32Array;
  kind: Uint32Array;
  name: Uint32Array;
  reason: Uint32Array;
  type: Uint32Array;
  component: Uint32Array;
  message: Uint32Array;
  row: Uint32Array;
  /** 1: observed before an event already correlated (correlated late, on arrival). */
  late: Uint8Array;
  /** 1: its Event was deleted. */
  removed: Uint8Array;
}

/** The rows (one per object and reason), by number, and the order they are shown in. */
export interface RowTable {
  count: number;
  namespace: Uint32Array;
  kind: Uint32Array;
  name: Uint32Array;
  reason: Uint32Array;
  /** Row numbers in display order: by namespace, kind, object, then first seen. */
  order: Uint32Array;
  /** Per row: 1 on its object's first row in that order. */
  first: Uint8Array;
}

/** One timeline row, its strings decoded. */
export interface Row {
  namespace: string;
  kind: string;
  name: string;
  reason: string;
  /** Whether it is the object's first row (the one that shows its name). */
  first: boolean;
}

/** What is run-independent: the events and their rows. */
export interface Layout {
  facts: Facts;
  strings: Strings;
  rows: RowTable;
  /** Events by row, by time. */
  rowInputs: Groups;
  /** The number of the string "Warning" (-1: none). */
  warning: number;
  errors: BadRecord[];
}

/** Row `r` of a layout, decoded. */
export function row(layout: Layout, r: number): Row {
  const { rows, strings } = layout;
  return {
    namespace: strings.get(rows.namespace[r]),
    kind: strings.get(rows.kind[r]),
    name: strings.get(rows.name[r]),
    reason: strings.get(rows.reason[r]),
    first: rows.first[r] === 1,
  };
}

/** A run's stored events as columns (strings into the layout's table). */
export interface StoredColumns {
  namespace: Uint32Array;
  kind: Uint32Array;
  name: Uint32Array;
  reason: Uint32Array;
  type: Uint32Array;
  component: Uint32Array;
  message: Uint32Array;
  eventNamespace: Uint32Array;
  eventName: Uint32Array;
  first: Float64Array;
  last: Float64Array;
  /** The same instants to the nanosecond (ages and order are exact). */
  firstNanos: BigInt64Array;
  lastNanos: BigInt64Array;
  count: Int32Array;
  series: Uint8Array;
  /** Its row (-1: none). */
  row: Int32Array;
  strings: Strings;
}

/** A run: per event its decision, the stored events, the timer writes. */
export interface RunColumns {
  mode: 'legacy' | 'series';
  labels: string[];
  stats: Stats;
  action: Uint8Array;
  rule: Uint8Array;
  tokens: Float64Array;
  target: Int32Array;
  ticks: { at: Float64Array; kind: Uint8Array; target: Int32Array };
  stored: StoredColumns;
}

/** One run seen through the layout: decisions as `Act`s, its indexes by row, what the filter keeps. */
export interface RunView {
  run: RunColumns;
  acts: Uint8Array;
  rules: string[];
  /** Row of each stored event (-1: an object no input names). */
  storedRow: Int32Array;
  rowStored: Groups;
  /** Timer writes by the row of the stored event they wrote. */
  rowTicks: Groups;
  /** The kept stored events in the list's order. */
  order: Uint32Array;
  /** The time it spans (ms). */
  from: number;
  to: number;
  /** When the last stored event was last seen (ns): what ages count from, as in `hushd replay --output table`. */
  lastSeen: bigint;
  /** Stored events whose events were not all deleted. */
  storedTotal: number;
  /** The overview's bars for what the filter keeps. */
  histogram: Histogram;
}

/** What the filter keeps of a layout and a run. */
export interface Kept {
  inputs: Uint8Array;
  stored: Uint8Array;
  rows: Uint8Array;
  inputCount: number;
  storedCount: number;
}

export type { Filter } from './protocol';

export const noFilter = { namespace: '', kind: '', object: '', type: '', reason: '', component: '', text: '' };

/** A row as people write it: `pod/web-1 -n shop · BackOff`. */
export function rowName(r: Row): string {
  return `${r.kind.toLowerCase()}/${r.name}${r.namespace ? ` -n ${r.namespace}` : ''} · ${r.reason}`;
}
