// A large, deterministic recording for trying the dashboard at scale (and
// for its benchmark): a 6-hour day of a 40-namespace cluster, as JSON Lines
// of core/v1 Events with the instant each is observed. About 70 % are
// exact repeats from crash-looping and image-pulling pods, 20 % similar
// events (a ReplicaSet's distinct "Created pod" messages), 10 % events
// about objects never seen before; a node flaps and a CronJob runs
// throughout.

const T0 = Date.UTC(2024, 4, 1, 6, 0, 0);
const HOURS = 6;

/** mulberry32: a small, seeded generator, so every build gives the same file. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Source {
  kind: string;
  namespace: string;
  name: string;
  apiVersion: string;
  component: string;
  host: string;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0').slice(-width);
}

/** `events` JSON Lines (one Event each), sorted by instant. */
export function synthetic(events: number): string {
  const next = random(0x68757368);
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)];
  const namespaces = Array.from({ length: 40 }, (_, i) => `team-${String(i).padStart(2, '0')}`);
  const nodes = Array.from({ length: 12 }, (_, i) => `node-${i + 1}`);
  const apps = ['api', 'web', 'worker', 'cache', 'search', 'billing', 'auth', 'queue'];
  const pods: Source[] = [];
  for (const namespace of namespaces)
    for (const app of apps.slice(0, 5)) {
      const rs = `${app}-${hex(Math.floor(next() * 0xffffffff), 10)}`;
      pods.push({ kind: 'Pod', namespace, name: `${rs}-${hex(Math.floor(next() * 0xfffff), 5)}`, apiVersion: 'v1', component: 'kubelet', host: pick(nodes) });
    }
  const replicaSets: Source[] = namespaces.slice(0, 20).map((namespace, i) => ({
    kind: 'ReplicaSet', namespace, name: `${apps[i % apps.length]}-${hex(i * 7919 + 4242, 10)}`, apiVersion: 'apps/v1', component: 'replicaset-controller', host: '',
  }));
  const crashing = pods.filter(() => next() < 0.3);
  const pulling = pods.filter((p) => !crashing.includes(p) && next() < 0.15);
  const lines: { at: number; text: string }[] = [];
  const emit = (at: number, o: Source, reason: string, message: string, type = 'Normal') => {
    const involvedObject: Record<string, string> = { kind: o.kind, namespace: o.namespace, name: o.name, uid: `uid-${o.namespace}-${o.name}`, apiVersion: o.apiVersion };
    if (!o.namespace) delete involvedObject.namespace;
    const event = { at: new Date(at).toISOString(), involvedObject, reason, message, source: { component: o.component, host: o.host }, type };
    lines.push({ at, text: JSON.stringify(event) });
  };
  const span = HOURS * 3600_000;
  const when = () => T0 + Math.floor(next() * span);
  let fresh = 0;
  for (let i = 0; i < events; i++) {
    const r = next();
    if (r < 0.5) {
      const p = pick(crashing);
      emit(when(), p, 'BackOff', `Back-off restarting failed container ${p.name.split('-')[0]} in pod ${p.name}_${p.namespace}`, 'Warning');
    } else if (r < 0.7) {
      const p = pick(pulling);
      const image = `registry.local/${p.name.split('-')[0]}:2.5.0-rc1`;
      if (next() < 0.5) emit(when(), p, 'Failed', `Failed to pull image "${image}": not found`, 'Warning');
      else emit(when(), p, 'BackOff', `Back-off pulling image "${image}"`, 'Normal');
    } else if (r < 0.9) {
      const rs = pick(replicaSets);
      emit(when(), rs, 'SuccessfulCreate', `Created pod: ${rs.name}-${hex(Math.floor(next() * 0xfffff), 5)}`);
    } else if (r < 0.98) {
      fresh++;
      const namespace = pick(namespaces);
      const pod: Source = { kind: 'Pod', namespace, name: `job-${hex(fresh, 6)}-${hex(Math.floor(next() * 0xfffff), 5)}`, apiVersion: 'v1', component: 'default-scheduler', host: '' };
      emit(when(), pod, 'Scheduled', `Successfully assigned ${namespace}/${pod.name} to ${pick(nodes)}`);
    } else if (r < 0.99) {
      const node: Source = { kind: 'Node', namespace: '', name: pick(nodes.slice(0, 3)), apiVersion: 'v1', component: 'node-controller', host: '' };
      const ready = next() < 0.5;
      emit(when(), node, ready ? 'NodeReady' : 'NodeNotReady', `Node ${node.name} status is now: ${ready ? 'NodeReady' : 'NodeNotReady'}`);
    } else {
      const cron: Source = { kind: 'CronJob', namespace: pick(namespaces.slice(0, 4)), name: 'report', apiVersion: 'batch/v1', component: 'cronjob-controller', host: '' };
      const at = when();
      const reason = pick(['SuccessfulCreate', 'SawCompletedJob', 'SuccessfulDelete']);
      emit(at, cron, reason, `${reason === 'SuccessfulCreate' ? 'Created' : reason === 'SawCompletedJob' ? 'Saw completed' : 'Deleted'} job report-${Math.floor(at / 60_000)}`);
    }
  }
  lines.sort((a, b) => a.at - b.at);
  return lines.map((l) => l.text).join('\n') + '\n';
}
