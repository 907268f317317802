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

/** Entries for the rows `kept` keeps, in display order; groups in `collapsed` show their header only. */
export function entries(layout: Layout, kept: Kept, collapsed: Set<string>): Entry[] {
  const out: Entry[] = [];
  const { rows, strings } = layout;
  const order = rows.order;
  let i = 0;
  while (i < order.length) {
    const nsId = rows.namespace[order[i]];
    let end = i;
    while (end < order.length && rows.namespace[order[end]] === nsId) end++;
    const nsRows: number[] = [];
    for (let j = i; j < end; j++) if (kept.rows[order[j]]) nsRows.push(order[j]);
    if (nsRows.length > 0) {
      const ns = strings.get(nsId);
      const nsCollapsed = collapsed.has(groupKey(ns));
      out.push({ kind: 'namespace', namespace: ns, objects: objects(layout, nsRows, 0, nsRows.length), collapsed: nsCollapsed });
      if (!nsCollapsed) {
        let j = 0;
        while (j < nsRows.length) {
          const kindId = rows.kind[nsRows[j]];
          let k = j;
          while (k < nsRows.length && rows.kind[nsRows[k]] === kindId) k++;
          const kind = strings.get(kindId);
          const kindCollapsed = collapsed.has(groupKey(ns, kind));
          out.push({ kind: 'kind', namespace: ns, objectKind: kind, objects: objects(layout, nsRows, j, k), collapsed: kindCollapsed });
          if (!kindCollapsed) for (let r = j; r < k; r++) out.push({ kind: 'row', row: nsRows[r] });
          j = k;
        }
      }
    }
    i = end;
  }
  return out;
}

/** Distinct objects among `rows[from..to)` (rows of one object are next to each other). */
function objects(layout: Layout, rows: number[], from: number, to: number): number {
  const { kind, name } = layout.rows;
  let n = 0;
  for (let j = from; j < to; j++) if (j === from || kind[rows[j]] !== kind[rows[j - 1]] || name[rows[j]] !== name[rows[j - 1]]) n++;
  return n;
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
  for (let j = offsets[row] ?? 0; j < (offsets[row + 1] ?? 0); j++) {
    const s = stored[j];
    if (kept.stored[s]) out.push({ selection: { kind: 'stored', index: s }, at: view.run.stored.first[s] });
  }
  const inputs = layout.rowInputs;
  for (let j = inputs.offsets[row]; j < inputs.offsets[row + 1]; j++) {
    const i = inputs.items[j];
    const act = view.acts[i];
    if (kept.inputs[i] && !layout.facts.removed[i] && isMark(act)) out.push({ selection: { kind: 'input', index: i }, at: layout.facts.at[i] });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The row a selection is in (-1 if none). */
export function rowOf(layout: Layout, view: RunView, selection: Selection): number {
  if (!selection) return -1;
  return selection.kind === 'stored' ? view.storedRow[selection.index] : layout.facts.row[selection.index];
}
