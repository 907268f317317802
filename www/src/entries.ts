// The timeline's vertical layout: namespace and kind headers, then one entry
// per row (object and reason) that the filter keeps, minus collapsed groups.
// Also the selection model shared by the views.

import type { Kept, Layout, RunView } from './model';
import { isMark } from './model';

export type Entry =
  | { kind: 'namespace'; namespace: string; objects: number; collapsed: boolean }
  | { kind: 'kind'; namespace: string; objectKind: string; objects: number; collapsed: boolean }
  | { kind: 'row'; row: number };

/** What is selected: a stored event, or one input event (a drop, a refusal, a trap). */
export type Selection = { kind: 'stored'; index: number } | { kind: 'input'; index: number } | null;

export function sameSelection(a: Selection, b: Selection): boolean {
  return a === b || (!!a && !!b && a.kind === b.kind && a.index === b.index);
}

/** The group key of a namespace, or of a kind within it. */
export const groupKey = (namespace: string, kind?: string) => (kind === undefined ? `ns:${namespace}` : `kind:${namespace}/${kind}`);

/** Entries for the rows `kept` keeps; groups in `collapsed` show their header only. */
export function entries(layout: Layout, kept: Kept, collapsed: Set<string>): Entry[] {
  const out: Entry[] = [];
  const rows = layout.rows;
  let i = 0;
  while (i < rows.length) {
    const ns = rows[i].namespace;
    let end = i;
    while (end < rows.length && rows[end].namespace === ns) end++;
    const nsRows = [...range(i, end)].filter((r) => kept.rows[r]);
    if (nsRows.length > 0) {
      const nsCollapsed = collapsed.has(groupKey(ns));
      out.push({ kind: 'namespace', namespace: ns, objects: objects(layout, nsRows), collapsed: nsCollapsed });
      if (!nsCollapsed) {
        let j = 0;
        while (j < nsRows.length) {
          const kind = rows[nsRows[j]].kind;
          let k = j;
          while (k < nsRows.length && rows[nsRows[k]].kind === kind) k++;
          const kindRows = nsRows.slice(j, k);
          const kindCollapsed = collapsed.has(groupKey(ns, kind));
          out.push({ kind: 'kind', namespace: ns, objectKind: kind, objects: objects(layout, kindRows), collapsed: kindCollapsed });
          if (!kindCollapsed) for (const row of kindRows) out.push({ kind: 'row', row });
          j = k;
        }
      }
    }
    i = end;
  }
  return out;
}

function* range(from: number, to: number): Generator<number> {
  for (let i = from; i < to; i++) yield i;
}

function objects(layout: Layout, rows: number[]): number {
  return new Set(rows.map((r) => layout.rows[r].name)).size;
}

/** One selectable thing in a row, at its time. */
export interface Item {
  selection: NonNullable<Selection>;
  at: number;
}

/**
 * The selectable items of `row`, by time: its stored events (kept) and the
 * input events that were not written (drops, refusals, traps).
 */
export function items(layout: Layout, view: RunView, kept: Kept, row: number): Item[] {
  const out: Item[] = [];
  const { offsets, items: stored } = view.rowStored;
  for (let j = offsets[row]; j < offsets[row + 1]; j++) {
    const s = stored[j];
    if (kept.stored[s]) out.push({ selection: { kind: 'stored', index: s }, at: view.run.stored.first[s] });
  }
  const inputs = layout.rowInputs;
  for (let j = inputs.offsets[row]; j < inputs.offsets[row + 1]; j++) {
    const i = inputs.items[j];
    const act = view.acts[i];
    if (kept.inputs[i] && isMark(act)) out.push({ selection: { kind: 'input', index: i }, at: layout.facts.at[i] });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The row a selection is in (-1 if none). */
export function rowOf(layout: Layout, view: RunView, selection: Selection): number {
  if (!selection) return -1;
  return selection.kind === 'stored' ? view.storedRow[selection.index] : layout.inputRow[selection.index];
}
