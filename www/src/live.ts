// A live connection to `hushd serve` (or any Kubernetes API server that
// allows it): list the core/v1 events (pages of 500), then watch from the
// list's resourceVersion. Every ADDED or MODIFIED object is one more
// observation of that event, correlated in the browser at its last-seen
// time. When the stream ends or fails the connection is retried at once,
// then after 1, 2, 4 … 64 s, then every 60 s; the status line says which.
// A watch answered "410 Gone" (its resourceVersion expired) lists again.

import { count } from './format';

/** Delays before reconnect attempts: at once, then doubling to 64 s, then every 60 s. */
export function reconnectDelay(attempt: number): number {
  if (attempt <= 0) return 0;
  return attempt <= 7 ? 1000 * 2 ** (attempt - 1) : 60_000;
}

export interface LiveEvents {
  /** A new list replaces what was shown. */
  reset(): void;
  /** JSON Lines of observations: the list's (`append` false) or the watch's. */
  events(bytes: ArrayBuffer, append: boolean): Promise<void>;
}

interface KubeEvent {
  metadata?: { resourceVersion?: string; creationTimestamp?: string };
  series?: { lastObservedTime?: string };
  lastTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  eventTime?: string | null;
  firstTimestamp?: string | null;
  [field: string]: unknown;
}

/** The instant an object from the API was last seen, as hush's `at`. */
function observedAt(e: KubeEvent): string {
  return e.series?.lastObservedTime ?? e.lastTimestamp ?? e.deprecatedLastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? new Date().toISOString();
}

function encode(events: KubeEvent[]): ArrayBuffer {
  const text = events.map((e) => JSON.stringify({ ...e, at: observedAt(e) })).join('\n') + '\n';
  return new TextEncoder().encode(text).buffer as ArrayBuffer;
}

class Gone extends Error {}

/**
 * Batches items for a slow `send` (the worker's replay of the whole
 * recording) with at most one send in flight: items pushed meanwhile grow
 * the next batch, sent as soon as the one in flight ends. A failed send
 * stops the sending; its error is `failed`.
 */
export class Batcher<T> {
  private batch: T[] = [];
  private sending: Promise<void> | undefined;
  /** The error of a send that failed (nothing is sent after it). */
  failed: { error: unknown } | undefined;

  constructor(private readonly send: (items: T[]) => Promise<void>) {}

  push(item: T): void {
    this.batch.push(item);
  }

  /** Sends the batch, unless a send is in flight or failed or nothing waits. */
  flush(): void {
    if (this.sending || this.failed || this.batch.length === 0) return;
    const items = this.batch;
    this.batch = [];
    this.sending = this.send(items).then(
      () => {
        this.sending = undefined;
        this.flush();
      },
      (error: unknown) => {
        this.sending = undefined;
        this.failed = { error };
      },
    );
  }

  /** Sends what waits; resolves once nothing is left to send or a send failed. */
  async drain(): Promise<void> {
    this.flush();
    while (this.sending) await this.sending;
  }
}

export class Live {
  private abort: AbortController | null = null;
  private timer = 0;
  private attempt = 0;
  private received = 0;
  private resourceVersion = '';
  private dialog: HTMLDialogElement;
  url = '';
  onConnect: (url: string) => void = () => {};

  constructor(private status: HTMLElement, private events: LiveEvents) {
    this.dialog = document.querySelector('#connect-dialog')!;
    this.dialog.querySelector('form')!.addEventListener('submit', (e) => {
      const button = (e as SubmitEvent).submitter as HTMLButtonElement | null;
      if (button?.value !== 'connect') return;
      const input = this.dialog.querySelector<HTMLInputElement>('input[name=url]')!;
      this.connect(input.value.trim());
    });
  }

  /** Opens the connect dialog, proposing `url` (or this page's server, or the default address). */
  ask(url: string): void {
    const input = this.dialog.querySelector<HTMLInputElement>('input[name=url]')!;
    input.value = url || this.url || (location.protocol.startsWith('http') ? location.origin : 'http://127.0.0.1:8080');
    this.dialog.showModal();
    input.select();
  }

