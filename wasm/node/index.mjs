// hush-correlator for Node: the hush correlator component (client-go's
// event correlation) and its JSON codec component, transpiled by jco.
//
//   import { Replay } from 'hush-correlator';
//   const replay = await Replay.create({ mode: 'legacy', options: '{"burst": 5}' });
//   for await (const r of records(stream, replay.json)) console.log(replay.observe(r.event, r.at).join('\n'));

export { ACTIONS, BatchReplay, CAUSES, Outcomes, RULES, TIMERS, WRITES, chunks, readReport } from './lib/batch.mjs';
export { GEN_DIR, loadCodec, loadCorrelator, loadReplay } from './lib/components.mjs';
export { lines, records } from './lib/input.mjs';
export { DRAIN_LIMIT_NANOS, Replay } from './lib/replay.mjs';
export { MemoryStore } from './lib/store.mjs';
