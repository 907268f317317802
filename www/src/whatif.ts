// The what-if panel: the correlator's knobs (burst, refill, max events,
// window, cache size, spam key), and the figures before (client-go's
// defaults) and after (these knobs): the worker correlates the whole
// recording once with the new knobs, then goes on with each new event.

import { count, delta, escapeHtml } from './format';
import type { FatesFrame, Options, RowList, Stats } from './protocol';

/** The knobs, as the panel shows them (refill as seconds per token). */
export interface Knobs {
  burst: number;
  refillSeconds: number;
  maxEvents: number;
  windowSeconds: number;
  cacheSize: number;
  spamKey: 'source-object-type' | 'source-object-type-reason';
}

/** The knobs of a set of options (client-go's defaults where unset). */
export function knobsOf(o: Options, defaults: Required<Options>): Knobs {
  const qps = o.qps ?? defaults.qps;
  return {
    burst: o.burst ?? defaults.burst,
    refillSeconds: qps > 0 ? Math.round(1 / qps) : 0,
    maxEvents: o['max-events'] ?? defaults['max-events'],
    windowSeconds: o['max-interval-seconds'] ?? defaults['max-interval-seconds'],
    cacheSize: o['lru-cache-size'] ?? defaults['lru-cache-size'],
    spamKey: o['spam-key'] ?? defaults['spam-key'],
  };
}

/** The options of some knobs: only what differs from the defaults. */
export function optionsOf(k: Knobs, defaults: Required<Options>): Options {
  const o: Options = {};
  if (k.burst !== defaults.burst) o.burst = k.burst;
  const qps = k.refillSeconds > 0 ? 1 / k.refillSeconds : 0;
  if (Math.fround(qps) !== Math.fround(defaults.qps)) o.qps = qps;
  if (k.maxEvents !== defaults['max-events']) o['max-events'] = k.maxEvents;
  if (k.windowSeconds !== defaults['max-interval-seconds']) o['max-interval-seconds'] = k.windowSeconds;
  if (k.cacheSize !== defaults['lru-cache-size']) o['lru-cache-size'] = k.cacheSize;
  if (k.spamKey !== defaults['spam-key']) o['spam-key'] = k.spamKey;
  return o;
}

/** A run's figures for the panel. */
export interface Figures {
  stats: Stats;
  /** Stored events. */
  stored: number;
}

const KNOBS: { id: keyof Knobs; label: string; min: number; max: number; step: number; help: string }[] = [
  { id: 'burst', label: 'Burst', min: 1, max: 200, step: 1, help: 'spam filter bucket size (client-go: 25)' },
  { id: 'refillSeconds', label: 'Refill, s per token', min: 1, max: 3600, step: 1, help: 'one token back every N seconds (client-go: 300, qps 1/300)' },
  { id: 'maxEvents', label: 'Max events', min: 1, max: 100, step: 1, help: 'distinct messages before similar events aggregate (client-go: 10)' },
  { id: 'windowSeconds', label: 'Max interval, s', min: 1, max: 7200, step: 1, help: 'aggregation window (client-go: 600)' },
  { id: 'cacheSize', label: 'Cache size', min: 1, max: 65536, step: 1, help: 'entries per LRU cache (client-go: 4096)' },
];

export class WhatIf {
  private form: HTMLFormElement;
  private figures: HTMLElement;

  constructor(element: HTMLElement, private defaults: Required<Options>, private onChange: (k: Knobs) => void, onShow: (which: 'base' | 'whatif') => void) {
    element.innerHTML = `<h2>What if…</h2>
      <p class="hint">Re-correlate the loaded events with other settings, in this browser, by the same core.</p>
      <form class="knobs" autocomplete="off">
        ${KNOBS.map(
          (k) => `<label title="${escapeHtml(k.help)}"><span>${k.label}</span>
            <input type="range" name="${k.id}-range" min="${k.min}" max="${Math.min(k.max, k.id === 'cacheSize' ? 8192 : k.max)}" step="${k.step}" aria-label="${k.label} (slider)">
            <input type="number" name="${k.id}" min="${k.min}" max="${k.max}" step="${k.step}" required></label>`,
        ).join('')}
        <label title="client-go's spam key has no reason: a chatty reason starves the others"><span>Spam key</span>
          <select name="spamKey"><option value="source-object-type">source + object + type (client-go)</option><option value="source-object-type-reason">… + reason</option></select></label>
        <div class="knob-actions"><button type="reset">client-go defaults</button>
          <fieldset class="show"><legend>Show</legend>
            <label><input type="radio" name="show" value="base" checked> before</label>
            <label><input type="radio" name="show" value="whatif"> after</label></fieldset></div>
      </form>
      <div class="figures" aria-live="polite"></div>`;
    this.form = element.querySelector('form')!;
    this.figures = element.querySelector('.figures')!;
    this.form.addEventListener('input', (e) => {
      const input = e.target as HTMLInputElement;
      if (input.name === 'show') return onShow(input.value as 'base' | 'whatif');
      if (input.name.endsWith('-range')) (this.form.elements.namedItem(input.name.slice(0, -6)) as HTMLInputElement).value = input.value;
      else if (input.type === 'number') {
        const range = this.form.elements.namedItem(`${input.name}-range`) as HTMLInputElement | null;
        if (range) range.value = input.value;
      }
      if (this.form.checkValidity()) this.onChange(this.knobs);
    });
    this.form.addEventListener('reset', (e) => {
      e.preventDefault();
      this.knobs = knobsOf({}, this.defaults);
      this.onChange(this.knobs);
    });
  }

