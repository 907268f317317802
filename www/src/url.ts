// The view's state in the URL fragment, so that a link reproduces it:
// source, view, filters, time window, sort, mode, what-if options, which
// run is shown and the selection. Only what differs from the defaults is
// written.

import type { Selection } from './entries';
import type { Sort } from './list';
import type { Filter } from './model';
import { noFilter } from './model';
import type { Options } from './protocol';

export interface ViewState {
  source: string;
  view: 'timeline' | 'list';
  filter: Filter;
  from: number | null;
  to: number | null;
  sort: Sort;
  mode: 'legacy' | 'series';
  whatif: Options;
  show: 'base' | 'whatif';
  selection: Selection;
}

export const defaultState: ViewState = {
  source: '',
  view: 'timeline',
  filter: noFilter,
  from: null,
  to: null,
  sort: { column: 'last', descending: true },
  mode: 'legacy',
  whatif: {},
  show: 'base',
  selection: null,
};

const FILTER_KEYS: Record<keyof Filter, string> = { namespace: 'ns', kind: 'kind', object: 'obj', type: 'type', reason: 'reason', component: 'comp', text: 'q' };
const NUMERIC = new Set(['burst', 'qps', 'lru-cache-size', 'max-events', 'max-interval-seconds']);

export function writeState(s: ViewState): string {
  const p = new URLSearchParams();
  if (s.source) p.set('src', s.source);
  if (s.view !== 'timeline') p.set('view', s.view);
  for (const [field, key] of Object.entries(FILTER_KEYS)) {
    const value = s.filter[field as keyof Filter];
    if (value) p.set(key, value);
  }
  if (s.from !== null && s.to !== null) {
    p.set('from', new Date(s.from).toISOString());
    p.set('to', new Date(s.to).toISOString());
  }
  if (s.sort.column !== 'last' || !s.sort.descending) p.set('sort', `${s.sort.column}${s.sort.descending ? '-' : ''}`);
  if (s.mode !== 'legacy') p.set('mode', s.mode);
  for (const [key, value] of Object.entries(s.whatif)) if (value !== undefined) p.set(`w.${key}`, String(value));
  if (s.show !== 'base') p.set('show', s.show);
  if (s.selection) p.set('sel', `${s.selection.kind === 'stored' ? 's' : 'i'}${s.selection.index}`);
  return p.toString();
}

export function readState(fragment: string): ViewState {
  const p = new URLSearchParams(fragment.replace(/^#/, ''));
  const filter = { ...noFilter };
  for (const [field, key] of Object.entries(FILTER_KEYS)) filter[field as keyof Filter] = p.get(key) ?? '';
  const time = (key: string) => {
    const v = p.get(key);
    const t = v === null ? NaN : Date.parse(v);
    return Number.isFinite(t) ? t : null;
  };
  const sort = p.get('sort');
  const whatif: Record<string, string | number> = {};
  for (const [key, value] of p) {
    if (!key.startsWith('w.')) continue;
    const name = key.slice(2);
    whatif[name] = NUMERIC.has(name) ? Number(value) : value;
  }
  const sel = /^([si])(\d+)$/.exec(p.get('sel') ?? '');
  return {
    source: p.get('src') ?? '',
    view: p.get('view') === 'list' ? 'list' : 'timeline',
    filter,
    from: time('from'),
    to: time('to'),
    sort: sort ? { column: sort.replace(/-$/, '') as Sort['column'], descending: sort.endsWith('-') } : defaultState.sort,
    mode: p.get('mode') === 'series' ? 'series' : 'legacy',
    whatif: whatif as Options,
    show: p.get('show') === 'whatif' ? 'whatif' : 'base',
    selection: sel ? { kind: sel[1] === 's' ? 'stored' : 'input', index: Number(sel[2]) } : null,
  };
}
