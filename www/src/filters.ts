// The filter bar: namespace, kind, type, reason and reporting component
// (choices from the recording, most frequent first), object and free text.
// Changes apply as you type; Escape in a field clears it.

import { count, escapeHtml } from './format';
import { type Filter, noFilter } from './model';
import type { Frame } from './protocol';

const SELECTS: { field: keyof Filter; label: string; column: 'namespace' | 'kind' | 'type' | 'reason' | 'component' }[] = [
  { field: 'namespace', label: 'Namespace', column: 'namespace' },
  { field: 'kind', label: 'Kind', column: 'kind' },
  { field: 'type', label: 'Type', column: 'type' },
  { field: 'reason', label: 'Reason', column: 'reason' },
  { field: 'component', label: 'Component', column: 'component' },
];

export class Filters {
  private form: HTMLFormElement;
  private counts: HTMLElement;
  private timer = 0;

  constructor(element: HTMLElement, private onChange: (f: Filter) => void) {
    element.innerHTML = `<form class="filter-form" role="search" aria-label="Filter events">
      ${SELECTS.map((s) => `<label><span>${s.label}</span><select name="${s.field}"><option value="">all</option></select></label>`).join('')}
      <label><span>Object</span><input name="object" type="search" placeholder="name contains…" spellcheck="false"></label>
      <label class="grow"><span>Search</span><input name="text" type="search" placeholder="message, reason, object, component…" spellcheck="false"></label>
      <button type="reset">Clear</button>
      <output class="counts" aria-live="polite"></output></form>`;
    this.form = element.querySelector('form')!;
    this.counts = element.querySelector('.counts')!;
    this.form.addEventListener('input', (e) => {
      clearTimeout(this.timer);
      const delay = (e.target as HTMLElement).tagName === 'INPUT' ? 150 : 0;
      this.timer = window.setTimeout(() => this.onChange(this.value), delay);
    });
    this.form.addEventListener('submit', (e) => e.preventDefault());
    this.form.addEventListener('reset', (e) => {
      e.preventDefault();
      this.set(noFilter);
      this.onChange(this.value);
    });
  }

  get value(): Filter {
    const v = (name: keyof Filter) => (this.form.elements.namedItem(name) as HTMLInputElement).value.trim();
    return { namespace: v('namespace'), kind: v('kind'), object: v('object'), type: v('type'), reason: v('reason'), component: v('component'), text: v('text') };
  }

  set(f: Filter): void {
    for (const [name, value] of Object.entries(f)) {
      const field = this.form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
      if (field instanceof HTMLSelectElement && value && ![...field.options].some((o) => o.value === value)) field.add(new Option(value, value));
      field.value = value;
    }
  }

  /** Fills the choices (the recording's values, most frequent first), keeping `current` selectable. */
  setChoices(choices: NonNullable<Frame['choices']>, current: Filter): void {
    for (const s of SELECTS) {
      const select = this.form.elements.namedItem(s.field) as HTMLSelectElement;
      const values = [...choices[s.column]];
      const want = current[s.field];
      if (want && !values.includes(want)) values.unshift(want);
      select.innerHTML = `<option value="">all</option>${values.map((v) => `<option>${escapeHtml(v)}</option>`).join('')}`;
      select.value = want;
    }
  }

  showCounts(inputs: number, allInputs: number, stored: number, allStored: number): void {
    const of = (n: number, all: number) => (n === all ? count(n) : `${count(n)} of ${count(all)}`);
    this.counts.textContent = `${of(inputs, allInputs)} events · ${of(stored, allStored)} stored`;
  }
}