  get knobs(): Knobs {
    const v = (name: string) => (this.form.elements.namedItem(name) as HTMLInputElement).value;
    return {
      burst: Number(v('burst')),
      refillSeconds: Number(v('refillSeconds')),
      maxEvents: Number(v('maxEvents')),
      windowSeconds: Number(v('windowSeconds')),
      cacheSize: Number(v('cacheSize')),
      spamKey: v('spamKey') as Knobs['spamKey'],
    };
  }

  set knobs(k: Knobs) {
    for (const [name, value] of Object.entries(k)) {
      (this.form.elements.namedItem(name) as HTMLInputElement).value = String(value);
      const range = this.form.elements.namedItem(`${name}-range`) as HTMLInputElement | null;
      if (range) range.value = String(value);
    }
  }

  set showing(which: 'base' | 'whatif') {
    (this.form.querySelector(`input[name=show][value=${which}]`) as HTMLInputElement).checked = true;
  }

  /** Shows the figures of both runs, or a note while the after run is computed. */
  show(before: Figures, after: Figures | null, fates: FatesFrame | undefined, rowNames: (rows: Uint32Array) => string[], busy: boolean): void {
    this.figures.classList.toggle('busy', busy);
    if (!after) {
      this.figures.innerHTML = '<p class="hint">Correlating…</p>';
      return;
    }
    const b = before.stats;
    const a = after.stats;
    const row = (id: string, label: string, x: number, y: number, better: 'lower' | 'higher' | null = null) => {
      const d = y - x;
      const tone = d === 0 || !better ? '' : (d < 0) === (better === 'lower') ? 'good' : 'bad';
      return `<tr data-figure="${id}"><th scope="row">${label}</th><td>${count(x)}</td><td>${count(y)}</td><td class="${tone}">${delta(x, y)}</td></tr>`;
    };
    const silenced = fates?.silenced ?? [0, 0];
    const stale = fates?.stale ?? [0, 0];
    const list = (title: string, id: string, rows: RowList | undefined) => {
      if (!rows || rows.total === 0) return '';
      const names = rowNames(rows.rows);
      return `<h3>${title}</h3><ul class="objects" data-rows="${id}">${names.map((o) => `<li><code>${escapeHtml(o)}</code></li>`).join('')}${rows.total > names.length ? `<li>… and ${count(rows.total - names.length)} more</li>` : ''}</ul>`;
    };
    this.figures.innerHTML = `<table class="figures-table">
        <thead><tr><th></th><th scope="col">Before</th><th scope="col">After</th><th scope="col">Change</th></tr></thead>
        <tbody>
          ${row('writes', 'Writes to the API server', b.created + b.patched, a.created + a.patched, 'lower')}
          ${row('created', '… created', b.created, a.created)}
          ${row('patched', '… patched', b.patched, a.patched)}
          ${row('dropped', 'Dropped by the spam filter', b.droppedSpam, a.droppedSpam, 'lower')}
          ${row('aggregated', 'Aggregated', b.aggregated, a.aggregated)}
          ${b.absorbed + a.absorbed > 0 ? row('absorbed', 'Absorbed into series', b.absorbed, a.absorbed) : ''}
          ${row('stored', 'Stored events', before.stored, after.stored)}
          ${row('silenced', 'Object · reason never stored', silenced[0], silenced[1], 'lower')}
          ${row('stale', 'Object · reason whose latest was dropped', stale[0], stale[1], 'lower')}
        </tbody></table>
        <p class="saved">${a.created + a.patched <= b.created + b.patched ? `${count(b.created + b.patched - a.created - a.patched)} writes saved` : `${count(a.created + a.patched - b.created - b.patched)} more writes`}, ${count(a.droppedSpam)} events dropped (${count(b.droppedSpam)} before).</p>
        ${list('Silenced by these settings (nothing stored)', 'silenced', fates?.newlySilenced)}
        ${list('Heard again with these settings', 'revived', fates?.revived)}
        ${list('Left stale by these settings (latest dropped)', 'stale', fates?.newlyStale)}
        ${list('Kept up to date with these settings', 'fresh', fates?.fresh)}`;
  }
}
