// The batch path: `hushd replay` inside the correlator component, one call
// per batch of events. A typed `observe` has jco build an Event object of
// about 20 strings field by field and back; here a batch crosses as two
// strings: the codec reads JSON Lines and encodes their observations in
// hush's wire format (`Reader.encode`), the correlator's `Replay` replays
// them into its own in-memory store (the store `hushd replay` writes into)
// and answers with 8 bytes per decision, read here only when asked for
// (`Outcomes`). Layouts: the `replay` interface in wit/correlator.wit.

import { loadCodec, loadReplay } from './components.mjs';

/** The `action` enum of wit/correlator.wit, by index. */
export const ACTIONS = ['create', 'patch', 'drop', 'absorb', 'refuse', 'trap'];
/** The `rule` enum, by index (255 is none). */
export const RULES = [
  'first-seen',
  'repeat',
  'aggregated',
  'spam-filtered',
  'singleton',
  'series-start',
  'series-repeat',
  'heartbeat',
  'finish',
  'evicted',
];
/** How a write ended, by code. */
export const WRITES = [null, 'written', 'held', 'dropped'];
/** Why a write was dropped, by code (`drop-cause`'s cases). */
export const CAUSES = [
  null,
  'spam-filtered',
  'refused',
  'rejected',
  'already-exists',
  'not-found',
  'held-queue-full',
  'gave-up',
  'trapped',
];
/** Which timer fired, by code. */
export const TIMERS = ['heartbeat', 'finish', 'evict', 'retry'];

const RECORD = 8;
const HEADER = 8;
const FIRING = 17;

/**
 * Compact decisions, 8 bytes each, read on demand: `length`, `at(i)` (an
 * object), iteration, whole columns as typed arrays of codes (`actions`,
 * `rules`, `writes`, `causes`: indexes into ACTIONS, RULES (255: none),
 * WRITES, CAUSES) and `counts` (Int32Array), and `count(action)`.
 */
export class Outcomes {
  /** @param {Uint8Array} raw whole decisions */
  constructor(raw) {
    if (raw.length % RECORD !== 0) throw new RangeError(`${raw.length} bytes are not whole decisions of ${RECORD} bytes`);
    this.raw = raw;
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  }

  get length() {
    return this.raw.length / RECORD;
  }

  /** Decision `i` (negative counts from the end), spelled out. */
  at(i) {
    if (i < 0) i += this.length;
    if (!(i >= 0 && i < this.length)) return undefined;
    const o = i * RECORD;
    const rule = this.raw[o + 1];
    return {
      action: ACTIONS[this.raw[o]],
      rule: rule === 255 ? null : RULES[rule],
      write: WRITES[this.raw[o + 2]],
      cause: CAUSES[this.raw[o + 3]],
      count: this.view.getInt32(o + 4, true),
    };
  }