  connect(url: string): void {
    this.disconnect();
    this.url = url.replace(/\/+$/, '');
    this.attempt = 0;
    this.received = 0;
    this.resourceVersion = '';
    this.onConnect(this.url);
    this.run();
  }

  disconnect(): void {
    this.abort?.abort();
    this.abort = null;
    clearTimeout(this.timer);
    if (this.url) this.show('Disconnected', 'idle');
    this.url = '';
  }

  private show(text: string, state: 'connecting' | 'live' | 'retrying' | 'idle'): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
    this.status.hidden = state === 'idle' && !text;
  }

  private async run(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    try {
      if (!this.resourceVersion) await this.list(abort.signal);
      await this.watch(abort.signal);
      // The server ended the stream: resume from where it was.
      this.attempt = 0;
    } catch (e) {
      if (abort.signal.aborted) return;
      if (e instanceof Gone) {
        this.resourceVersion = '';
        this.attempt = 0;
      } else {
        this.attempt++;
        this.status.title = (e as Error).message;
      }
    }
    if (abort.signal.aborted) return;
    const delay = reconnectDelay(this.attempt);
    this.countdown(Date.now() + delay);
    this.timer = window.setTimeout(() => this.run(), delay);
  }

  private countdown(until: number): void {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0 || !this.url) return;
    this.show(`${this.url}: unreachable (${this.status.title}); retry ${this.attempt} in ${left} s`, 'retrying');
    window.setTimeout(() => this.countdown(until), 1000);
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.show(`${this.url}: listing events…`, 'connecting');
    const items: KubeEvent[] = [];
    let token = '';
    let resourceVersion = '';
    do {
      const response = await fetch(`${this.url}/api/v1/events?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`, { signal, headers: { Accept: 'application/json' } });
      if (response.status === 410) {
        token = '';
        items.length = 0;
        continue;
      }
      if (!response.ok) throw new Error(`list: HTTP ${response.status}`);
      const page = (await response.json()) as { items?: KubeEvent[]; metadata?: { resourceVersion?: string; continue?: string } };
      items.push(...(page.items ?? []));
      token = page.metadata?.continue ?? '';
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (token);
    this.resourceVersion = resourceVersion;
    this.received = items.length;
    this.events.reset();
    await this.events.events(encode(items), false);
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const url = `${this.url}/api/v1/events?watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    const response = await fetch(url, { signal, headers: { Accept: 'application/json' } });
    if (response.status === 410) throw new Gone();
    if (!response.ok || !response.body) throw new Error(`watch: HTTP ${response.status}`);
    this.attempt = 0;
    this.status.title = '';
    this.showLive();
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    // Each flush replays the whole recording in the worker, which can take
    // longer than a tick: the batcher runs at most one at a time. A failed
    // flush stops the watch; its events are not in the recording, so the
    // retry lists again from scratch.
    const batch = new Batcher<KubeEvent>((events) => this.events.events(encode(events), true));
    const rethrow = () => {
      if (!batch.failed) return;
      this.resourceVersion = '';
      throw batch.failed.error;
    };
    const interval = window.setInterval(() => batch.flush(), 250);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        rethrow();
        if (done) break;
        buffered += value;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (!line) continue;
          const change = JSON.parse(line) as { type: string; object: KubeEvent & { code?: number } };
          const rv = change.object?.metadata?.resourceVersion;
          if (change.type === 'ERROR') {
            if (change.object.code === 410) throw new Gone();
            throw new Error(`watch: ${String(change.object.message ?? 'error')}`);
          }
          if (rv) this.resourceVersion = rv;
          if (change.type === 'ADDED' || change.type === 'MODIFIED') {
            batch.push(change.object);
            this.received++;
            this.showLive();
          }
        }
      }
    } finally {
      clearInterval(interval);
      await batch.drain();
    }
    rethrow();
  }

  private showLive(): void {
    this.show(`● Live: ${this.url} · ${count(this.received)} events · resourceVersion ${this.resourceVersion}`, 'live');
  }
}
