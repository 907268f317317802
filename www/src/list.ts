// The list view: the stored events as `kubectl get events -A` lists them
// (NAMESPACE, LAST SEEN, TYPE, REASON, OBJECT, COUNT, MESSAGE) plus FIRST
// SEEN and SOURCE, sortable by any column. Only the rows in view exist in
// the DOM; the keyboard moves the selection (arrows, Page keys, Home, End).

import type { Selection } from './entries';
import { count, escapeHtml as escape, humanDuration, utc } from './format';
import type { Kept, RunView } from './model';

const ROW = 24;

/** hush-web's "no instant" (i64::MIN). */
const NONE = -(2n ** 63n);

export type Column = 'namespace' | 'last' | 'type' | 'reason' | 'object' | 'count' | 'message' | 'first' | 'source';

const COLUMNS: { id: Column; title: string }[] = [
  { id: 'namespace', title: 'NAMESPACE' },
  { id: 'last', title: 'LAST SEEN' },
  { id: 'type', title: 'TYPE' },
  { id: 'reason', title: 'REASON' },
  { id: 'object', title: 'OBJECT' },
  { id: 'count', title: 'COUNT' },
  { id: 'message', title: 'MESSAGE' },
  { id: 'first', title: 'FIRST SEEN' },
  { id: 'source', title: 'SOURCE' },
];

export interface Sort {
  column: Column;
  descending: boolean;
}

export class List {
  private head: HTMLElement;
  private body: HTMLElement;
  private spacer: HTMLElement;
  private rowsBox: HTMLElement;
  private view: RunView | null = null;
  private order: Uint32Array = new Uint32Array(0);
  private selected = -1;
  /** The instant ages are counted from, ns (the recording's end, or now when live). */
  private now = 0n;

