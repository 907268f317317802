// The detail panel: for a stored event, what went into it (occurrences by
// decision), the why of its latest occurrence and the object the API server
// holds; for one input event (a drop, a refusal, a trap), its decision and its raw
// object as the file had it.

import type { Selection } from './entries';
import { count, escapeHtml as esc, utc } from './format';
import type { Layout, RunView } from './model';
import { Act } from './model';
import type { Decision, Why } from './protocol';
import { actionWords, keyFields, ruleSentence, spamKeyFields } from './why';

/** What the panel asks the worker for. */
export interface DetailSource {
  explain(input: number): Promise<{ decision: Decision; raw: string }>;
  /** The stored event as the API server holds it, and the events (not deleted) that went into it, by time. */
  stored(index: number): Promise<{ event: unknown; inputs: Uint32Array }>;
}

export class Detail {
  private token = 0;

  constructor(private element: HTMLElement, private onSelect: (s: Selection) => void) {
    element.addEventListener('click', (e) => {
      const target = (e.target as HTMLElement).closest<HTMLElement>('[data-select]');
      if (!target) return;
      const [kind, index] = target.dataset.select!.split(':');
      this.onSelect({ kind: kind as 'stored' | 'input', index: Number(index) });
    });
    this.clear();
  }

  clear(): void {
    this.token++;
    this.element.innerHTML = `<h2>Details</h2><p class="hint">Select a bar or a ✕ mark in the timeline, or a row of the list, to see the event, its raw object and why the correlator decided what it did.</p>
      <p class="hint">Keys: <kbd>←</kbd> <kbd>→</kbd> along a row, <kbd>↑</kbd> <kbd>↓</kbd> between rows, <kbd>+</kbd> <kbd>−</kbd> zoom, <kbd>Shift</kbd>+<kbd>←</kbd> <kbd>→</kbd> pan, <kbd>0</kbd> whole range, <kbd>Esc</kbd> clear.</p>`;
  }

  async show(layout: Layout, view: RunView, selection: Selection, source: DetailSource): Promise<void> {
    if (!selection) return this.clear();
    const token = ++this.token;
    const html = selection.kind === 'stored' ? await this.storedHtml(layout, view, selection.index, source) : await this.inputHtml(layout, view, selection.index, source);
    if (token !== this.token) return;
    this.element.innerHTML = html;
    this.element.dataset.shown = `${selection.kind}:${selection.index}`;
  }

  private async storedHtml(layout: Layout, view: RunView, i: number, source: DetailSource): Promise<string> {
    const st = view.run.stored;
    const str = (ids: Uint32Array) => esc(st.strings.get(ids[i]));
    const { event, inputs } = await source.stored(i);
    const byAction = new Map<string, number>();
    for (const j of inputs) {
      const label = view.run.labels[view.run.action[j]];
      byAction.set(label, (byAction.get(label) ?? 0) + 1);
    }
    const last = inputs.length > 0 ? inputs[inputs.length - 1] : -1;
    const latest = last >= 0 ? await source.explain(last) : null;
    const type = st.strings.get(st.type[i]);
    const combined = st.strings.get(st.message[i]).startsWith('(combined from similar events)');
    const breakdown = [...byAction.entries()].map(([a, n]) => `<li>${count(n)} ${esc(actionWords(a))}</li>`).join('');
    const firstDrop = inputs.find((j: number) => view.acts[j] === Act.Drop);
    return `<h2>${typeBadge(type)} ${str(st.reason)}</h2>
      <p class="subject">${esc(st.strings.get(st.kind[i]).toLowerCase())}/${str(st.name)}${st.strings.get(st.namespace[i]) ? ` <span class="muted">in ${str(st.namespace)}</span>` : ''}</p>
      <dl class="facts">
        <dt>Stored as</dt><dd><code>${str(st.eventNamespace)}/${str(st.eventName)}</code></dd>
        <dt>Count</dt><dd data-field="count">${count(st.count[i])}${st.series[i] ? ' (series)' : ''}${combined ? ' · combined from similar events' : ''}</dd>
        <dt>First seen</dt><dd>${utc(st.first[i])}</dd>
        <dt>Last seen</dt><dd>${utc(st.last[i])}</dd>
        <dt>Source</dt><dd>${str(st.component) || '—'}</dd>
        <dt>Message</dt><dd>${str(st.message)}</dd>
      </dl>
      <h3>Occurrences in the recording</h3>
      <p>${count(inputs.length)} input event${inputs.length === 1 ? '' : 's'} went into it:</p><ul class="breakdown">${breakdown}</ul>
      ${firstDrop !== undefined ? `<p><button type="button" class="link" data-select="input:${firstDrop}">Show the first dropped occurrence</button></p>` : ''}
      ${latest ? `<h3>Why (its latest occurrence, ${utc(layout.facts.at[last])})</h3>${whyHtml(latest.decision)}` : ''}
      <details open><summary>The stored object</summary><pre class="json">${esc(JSON.stringify(event, null, 2))}</pre></details>`;
  }

