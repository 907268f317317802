// Words for the correlator's decisions: what each rule means, and the names
// of the fields of each key (hush-core key/mod.rs, in client-go's order).

import type { Why } from './protocol';

const EVENT_KEY = ['source.component', 'source.host', 'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.fieldPath', 'involvedObject.uid', 'involvedObject.apiVersion', 'type', 'reason', 'message'];
const SOURCE_OBJECT_TYPE = ['source.component', 'source.host', 'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'type'];
const AGGREGATE_KEY = [...SOURCE_OBJECT_TYPE, 'reason', 'reportingComponent', 'reportingInstance'];
const REFERENCE = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];
const ISOMORPHIC_KEY = ['type', 'action', 'reason', 'reportingController', 'reportingInstance', ...REFERENCE.map((f) => `regarding.${f}`), ...REFERENCE.map((f) => `related.${f}`)];

/** The name of each field of `why.key`, by the key its rule counts under. */
export function keyFields(why: Why): string[] {
  if (why.key.length === ISOMORPHIC_KEY.length) return ISOMORPHIC_KEY;
  return why.rule === 'aggregated' ? AGGREGATE_KEY : EVENT_KEY;
}

/** The name of each field of `why.spamKey` (with `reason` for the reason-aware key). */
export function spamKeyFields(why: Why): string[] {
  return why.spamKey && why.spamKey.length > SOURCE_OBJECT_TYPE.length ? [...SOURCE_OBJECT_TYPE, 'reason'] : SOURCE_OBJECT_TYPE;
}

/** What a rule did, in a sentence. */
export function ruleSentence(why: Why): string {
  switch (why.rule) {
    case 'first-seen':
      return 'Not seen before under its event key, so it was created.';
    case 'repeat':
      return `Identical to an event already cached (same event key): its count went up to ${why.count} and the stored event was patched.`;
    case 'aggregated':
      return `A distinct message for the same object and reason${why.distinctMessages ? ` (${why.distinctMessages} in the window)` : ''}: folded into the combined event "(combined from similar events)".`;
    case 'spam-filtered':
      return `The spam filter's bucket for its spam key was empty (${(why.tokens ?? 0).toFixed(3)} tokens left, 1 needed): not written. Its count (${why.count}) is still kept.`;
    case 'singleton':
      return 'No isomorphic event cached: written as a single event.';
    case 'series-start':
      return 'The second isomorphic occurrence: a series starts, written with count 2.';
    case 'series-repeat':
      return `A later occurrence of the series (count ${why.count}): counted in memory, written by the next heartbeat or when the series finishes.`;
    case 'heartbeat':
      return 'The series heartbeat: open series are written with their counts every 30 minutes.';
    case 'finish':
      return 'The series was idle past the finish threshold: its final count was written.';
    case 'evicted':
      return 'The series cache was full: the evicted series wrote its final count first.';
    default:
      return why.rule;
  }
}

/** What an action means, in a few words. */
export function actionWords(action: string): string {
  return (
    { create: 'created', patch: 'patched', drop: 'dropped by the spam filter', absorb: 'absorbed into a series', refuse: 'refused (the API server would reject it)', trap: 'trapped (the correlator failed on it; nothing was written)' } as Record<string, string>
  )[action] ?? action;
}
