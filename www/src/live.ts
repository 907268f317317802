// A live connection to `hushd serve` (or any Kubernetes API server that
// allows it): list the core/v1 events (pages of 500), then watch from the
// list's resourceVersion. The bodies go to the worker as bytes: it reads
// them (every listed item and every ADDED or MODIFIED object is one more
// observation of that Event, a DELETED one removes its observations) and
// correlates only what is new. When the stream ends or fails the connection
// is retried at once, then after 1, 2, 4 … 64 s, then every 60 s; the
// status line says which. A watch answered "410 Gone" (its resourceVersion
// expired) lists again. A 401 asks for a token (auth.ts); a 403 stops and
// shows the server's message.
//
// A `hushd serve --follow` (or one that imported a dump) keeps every
// occurrence of the cluster's events: the page then reads those instead
// (/apis/hush.dev/v1/occurrences), each one event as its emitter sent it,
// so the timeline and the what-if see the stream the cluster's emitters
// produced, not one observation per stored Event. The history comes in
// time-ordered pages (up to the occurrence stored last when the read
// began), then the page tails what is stored after it, every second.

import { Auth, Forbidden, Unauthorized, statusMessage } from './auth';
import { count } from './format';
import type { Listed, Watched } from './protocol';

/** Delays before reconnect attempts: at once, then doubling to 64 s, then every 60 s. */
export function reconnectDelay(attempt: number): number {
  if (attempt <= 0) return 0;
  return attempt <= 7 ? 1000 * 2 ** (attempt - 1) : 60_000;
}

/** Where the bodies go (the worker), and what it says of them. */
export interface LiveEvents {
  /** One page of the list; `first` starts a new recording. */
  listPage(bytes: ArrayBuffer, first: boolean): Promise<Listed>;
  /** The list is whole: its events are correlated, in time order. */
  listDone(): Promise<void>;
  /** Whole lines of the watch. */
  watch(bytes: ArrayBuffer): Promise<Watched>;
  /** Events in the recording now (not deleted), and late ones. */
  counts(): { inputs: number; late: number; removed: number };
}

class Gone extends Error {}

