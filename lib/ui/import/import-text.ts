import type { ReadProgress } from '../../import/types';
import type { ImportJob } from '../../import/import-jobs';
import type { IndexingProgress } from '../../messaging/protocol';

const count = (n: number) => n.toLocaleString('en-US');

/** "about 2 min", "about 40 s": rounded, since the rate moves. */
export function aboutTime(ms: number): string {
  const s = ms / 1000;
  if (s < 10) return 'a few seconds';
  if (s < 60) return `about ${Math.round(s / 10) * 10} s`;
  if (s < 90 * 60) return `about ${Math.round(s / 60)} min`;
  const h = s / 3600;
  return `about ${h < 10 ? h.toFixed(1).replace(/\.0$/, '') : Math.round(h)} h`;
}

/** The job's files in words: the name of one file, or how many. */
export function filesOf(job: Pick<ImportJob, 'fileNames'>): string {
  return job.fileNames.length === 1 ? job.fileNames[0] : `${job.fileNames.length} files`;
}

/** "Indexing 3,200 of 12,000 — about 2 min" (no estimate until there is a rate to go by). */
export function indexingText(p: IndexingProgress): string {
  const eta = p.etaMs !== undefined ? ` — ${aboutTime(p.etaMs)}` : '';
  return `Indexing ${count(p.done)} of ${count(p.total)}${p.backend ? ` on ${backendName(p.backend)}` : ''}${eta}`;
}

/** "WebGPU" or "WASM" for a backend string such as 'offscreen/webgpu/q8' or 'wasm/q8'. */
export function backendName(backend: string): string {
  return /webgpu/.test(backend) ? 'WebGPU' : 'WASM';
}

/** The line for a job still at work: "Reading chatgpt.zip — 48%", "Saving 12,034 memories…". */
export function workingText(job: ImportJob, read?: ReadProgress, indexing?: IndexingProgress): string {
  switch (job.state) {
    case 'queued':
      return `Waiting to import ${filesOf(job)}…`;
    case 'reading': {
      const pct = read && read.bytesTotal ? Math.min(99, Math.floor((read.bytesRead / read.bytesTotal) * 100)) : undefined;
      const items = read?.items ?? job.read;
      return `Reading ${filesOf(job)}${pct !== undefined ? ` — ${pct}%` : '…'}${items ? ` (${count(items)} found)` : ''}`;
    }
    case 'confirm':
      return trustQuestion(job);
    case 'committing':
      return `Saving ${count(job.read)} ${job.read === 1 ? 'memory' : 'memories'} from ${filesOf(job)}…`;
    case 'indexing':
      return indexing && indexing.done < indexing.total ? indexingText(indexing) : `Indexing ${filesOf(job)}…`;
    default:
      return '';
  }
}

const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/**
 * The question a memory file from elsewhere raises: "This file asks for 3 instructions that apply everywhere and 1
 * pinned card. It was not exported from this browser profile: keep them, or import them as evidence?"
 */
export function trustQuestion(job: ImportJob): string {
  const a = { everywhere: 0, wide: 0, scoped: 0, pinned: 0, feedback: 0, ...job.asks };
  const parts = [
    a.everywhere ? `${plural(a.everywhere, 'instruction', 'instructions')} that ${a.everywhere === 1 ? 'applies' : 'apply'} everywhere` : '',
    a.wide ? `${plural(a.wide, 'instruction', 'instructions')} for all your email, chats, documents or a whole site` : '',
    a.scoped ? `${plural(a.scoped, 'instruction', 'instructions')} for particular people or subjects` : '',
    a.pinned ? plural(a.pinned, 'pinned card', 'pinned cards') : '',
    a.feedback ? `${plural(a.feedback, 'piece', 'pieces')} of feedback to learn from` : '',
  ].filter(Boolean);
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0] ?? 'nothing beyond evidence';
  return (
    `${filesOf(job)} asks for ${list}. It was not exported from this browser profile (or was changed since), so ` +
    'none of that counts until you say so. Keep them if you trust where the file came from; otherwise its memories ' +
    'come in as evidence only: no rules, no pins, no feedback.'
  );
}

/** What an ended job did: "Imported chatgpt.zip: 12,034 new, 0 updated, 0 unchanged." / the error, naming the file. */
export function outcomeText(job: ImportJob): string {
  if (job.state === 'failed') return `Not imported: ${sentence(job.error ?? `${filesOf(job)} could not be read`)} Nothing was changed.`;
  if (job.state === 'cancelled') return `Import of ${filesOf(job)} cancelled. Nothing was changed.`;
  const c = job.counts ?? { added: 0, updated: 0, unchanged: 0 };
  const warnings = (job.warnings ?? []).map((w) => ` ${sentence(w)}`).join('');
  return `Imported ${filesOf(job)}: ${count(c.added)} new, ${count(c.updated)} updated, ${count(c.unchanged)} unchanged.${warnings}`;
}

const sentence = (s: string) => (/[.!?)]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

/** Ended, with an outcome to tell (done: counts known; failed; cancelled). */
export function hasOutcome(job: ImportJob): boolean {
  return job.state === 'done' || job.state === 'failed' || job.state === 'cancelled' || (job.state === 'indexing' && !!job.counts);
}
