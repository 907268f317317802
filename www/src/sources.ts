// Where events come from: a file picked or dropped anywhere on the page,
// and the built-in samples (fetched from samples/ next to the page, or
// generated in the worker). A live connection is in live.ts.

import type { Options } from './protocol';

export interface Sample {
  id: string;
  title: string;
  /** A file under samples/, or a number of synthetic events. */
  file?: string;
  synthetic?: number;
  mode?: 'legacy' | 'series';
  /** What-if options that tell the sample's story, applied unless the URL has some. */
  whatif?: Options;
}

export const SAMPLES: Sample[] = [
  { id: 'storm', file: 'samples/storm.jsonl', title: 'A bad day: crash loops, image pulls, unschedulable pods (1,870 events)' },
  {
    id: 'cronjob',
    file: 'samples/cronjob.jsonl',
    title: 'CronJob: one chatty reason starves the others (what-if: reason-aware spam key)',
    whatif: { 'spam-key': 'source-object-type-reason' },
  },
  { id: 'series', file: 'samples/series-crashloop.jsonl', title: 'A crash loop as an events.k8s.io/v1 series, 30 minutes', mode: 'series' },
  { id: 'synthetic', synthetic: 100_000, title: 'Synthetic: 100,000 events in 40 namespaces (generated)' },
];

/** What a source hands over: the bytes and a name for them. */
export interface Loaded {
  name: string;
  bytes: ArrayBuffer;
}

/** Fetches a sample file (with `get`); synthetic samples are made by `generate`. */
export async function loadSample(sample: Sample, generate: (events: number) => Promise<ArrayBuffer>, get: (url: string) => Promise<Response> = fetch): Promise<Loaded> {
  if (sample.synthetic) return { name: sample.title, bytes: await generate(sample.synthetic) };
  const response = await get(sample.file!);
  if (!response.ok) throw new Error(`${sample.file}: HTTP ${response.status} ${response.statusText}`);
  return { name: sample.file!.split('/').pop()!, bytes: await response.arrayBuffer() };
}

/** Wires the file picker and drag and drop anywhere on the page. */
export function fileSources(button: HTMLElement, input: HTMLInputElement, zone: HTMLElement, onFile: (file: File) => void): void {
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) onFile(file);
    input.value = '';
  });
  let depth = 0;
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    depth++;
    zone.classList.add('dragging');
  });
  document.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove('dragging');
  });
  document.addEventListener('dragover', (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    const file = e.dataTransfer?.files[0];
    if (file) onFile(file);
  });
}
