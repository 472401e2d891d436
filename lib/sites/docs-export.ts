/**
 * The open Google Docs document's own text, where Docs draws no text layer for Backstory: Docs' plain-text export
 * (`/document/d/<id>/export?format=txt`), fetched by the content script from the page's own origin with the user's own
 * session, never from anywhere else. At most EXPORT_MAX_BYTES are read, and one reading per document is kept for
 * EXPORT_FRESH_MS, so the readings taken as the user works (every ~50 ms on a change) do not fetch again. A failure
 * (signed out, no access, offline, a redirect to a sign-in page) is kept as "no text" for as long: the reading is the
 * title then, quietly.
 */

/** How much of the export is read: the start of a long document, enough for the section around the selection. */
export const EXPORT_MAX_BYTES = 64 * 1024;
/** How long one reading of the export stands before the next reading fetches it again. */
export const EXPORT_FRESH_MS = 30_000;
/** A fetch that takes longer than this is given up (a reading waits for it only when the user invokes Backstory). */
const EXPORT_TIMEOUT_MS = 4000;

interface Entry {
  at: number;
  text: string | null;
  pending?: Promise<boolean>;
}
const cache = new Map<string, Entry>();

/** The export URL of the document open at `loc` (same origin, under /document/), or null when it is not one. */
export function exportUrl(loc: Pick<Location, 'origin' | 'pathname'>): string | null {
  const m = /^(\/document(?:\/u\/\d+)?)\/d\/([\w-]{10,})(?:\/|$)/.exec(loc.pathname);
  return m ? `${loc.origin}${m[1]}/d/${m[2]}/export?format=txt` : null;
}

/** The last text read from the export of the document at `loc` (kept while a fresher one is fetched), or null. */
export function exportedText(loc: Pick<Location, 'origin' | 'pathname'>): string | null {
  const url = exportUrl(loc);
  return (url && cache.get(url)?.text) || null;
}

/**
 * Fetches the export when the kept one is older than EXPORT_FRESH_MS (once at a time per document); resolves true
 * when the text changed, so the caller reads the page again. Never rejects.
 */
export function loadExport(loc: Pick<Location, 'origin' | 'pathname'>, now = Date.now()): Promise<boolean> {
  const url = exportUrl(loc);
  if (!url) return Promise.resolve(false);
  const kept = cache.get(url);
  if (kept?.pending) return kept.pending;
  if (kept && now - kept.at < EXPORT_FRESH_MS) return Promise.resolve(false);
  const entry: Entry = { at: now, text: kept?.text ?? null };
  entry.pending = fetchText(url).then((text) => {
    cache.set(url, { at: Date.now(), text });
    return text !== (kept?.text ?? null);
  });
  cache.set(url, entry);
  return entry.pending;
}

async function fetchText(url: string): Promise<string | null> {
  try {
    // Same origin as the page: the user's own cookies go with it. A sign-in redirect (another origin) is an error.
    const res = await fetch(url, { credentials: 'same-origin', redirect: 'error', signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS) });
    if (!res.ok || !/^text\/plain\b/i.test(res.headers.get('content-type') ?? '')) return null;
    const text = (await readCapped(res, EXPORT_MAX_BYTES)).replace(/\r\n?/g, '\n').trim();
    return text || null;
  } catch {
    return null;
  }
}

/** The body's first `max` bytes as text; the rest is never downloaded. */
async function readCapped(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const c of chunks) {
    if (at >= bytes.length) break;
    bytes.set(c.subarray(0, bytes.length - at), at);
    at += c.length;
  }
  // A character cut at the cap decodes as U+FFFD: dropped. The decoder also drops Docs' byte-order mark.
  return new TextDecoder().decode(bytes).replace(/\uFFFD+$/, '');
}

/** Forgets every kept export (tests). */
export function forgetExports(): void {
  cache.clear();
}
