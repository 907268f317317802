// How times, durations and numbers are written on the page. Times are UTC,
// as Kubernetes writes them; ages are kubectl's (`HumanDuration`).

/** kubectl's `HumanDuration`: 45s, 3m12s, 17m, 2h5m, 3d4h, 2y. */
export function humanDuration(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  const m = Math.floor(s / 60);
  const h = Math.floor(s / 3600);
  const d = Math.floor(s / 86400);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 192) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

/** `2024-05-01 09:00:07Z`, milliseconds when there are some. */
export function utc(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const iso = new Date(ms).toISOString();
  const frac = iso.slice(19, 23) === '.000' ? '' : iso.slice(19, 23);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac}Z`;
}

/** `09:00:07`, or with the date when `withDate`. */
export function clock(ms: number, withDate = false, withMillis = false): string {
  const iso = new Date(ms).toISOString();
  const time = iso.slice(11, withMillis ? 23 : 19);
  return withDate ? `${iso.slice(5, 10)} ${time}` : time;
}

const integer = new Intl.NumberFormat('en-US');

/** 100,000 */
export function count(n: number): string {
  return integer.format(n);
}

/** A change with its sign and percentage: `−123 (−25 %)`. */
export function delta(before: number, after: number): string {
  const d = after - before;
  if (d === 0) return '±0';
  const sign = d > 0 ? '+' : '−';
  const pct = before === 0 ? '' : ` (${sign}${Math.abs((d / before) * 100).toFixed(Math.abs(d / before) < 0.1 ? 1 : 0)} %)`;
  return `${sign}${integer.format(Math.abs(d))}${pct}`;
}

/** Tick spacing for a time axis: a round step (ms) giving at most `maxTicks` ticks over `span`. */
export function timeStep(span: number, maxTicks: number): number {
  const steps = [
    1, 2, 5, 10, 20, 50, 100, 200, 500,
    1e3, 2e3, 5e3, 10e3, 15e3, 30e3,
    60e3, 120e3, 300e3, 600e3, 900e3, 1800e3,
    3600e3, 7200e3, 10800e3, 21600e3, 43200e3,
    86400e3, 172800e3, 604800e3,
  ];
  for (const step of steps) if (span / step <= maxTicks) return step;
  return Math.ceil(span / maxTicks / 86400e3) * 86400e3;
}

/** Text made safe to put in HTML. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