/** The occurrence stream of `hushd serve --follow`. */
const OCCURRENCES = '/apis/hush.dev/v1/occurrences';
/** Occurrences per request. */
const OCCURRENCE_PAGE = 5000;
/** How often the page asks for new occurrences. */
const TAIL_EVERY_MS = 1000;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** The bytes up to and including the last newline of `pending + chunk`, and the rest. */
export function wholeLines(pending: Uint8Array, chunk: Uint8Array): [Uint8Array | null, Uint8Array] {
  const joined = concat([pending, chunk]);
  const end = joined.lastIndexOf(10);
  if (end < 0) return [null, joined];
  return [joined.slice(0, end + 1), joined.slice(end + 1)];
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Batches items for a slow `send` (the worker reading and correlating a
 * batch) with at most one send in flight: items pushed meanwhile grow
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
  private resourceVersion = '';
  /** Reading a follower's occurrences: the last one read (by its number in the store). */
  private occurrences: { lastSeq: number } | null = null;
  private dialog: HTMLDialogElement;
  url = '';
  onConnect: (url: string) => void = () => {};

  constructor(private status: HTMLElement, private events: LiveEvents, private auth: Auth) {
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
    this.resourceVersion = '';
    this.occurrences = null;
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

  private show(text: string, state: 'connecting' | 'live' | 'retrying' | 'idle' | 'forbidden' | 'unauthorized'): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
    this.status.hidden = state === 'idle' && !text;
  }

  private async run(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    try {
      if (this.occurrences) {
        await this.tail(abort.signal);
      } else {
        if (!this.resourceVersion && !(await this.listOccurrences(abort.signal))) await this.list(abort.signal);
        if (this.occurrences) await this.tail(abort.signal);
        else await this.watch(abort.signal);
      }
      // The server ended the stream: resume from where it was.
      this.attempt = 0;
    } catch (e) {
      if (abort.signal.aborted) return;
      if (e instanceof Forbidden) {
        // Asking again would get the same answer: stop, and say why.
        this.show(`${this.url}: forbidden: ${e.message}`, 'forbidden');
        return;
      }
      if (e instanceof Unauthorized) {
        this.show(`${this.url}: unauthorized (no token given): ${e.message}`, 'unauthorized');
        return;
      }
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

  /** Throws what an answer that is not a success means: 403 Forbidden, else an error naming `what`. */
  private async check(response: Response, what: string): Promise<void> {
    if (response.ok) return;
    const message = await statusMessage(response);
    if (response.status === 403) throw new Forbidden(message);
    throw new Error(`${what}: HTTP ${response.status}: ${message}`);
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.show(`${this.url}: listing events…`, 'connecting');
    let token = '';
    let first = true;
    let resourceVersion = '';
    let listed = 0;
    do {
      const response = await this.auth.fetch(`${this.url}/api/v1/events?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`, { signal, headers: { Accept: 'application/json' } });
      if (response.status === 410) {
        // The continue token expired: list again from the start.
        token = '';
        first = true;
        listed = 0;
        continue;
      }
      await this.check(response, 'list');
      const page = await this.events.listPage(await response.arrayBuffer(), first);
      first = false;
      listed += page.items;
      token = page.continue;
      resourceVersion = page.resourceVersion || resourceVersion;
      this.show(`${this.url}: listing events… ${count(listed)}`, 'connecting');
    } while (token);
    await this.events.listDone();
    this.resourceVersion = resourceVersion;
  }

  private async watch(signal: AbortSignal): Promise<void> {
    const url = `${this.url}/api/v1/events?watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(this.resourceVersion)}`;
    const response = await this.auth.fetch(url, { signal, headers: { Accept: 'application/json' } });
    if (response.status === 410) throw new Gone();
    await this.check(response, 'watch');
    if (!response.body) throw new Error('watch: no body');
    this.attempt = 0;
    this.status.title = '';
    this.showLive();
    const reader = response.body.getReader();
    let pending: Uint8Array = new Uint8Array(0);
    // The worker reads and correlates one batch at a time: lines that
    // arrive meanwhile grow the next batch. A failed batch stops the watch;
    // what it held is not in the recording, so the retry lists again.
    const batch = new Batcher<Uint8Array>(async (parts) => {
      const watched = await this.events.watch(concat(parts).slice().buffer as ArrayBuffer);
      if (watched.resourceVersion) this.resourceVersion = watched.resourceVersion;
      this.showLive();
      if (watched.error) {
        if (watched.error.code === 410) throw new Gone();
        throw new Error(`watch: ${watched.error.message || watched.error.reason || 'error'}`);
      }
    });
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
        const [lines, rest] = wholeLines(pending, value);
        pending = rest;
        if (lines) batch.push(lines);
      }
    } finally {
      clearInterval(interval);
      await batch.drain();
    }
    rethrow();
  }

  /**
   * Reads a follower's occurrence history, if the server keeps one: true
   * when it did (the page then tails it), false for a server with no
   * occurrences (the page lists and watches its events).
   */
  private async listOccurrences(signal: AbortSignal): Promise<boolean> {
    let token = '';
    let lastSeq = -1;
    let read = 0;
    do {
      const bound = lastSeq >= 0 ? `&maxSeq=${lastSeq}` : '';
      const next = token ? `&continue=${encodeURIComponent(token)}` : '';
      const response = await this.auth.fetch(`${this.url}${OCCURRENCES}?limit=${OCCURRENCE_PAGE}&format=list${bound}${next}`, { signal, headers: { Accept: 'application/json' } });
      // Not a hushd (404), or an API server that does not let this user
      // read it (403): the events themselves are listed and watched.
      if ((response.status === 404 || response.status === 403) && lastSeq < 0) return false;
      await this.check(response, 'occurrences');
      if (lastSeq < 0) {
        lastSeq = Number(response.headers.get('hush-last-seq') ?? '0');
        if (lastSeq <= 0) return false;
        this.show(`${this.url}: reading the followed cluster's occurrences…`, 'connecting');
      }
      const page = await this.events.listPage(await response.arrayBuffer(), read === 0);
      read += page.items;
      token = page.continue;
      this.show(`${this.url}: reading the followed cluster's occurrences… ${count(read)}`, 'connecting');
    } while (token);
    await this.events.listDone();
    this.occurrences = { lastSeq };
    return true;
  }

  /** Reads the occurrences stored after the last one read, every second, as watch batches. */
  private async tail(signal: AbortSignal): Promise<void> {
    const state = this.occurrences!;
    this.attempt = 0;
    this.status.title = '';
    this.showLive();
    while (!signal.aborted) {
      const response = await this.auth.fetch(`${this.url}${OCCURRENCES}?afterSeq=${state.lastSeq}&limit=${OCCURRENCE_PAGE}&format=watch`, { signal, headers: { Accept: 'application/json' } });
      await this.check(response, 'occurrences');
      const bytes = await response.arrayBuffer();
      const last = Number(response.headers.get('hush-last-seq') ?? state.lastSeq);
      let lines = 0;
      if (bytes.byteLength > 0) {
        for (const b of new Uint8Array(bytes)) if (b === 10) lines++;
        const watched = await this.events.watch(bytes);
        if (watched.error) throw new Error(`occurrences: ${watched.error.message || watched.error.reason || 'error'}`);
      }
      state.lastSeq = Math.max(state.lastSeq, last);
      this.showLive();
      // A full page: more wait already.
      if (lines < OCCURRENCE_PAGE) await pause(TAIL_EVERY_MS, signal);
    }
  }

  private showLive(): void {
    const { inputs, late, removed } = this.events.counts();
    const extra = `${late ? ` · ${count(late)} late` : ''}${removed ? ` · ${count(removed)} deleted` : ''}`;
    if (this.occurrences) {
      this.show(`● Following: ${this.url} · ${count(inputs)} occurrences${extra} · occurrence ${this.occurrences.lastSeq}`, 'live');
      return;
    }
    this.show(`● Live: ${this.url} · ${count(inputs)} events${extra} · resourceVersion ${this.resourceVersion}`, 'live');
  }
}