  *[Symbol.iterator]() {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  #column(offset) {
    const out = new Uint8Array(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.raw[i * RECORD + offset];
    return out;
  }

  get actions() {
    return this.#column(0);
  }

  get rules() {
    return this.#column(1);
  }

  get writes() {
    return this.#column(2);
  }

  get causes() {
    return this.#column(3);
  }

  get counts() {
    const out = new Int32Array(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.view.getInt32(i * RECORD + 4, true);
    return out;
  }

  /** How many decisions are `action` ('create', 'drop', …). */
  count(action) {
    const code = ACTIONS.indexOf(action);
    if (code < 0) throw new RangeError(`no action ${action}`);
    let n = 0;
    for (let i = 0; i < this.raw.length; i += RECORD) if (this.raw[i] === code) n++;
    return n;
  }
}

/**
 * A `Batch` from the report a `Replay` returned (a string carrying bytes):
 * `{ decisions, timers, bad }`, each timer `{ position, kind, at, writes }`
 * where `position` is how many of the batch's decisions come before it.
 */
export function readReport(text, bad = []) {
  const data = Buffer.from(text, 'latin1');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const decided = view.getUint32(0, true);
  const fired = view.getUint32(4, true);
  let end = HEADER + decided * RECORD;
  const decisions = new Outcomes(data.subarray(HEADER, end));
  const timers = [];
  for (let k = 0; k < fired; k++) {
    const position = view.getUint32(end, true);
    const kind = TIMERS[data[end + 4]];
    const at = view.getBigInt64(end + 5, true);
    const writes = view.getUint32(end + 13, true);
    const start = end + FIRING;
    end = start + writes * RECORD;
    timers.push({ position, kind, at, writes: new Outcomes(data.subarray(start, end)) });
  }
  if (end !== data.length) throw new RangeError(`a report of ${data.length} bytes, ${data.length - end} of them past its end`);
  return { decisions, timers, bad };
}

/** `hushd replay` in the component, a batch per call, into the component's own in-memory store. */
export class BatchReplay {
  #json;
  #reader;
  #replay;

  constructor(json, replay) {
    this.#json = json;
    this.#reader = new json.Reader();
    this.#replay = replay;
  }

  /**
   * A batch replay with `options` (hush-core's options as JSON, kebab-case,
   * as `hushd --options` takes them) in `mode` ('legacy' or 'series').
   * Bad options throw (a RangeError naming the option).
   */
  static async create({ mode = 'legacy', options = '{}', dir, now } = {}) {
    const json = await loadCodec(dir);
    const api = await loadReplay({ now }, dir);
    const parsed = json.optionsFromJson(typeof options === 'string' ? options : JSON.stringify(options));
    parsed.mode = mode;
    let replay;
    try {
      replay = api.Replay.create(parsed);
    } catch (e) {
      const error = e?.payload;
      if (error?.field) throw new RangeError(`option ${error.field}: ${error.problem}`);
      throw e;
    }
    return new BatchReplay(json, replay);
  }

  /** The codec (`hush:correlator/json`): `new json.Reader().encode(text)` encodes a batch for `observeEncoded`. */
  get json() {
    return this.#json;
  }

  /**
   * Replays the next whole lines of JSON Lines input (a string, or a
   * Buffer/Uint8Array of UTF-8), read as `hushd replay` reads them; the
   * positions of bad records count lines across calls.
   */
  feed(text) {
    if (typeof text !== 'string') text = Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8');
    return this.#replayEncoded(this.#reader.encode(text));
  }

  /** Replays a batch already encoded (the `batch` of the codec's `Reader.encode`). */
  observeEncoded(batch) {
    return readReport(this.#observe(batch));
  }

  /**
   * Ends the input: replays a multi-line document's records if the input
   * was one, then runs the clock on until no series is open and no write
   * is held. One batch: its decisions, then every timer firing.
   */
  finish() {
    const last = this.#replayEncoded(this.#reader.encodeFinish());
    for (const firing of readReport(this.#replay.finish()).timers) {
      last.timers.push({ ...firing, position: last.decisions.length });
    }
    return last;
  }

  /** The correlator's counters. */
  stats() {
    return this.#replay.stats();
  }

  /** The events in the store, by namespace, then name. */
  events() {
    return this.#replay.events();
  }

  #replayEncoded(encoded) {
    const bad = encoded.bad.map(({ position, message }) => ({ position, error: message }));
    if (encoded.observations === 0) return { decisions: new Outcomes(new Uint8Array(0)), timers: [], bad };
    return readReport(this.#observe(encoded.batch), bad);
  }

  #observe(batch) {
    try {
      return this.#replay.observe(batch);
    } catch (e) {
      if (typeof e?.payload === 'string') throw new TypeError(e.payload);
      throw e;
    }
  }
}

/** Buffers of whole lines from a binary stream, about `size` bytes each, for `feed`. */
export async function* chunks(stream, size = 1 << 18) {
  let pending = [];
  let length = 0;
  for await (const chunk of stream) {
    pending.push(chunk);
    length += chunk.length;
    if (length < size) continue;
    const block = Buffer.concat(pending);
    const cut = block.lastIndexOf(10) + 1;
    if (cut === 0) {
      pending = [block];
      continue;
    }
    yield block.subarray(0, cut);
    pending = [block.subarray(cut)];
    length = block.length - cut;
  }
  if (length > 0) yield Buffer.concat(pending);
}