  constructor(private element: HTMLElement, public sort: Sort, private events: { select(s: Selection): void; sort(s: Sort): void }) {
    element.innerHTML = `<div class="list-head" role="row">${COLUMNS.map(
      (c) => `<div role="columnheader" class="c-${c.id}" aria-sort="none"><button type="button" data-column="${c.id}">${c.title}<span class="sort-mark" aria-hidden="true"></span></button></div>`,
    ).join('')}</div><div class="list-body" tabindex="-1"><div class="list-spacer"><div class="list-rows" role="rowgroup"></div></div></div>`;
    this.head = element.querySelector('.list-head')!;
    this.body = element.querySelector('.list-body')!;
    this.spacer = element.querySelector('.list-spacer')!;
    this.rowsBox = element.querySelector('.list-rows')!;
    this.head.addEventListener('click', (e) => {
      const column = (e.target as HTMLElement).closest('button')?.dataset.column as Column | undefined;
      if (!column) return;
      this.sort = { column, descending: this.sort.column === column ? !this.sort.descending : column === 'last' || column === 'count' };
      this.showSort();
      // The worker sorts (the order comes back with the next frame).
      this.events.sort(this.sort);
    });
    this.body.addEventListener('scroll', () => this.render());
    new ResizeObserver(() => this.render()).observe(this.body);
    this.rowsBox.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('[data-stored]');
      if (row) this.choose(Number(row.dataset.stored));
    });
    element.addEventListener('keydown', (e) => this.key(e));
  }

  /** Shows the kept stored events of `view` in its order (the worker's, by this list's sort). */
  setData(view: RunView, _kept: Kept, now: bigint, selection: Selection): void {
    this.view = view;
    this.now = now;
    this.order = view.order;
    this.selected = selection?.kind === 'stored' ? selection.index : -1;
    this.refresh();
  }

  setSelection(selection: Selection): void {
    this.selected = selection?.kind === 'stored' ? selection.index : -1;
    this.reveal();
    this.render();
  }

  /** The stored events in the order shown. */
  get shown(): Uint32Array {
    return this.order;
  }

  private showSort(): void {
    for (const h of this.head.querySelectorAll<HTMLElement>('[role=columnheader]')) {
      const column = h.querySelector('button')!.dataset.column;
      h.setAttribute('aria-sort', column === this.sort.column ? (this.sort.descending ? 'descending' : 'ascending') : 'none');
      h.querySelector('.sort-mark')!.textContent = column === this.sort.column ? (this.sort.descending ? ' ▼' : ' ▲') : '';
    }
  }

  private refresh(): void {
    if (!this.view) return;
    this.showSort();
    this.element.setAttribute('aria-rowcount', String(this.order.length + 1));
    this.spacer.style.height = `${this.order.length * ROW}px`;
    this.render();
  }

  private render(): void {
    const view = this.view;
    if (!view) return;
    const st = view.run.stored;
    const first = Math.floor(this.body.scrollTop / ROW);
    const visible = Math.ceil(this.body.clientHeight / ROW) + 2;
    const last = Math.min(this.order.length, first + visible);
    this.rowsBox.style.transform = `translateY(${first * ROW}px)`;
    const html: string[] = [];
    for (let r = first; r < last; r++) {
      const i = this.order[r];
      const str = (ids: Uint32Array) => escape(st.strings.get(ids[i]));
      const type = st.strings.get(st.type[i]);
      html.push(
        `<div role="row" class="list-row${i === this.selected ? ' selected' : ''}" aria-rowindex="${r + 2}" aria-selected="${i === this.selected}" data-stored="${i}">` +
          `<div role="gridcell" class="c-namespace">${str(st.eventNamespace)}</div>` +
          `<div role="gridcell" class="c-last" title="${utc(st.last[i])}">${this.age(st.lastNanos[i])}</div>` +
          `<div role="gridcell" class="c-type"><span class="type type-${type === 'Warning' ? 'warning' : 'normal'}">${escape(type)}</span></div>` +
          `<div role="gridcell" class="c-reason">${str(st.reason)}</div>` +
          `<div role="gridcell" class="c-object">${escape(st.strings.get(st.kind[i]).toLowerCase())}/${str(st.name)}</div>` +
          `<div role="gridcell" class="c-count">${count(st.count[i])}</div>` +
          `<div role="gridcell" class="c-message" title="${str(st.message)}">${str(st.message)}</div>` +
          `<div role="gridcell" class="c-first" title="${utc(st.first[i])}">${this.age(st.firstNanos[i])}</div>` +
          `<div role="gridcell" class="c-source">${str(st.component)}</div>` +
          `</div>`,
      );
    }
    this.rowsBox.innerHTML = html.join('');
  }

  /** kubectl's age of an instant (ns), `<unknown>` when the event has none. */
  private age(at: bigint): string {
    return at === NONE ? '&lt;unknown&gt;' : humanDuration(Number((this.now - at) / 1_000_000n));
  }

  private choose(stored: number): void {
    this.selected = stored;
    this.reveal();
    this.render();
    this.events.select(stored >= 0 ? { kind: 'stored', index: stored } : null);
  }

  private reveal(): void {
    const r = this.order.indexOf(this.selected);
    if (r < 0) return;
    const top = r * ROW;
    if (top < this.body.scrollTop) this.body.scrollTop = top;
    else if (top + ROW > this.body.scrollTop + this.body.clientHeight) this.body.scrollTop = top + ROW - this.body.clientHeight;
  }

  private key(e: KeyboardEvent): void {
    if ((e.target as HTMLElement).closest('.list-head')) return;
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW) - 1);
    const r = this.order.indexOf(this.selected);
    const moves: Record<string, number> = { ArrowDown: r + 1, ArrowUp: r - 1, PageDown: r + page, PageUp: r - page, Home: 0, End: this.order.length - 1 };
    if (e.key === 'Escape') {
      e.preventDefault();
      return this.choose(-1);
    }
    if (!(e.key in moves) || this.order.length === 0) return;
    e.preventDefault();
    const next = r < 0 && e.key !== 'End' ? 0 : Math.min(this.order.length - 1, Math.max(0, moves[e.key]));
    this.choose(this.order[next]);
  }
}