  private async inputHtml(layout: Layout, view: RunView, i: number, source: DetailSource): Promise<string> {
    const f = layout.facts;
    const str = (ids: Uint32Array) => esc(layout.strings.get(ids[i]));
    const { decision, raw } = await source.explain(i);
    let pretty = raw;
    try {
      pretty = JSON.stringify(JSON.parse(raw), null, 2);
    } catch {
      // Shown as it was.
    }
    const target = decision.stored;
    const late = decision.late
      ? `<dt>Arrived late</dt><dd data-field="late">observed before an event already correlated: correlated when it arrived, at its own instant (as <code>hushd replay</code> reads a stream in this order)</dd>`
      : '';
    return `<h2>${typeBadge(layout.strings.get(f.type[i]))} ${str(f.reason)}</h2>
      <p class="subject">${esc(layout.strings.get(f.kind[i]).toLowerCase())}/${str(f.name)}${layout.strings.get(f.namespace[i]) ? ` <span class="muted">in ${str(f.namespace)}</span>` : ''}</p>
      <dl class="facts">
        <dt>Observed</dt><dd>${utc(f.at[i])}</dd>${late}${decision.source ? `<dt>Read from</dt><dd data-field="source"><code>${esc(decision.source)}</code></dd>` : ''}
        <dt>Decision</dt><dd data-field="action">${esc(actionWords(decision.action))}</dd>
        <dt>Counted in</dt><dd>${target >= 0 ? `<button type="button" class="link" data-select="stored:${target}">the stored event (count ${count(view.run.stored.count[target])})</button>` : 'an event that was never stored'}</dd>
        <dt>Message</dt><dd>${str(f.message)}</dd>
      </dl>
      <h3>Why</h3>${whyHtml(decision)}
      <details open><summary>The input object, as read</summary><pre class="json">${esc(pretty)}</pre></details>`;
  }
}

function whyHtml(d: Decision): string {
  if (!d.why) return `<p class="why-rule">${esc(d.error ?? actionWords(d.action))}</p>`;
  const why: Why = d.why;
  const fields = keyFields(why);
  const rows = why.key.map((v, k) => `<tr><th scope="row">${esc(fields[k] ?? `#${k}`)}</th><td>${v === '' ? '<span class="muted">""</span>' : esc(v)}</td></tr>`).join('');
  const spam = why.spamKey
    ? `<h4>Spam key</h4><table class="key" data-key="spam">${why.spamKey.map((v, k) => `<tr><th scope="row">${esc(spamKeyFields(why)[k] ?? `#${k}`)}</th><td>${v === '' ? '<span class="muted">""</span>' : esc(v)}</td></tr>`).join('')}</table>`
    : '';
  return `<p class="why-rule" data-rule="${esc(why.rule)}"><strong>${esc(why.rule)}</strong>: ${esc(ruleSentence(why))}</p>
    <dl class="facts">
      <dt>Count after it</dt><dd>${count(why.count)}</dd>
      ${why.tokens !== undefined ? `<dt>Tokens left</dt><dd data-field="tokens">${why.tokens.toFixed(4)}</dd>` : ''}
      ${why.distinctMessages !== undefined ? `<dt>Distinct messages</dt><dd>${why.distinctMessages}</dd>` : ''}
      ${d.patch ? `<dt>Patch sent</dt><dd><code>${esc(JSON.stringify(d.patch))}</code></dd>` : ''}
      ${d.write ? `<dt>Write</dt><dd>${esc(JSON.stringify(d.write))}</dd>` : ''}
    </dl>
    <h4>Key (the fields it was counted under)</h4><table class="key" data-key="key">${rows}</table>${spam}`;
}

function typeBadge(type: string): string {
  return `<span class="type type-${type === 'Warning' ? 'warning' : 'normal'}">${esc(type)}</span>`;
}
