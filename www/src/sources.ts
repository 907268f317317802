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

/** Files a person picked or dropped: each with its path (its name, or its path in a folder). */
export interface Picked {
  files: File[];
  paths: string[];
  /** A folder: its files are chosen by their paths, as hushd replay FOLDER chooses them. */
  folder: boolean;
  /** What the status line calls them. */
  name: string;
}

/** Picked files from a file input (a folder's with `webkitdirectory`). */
export function pickedFrom(list: FileList, folder: boolean): Picked | null {
  const files = [...list];
  if (files.length === 0) return null;
  const paths = files.map((f) => (folder && f.webkitRelativePath) || f.name);
  const name = folder ? `${paths[0].split('/')[0]}/` : files.length === 1 ? files[0].name : `${files.length} files`;
  return { files, paths, folder, name };
}

/** Every file under a dropped entry, with its path from the drop. */
async function walk(entry: FileSystemEntry, out: { file: File; path: string }[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, path: entry.fullPath.replace(/^\//, '') });
  } else if (entry.isDirectory) {
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const e of batch) await walk(e, out);
    }
  }
}

/** What was dropped: files, or a folder walked whole. */
async function dropped(transfer: DataTransfer): Promise<Picked | null> {
  // Entries must be taken while the drop event is being handled.
  const entries = [...transfer.items].map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.some((e) => e?.isDirectory)) {
    const found: { file: File; path: string }[] = [];
    for (const entry of entries) if (entry) await walk(entry, found);
    const folders = entries.filter((e) => e?.isDirectory);
    const name = folders.length === 1 ? `${folders[0]!.name}/` : `${found.length} files`;
    return { files: found.map((f) => f.file), paths: found.map((f) => f.path), folder: true, name };
  }
  return pickedFrom(transfer.files, false);
}

/** Wires the file and folder pickers and drag and drop anywhere on the page. */
export function fileSources(
  buttons: { file: HTMLElement; folder: HTMLElement },
  inputs: { file: HTMLInputElement; folder: HTMLInputElement },
  zone: HTMLElement,
  onFiles: (picked: Picked) => void,
): void {
  buttons.file.addEventListener('click', () => inputs.file.click());
  buttons.folder.addEventListener('click', () => inputs.folder.click());
  for (const [input, folder] of [
    [inputs.file, false],
    [inputs.folder, true],
  ] as const) {
    input.addEventListener('change', () => {
      const picked = input.files && pickedFrom(input.files, folder);
      if (picked) onFiles(picked);
      input.value = '';
    });
  }
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
    if (!hasFiles(e) || !e.dataTransfer) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove('dragging');
    dropped(e.dataTransfer).then((picked) => picked && onFiles(picked));
  });
}
