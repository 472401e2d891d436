// Pure helpers of the sync bench (bench/sync.ts): what a pass writes to the place, and the items it syncs.
import type { SyncFileEntry, SyncStorage } from '../../../lib/sync/types';

/**
 * A sync place that counts what goes through it: the bytes and files the product writes (`create`), and the files it
 * removes (pruning). The product's own storage does the work; this only adds up.
 */
export class CountingStorage implements SyncStorage {
  written = 0;
  files = 0;
  removed = 0;
  bytesRead = 0;
  constructor(private readonly inner: SyncStorage) {}
  list(): Promise<SyncFileEntry[]> {
    return this.inner.list();
  }
  async read(path: string): Promise<Uint8Array> {
    const bytes = await this.inner.read(path);
    this.bytesRead += bytes.length;
    return bytes;
  }
  async create(path: string, bytes: Uint8Array): Promise<void> {
    await this.inner.create(path, bytes);
    this.written += bytes.length;
    this.files += 1;
  }
  async remove(path: string): Promise<void> {
    await this.inner.remove(path);
    this.removed += 1;
  }
  /** Counters back to zero (before a pass to measure). */
  reset(): void {
    this.written = this.files = this.removed = this.bytesRead = 0;
  }
}
/** What the folder holds, from its listing: every file (header, device files, segments, snapshots) counted. */
export function folderBytes(entries: SyncFileEntry[]): { bytes: number; files: number; byKind: Record<string, number> } {
  const byKind: Record<string, number> = {};
  let bytes = 0;
  for (const e of entries) {
    bytes += e.size;
    const kind = /\/log\//.test(e.path) ? 'segments' : /\/snap\//.test(e.path) ? 'snapshots' : /\/devices\//.test(e.path) ? 'devices' : 'header';
    byKind[kind] = (byKind[kind] ?? 0) + e.size;
  }
  return { bytes, files: entries.length, byKind };
}

/**
 * `n` distinct texts of about `chars` characters (cut at a word, never above), each made of real pieces of text drawn
 * in a seeded order from `pool`: what a memory of mails and chat answers holds, not a made-up vocabulary that deflates
 * far better or worse than prose. Distinct, so nothing is embedded once for many items.
 */
export function itemTexts(pool: readonly string[], n: number, chars: number, r: () => number): string[] {
  const usable = pool.map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p.length >= 40);
  if (!usable.length) throw new Error('no text to build items from');
  const out: string[] = [];
  const seen = new Set<string>();
  let tries = 0;
  while (out.length < n) {
    if (++tries > n * 4) throw new Error(`only ${out.length} distinct texts of ${n} could be made from ${usable.length} pieces`);
    let text = '';
    while (text.length < chars) {
      const piece = usable[Math.floor(r() * usable.length)];
      // A long piece starts at a sentence of its own choosing, so two items rarely share a beginning.
      const starts = [0, ...[...piece.matchAll(/[.!?] /g)].map((m) => m.index + 2)];
      text += (text ? ' ' : '') + piece.slice(starts[Math.floor(r() * starts.length)]);
    }
    const cut = text.lastIndexOf(' ', chars);
    text = text.slice(0, cut > chars / 2 ? cut : chars);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/** Samples `heapUsed` every `everyMs` and on demand; `peak` is the highest seen above `base`. */
export class HeapSampler {
  peak = 0;
  private timer?: ReturnType<typeof setInterval>;
  constructor(
    private readonly base: number,
    private readonly used: () => number = () => process.memoryUsage().heapUsed,
  ) {}
  sample(): void {
    this.peak = Math.max(this.peak, this.used() - this.base);
  }
  start(everyMs = 25): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    return this;
  }
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}
