// An in-memory sink that answers as the API server does for the calls a
// recorder makes, as `hushd replay`'s store does: create assigns an
// increasing resourceVersion and refuses an existing name (409); patch
// applies the patch or answers 404. Events are the WIT records jco gives
// (camelCase fields, instants as BigInt nanoseconds).

const key = (namespace, name) => `${namespace}\u0000${name}`;

/** A sink error, thrown to make the import return `err`. */
const refuse = (tag, val) => ({ payload: val === undefined ? { tag } : { tag, val } });

/** `series.count` for an event with a series, else `count`. */
const storedCount = (event) => (event.series ? event.series.count : event.count);

export class MemoryStore {
  #events = new Map();
  #lastResourceVersion = 0;

  /** The stored events, in insertion order. */
  events() {
    return [...this.#events.values()];
  }

  /** The stored event `namespace/name`, if any. */
  get(namespace, name) {
    return this.#events.get(key(namespace, name));
  }

  #answer(event) {
    event.resourceVersion = String(++this.#lastResourceVersion);
    return { name: event.name, resourceVersion: event.resourceVersion, count: storedCount(event) };
  }

  createEvent(event) {
    const k = key(event.namespace, event.name);
    if (this.#events.has(k)) throw refuse('already-exists');
    const stored = structuredClone(event);
    this.#events.set(k, stored);
    return this.#answer(stored);
  }

  /**
   * Applies `patch`. For a core/v1 patch the fields present in `body` (the
   * bytes client-go sends) are the ones set, as a strategic merge patch
   * sets them; their values come from the typed patch.
   */
  patchEvent(namespace, name, patch, body) {
    const stored = this.#events.get(key(namespace, name));
    if (!stored) throw refuse('not-found');
    if (patch.tag === 'series') {
      stored.series = { ...patch.val };
    } else {
      const sent = JSON.parse(body);
      stored.count = patch.val.count;
      if ('lastTimestamp' in sent) stored.lastTimestamp = patch.val.lastTimestamp;
      if ('message' in sent) stored.message = patch.val.message;
    }
    return this.#answer(stored);
  }

  listEvents(reportingController, reportingInstance) {
    return this.events()
      .filter((e) => e.reportingController === reportingController && e.reportingInstance === reportingInstance)
      .map((e) => structuredClone(e));
  }
}
