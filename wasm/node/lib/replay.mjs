// The replay loop of `hushd replay` over the correlator component: each
// input is observed at its instant on a virtual clock (never the same
// nanosecond twice), the timers due before it fire first, in time order,
// and after the last input the clock runs on until every series has
// finished. hush-core's `format::replay` module is the reference; the decision
// lines are written by the codec component, so they are hushd's bytes.

import { loadCodec, loadCorrelator } from './components.mjs';
import { MemoryStore } from './store.mjs';

/** How far past the last input the clock may run to drain held writes (hush-core's `format::replay::DRAIN_LIMIT_NANOS`). */
export const DRAIN_LIMIT_NANOS = 24n * 3600n * 1_000_000_000n;

const max = (a, b) => (a > b ? a : b);

export class Replay {
  #json;
  #correlator;
  #clock;
  #mode;
  /** The latest instant the correlator was driven to. */
  #latest = null;
  /** The last input instant read and the one issued for it. */
  #last = null;

  constructor(json, correlator, clock, mode) {
    this.#json = json;
    this.#correlator = correlator;
    this.#clock = clock;
    this.#mode = mode;
  }

  /**
   * A replay with `options` (hush-core's options as JSON, kebab-case, as
   * `hushd --options` takes them) in `mode` ('legacy' or 'series'), writing
   * into `sink` (an in-memory API server by default).
   */
  static async create({ mode = 'legacy', options = '{}', sink = new MemoryStore(), dir } = {}) {
    const json = await loadCodec(dir);
    const clock = { now: 0n };
    const api = await loadCorrelator({ now: () => clock.now, sink }, dir);
    const parsed = json.optionsFromJson(typeof options === 'string' ? options : JSON.stringify(options));
    parsed.mode = mode;
    return new Replay(json, api.Correlator.create(parsed), clock, mode);
  }

  /** The codec (`hush:correlator/json`), to read input records with. */
  get json() {
    return this.#json;
  }

  /** The correlator's counters. */
  stats() {
    return this.#correlator.stats();
  }

  /**
   * Observes `event` (a WIT event, as the codec reads it) at `at`
   * (nanoseconds): returns the lines of the timers due before it, its
   * decision, then what it wrote besides (an eviction, retries).
   */
  observe(event, at) {
    const now = this.#issue(at);
    const lines = this.#runUntil(now);
    this.#clock.now = now;
    lines.push(this.#json.decisionLine(this.#mode, this.#correlator.observe(event)));
    lines.push(...this.#fire(now));
    return lines;
  }

  /** Runs the clock on until no series is open and no write is held; returns the lines. */
  finish() {
    const lines = [];
    const last = this.#latest;
    if (last === null) return lines;
    while (this.#correlator.pending()) {
      const due = this.#correlator.nextDue();
      if (due === undefined) break;
      const at = max(due, this.#latest);
      if (at - last > DRAIN_LIMIT_NANOS) break;
      lines.push(...this.#fire(at));
    }
    return lines;
  }

  /** The instant for an input read at `read`: 1 ns after the last one issued if `read` repeats. */
  #issue(read) {
    const now = this.#last !== null && this.#last.read === read ? this.#last.issued + 1n : read;
    this.#last = { read, issued: now };
    return now;
  }

  /** Fires everything due at or before `now`, in time order. */
  #runUntil(now) {
    const lines = [];
    for (;;) {
      const due = this.#correlator.nextDue();
      if (due === undefined) break;
      const at = this.#latest === null ? due : max(due, this.#latest);
      if (at > now) break;
      lines.push(...this.#fire(at));
      // Nothing moved: a held write whose backoff ends later.
      if (this.#correlator.nextDue() === due && due <= at) break;
    }
    return lines;
  }

  /** Runs what is due at `at`: the timers' lines, then held writes retried. */
  #fire(at) {
    this.#latest = this.#latest === null ? at : max(at, this.#latest);
    this.#clock.now = at;
    const lines = this.#correlator.tick().map((report) => this.#json.tickLine(this.#mode, report));
    const retried = this.#correlator.takeRetried();
    if (retried.length > 0) lines.push(this.#json.retryLine(this.#mode, at, retried));
    return lines;
  }
}
