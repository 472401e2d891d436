// @vitest-environment happy-dom
/**
 * Google Docs as Backstory meets it: Docs draws its annotated text layer only for the extensions on its own allowlist,
 * so the page is canvas only. The reading takes the selection Docs mirrors into its event-target iframe, and the
 * document's own text from Docs' plain-text export, fetched from the page's own origin, capped, kept for a short while,
 * and given up quietly when it fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { preloadSite, readTask } from '../../lib/sites/index';
import { EXPORT_FRESH_MS, EXPORT_MAX_BYTES, forgetExports } from '../../lib/sites/docs-export';

const FIXTURES = join(import.meta.dirname, '..', 'e2e', 'fixtures');
const DOC_URL = 'https://docs.google.com/document/d/1NwPlan2027-canvas/edit';
const EXPORT_URL = 'https://docs.google.com/document/d/1NwPlan2027-canvas/export?format=txt';
/** The export as Docs serves it: a byte-order mark, CRLF line ends. */
const EXPORT = readFileSync(join(FIXTURES, 'sites/gdocs-export.txt'));

interface Served {
  status?: number;
  type?: string;
  /** The body, handed over in chunks as they are read. */
  chunks?: Uint8Array[];
  error?: Error;
}
let serve: Served;
let calls: { url: string; init?: RequestInit }[];
let pulled: number;

function fakeFetch(url: string, init?: RequestInit): Promise<Response> {
  calls.push({ url, init });
  if (serve.error) return Promise.reject(serve.error);
  const chunks = serve.chunks ?? [EXPORT];
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) {
        pulled++;
        c.enqueue(chunks[i++]);
      } else c.close();
    },
  });
  const status = serve.status ?? 200;
  return Promise.resolve({ ok: status < 300, status, headers: new Headers({ 'content-type': serve.type ?? 'text/plain; charset=utf-8' }), body } as unknown as Response);
}

/** The fixture page without its script: the canvas only, and the event-target iframe Docs mirrors the selection into. */
async function loadCanvasOnly(selected = ''): Promise<void> {
  (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL(DOC_URL);
  const html = readFileSync(join(FIXTURES, 'sites/gdocs.html'), 'utf8');
  const body = html.match(/<body>[\s\S]*<\/body>/)![0].replace(/<script[\s\S]*?<\/script>/g, '');
  document.open();
  document.write(`<!doctype html><html><head><title>Northwind 2027 plan - Google Docs</title></head>${body}</html>`);
  document.close();
  const frame = document.createElement('iframe');
  frame.className = 'docs-texteventtarget-iframe';
  frame.srcdoc = '<!doctype html><body><div contenteditable="true" role="textbox" aria-label="Document content"></div></body>';
  document.body.append(frame);
  await new Promise((r) => setTimeout(r, 20));
  frame.contentDocument!.querySelector('[contenteditable]')!.textContent = selected;
}

const read = () => readTask(document, null);

beforeEach(() => {
  forgetExports();
  serve = {};
  calls = [];
  pulled = 0;
  vi.stubGlobal('fetch', fakeFetch);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('Google Docs without its text layer', () => {
  it('reads the selection from the event-target iframe, and the section around it from the document’s own export', async () => {
    await loadCanvasOnly('backend engineer');
    expect(document.querySelectorAll('.kix-canvas-tile-content svg rect').length).toBe(0);
    // Before the export is in: the title and the selection.
    const first = read();
    expect(first).toMatchObject({ adapter: 'gdocs', subject: 'Northwind 2027 plan', selection: 'backend engineer' });
    expect(first.field).toBeUndefined();

    expect(await preloadSite(document)).toBe(true);
    expect(calls.map((c) => c.url)).toEqual([EXPORT_URL]);
    // Same origin as the page, with the user's own session; a sign-in redirect is a failure, not a document.
    expect(calls[0].init).toMatchObject({ credentials: 'same-origin', redirect: 'error' });
    const r = read();
    expect(r.selection).toBe('backend engineer');
    expect(r.field?.text).toBe('We are hiring a backend engineer for the payments squad. The interview loop has four stages and the hiring manager wants a decision before the holidays.');
    expect(r.headings).toEqual(['Northwind 2027 plan']);
  });

  it('without a selection the ask is the start of the document, byte-order mark and CR dropped', async () => {
    await loadCanvasOnly();
    await preloadSite(document);
    const ask = read().field?.text ?? '';
    expect(ask.startsWith('Northwind 2027 plan\nThis document collects the plans of the platform team')).toBe(true);
    expect(ask).not.toMatch(/[\r\uFEFF]/);
  });

  it('is fetched once per document while fresh, not on every reading, and again once it is old', async () => {
    await loadCanvasOnly('backend engineer');
    let now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    await Promise.all([preloadSite(document), preloadSite(document)]);
    for (let i = 0; i < 20; i++) {
      now += 50;
      expect(await preloadSite(document)).toBe(false);
      expect(read().field?.text).toContain('backend engineer');
    }
    expect(calls.length).toBe(1);
    now += EXPORT_FRESH_MS;
    // The same text again: nothing new to read.
    expect(await preloadSite(document)).toBe(false);
    expect(calls.length).toBe(2);
  });

  it('reads at most the cap of a long document and leaves the rest undownloaded', async () => {
    await loadCanvasOnly();
    const line = new TextEncoder().encode(`${'Quarterly planning notes for the platform team. '.repeat(20)}\r\n`);
    const chunk = new Uint8Array(16 * 1024);
    for (let at = 0; at < chunk.length; at += line.length) chunk.set(line.subarray(0, Math.min(line.length, chunk.length - at)), at);
    serve.chunks = Array.from({ length: 64 }, () => chunk); // 1 MB
    expect(await preloadSite(document)).toBe(true);
    expect(pulled).toBeLessThanOrEqual(EXPORT_MAX_BYTES / chunk.length + 1);
    const ask = read().field?.text ?? '';
    expect(ask.length).toBeGreaterThan(0);
    expect(ask.length).toBeLessThanOrEqual(1500);
  });

  for (const [why, served] of [
    ['offline', { error: new TypeError('Failed to fetch') }],
    ['no access', { status: 403 }],
    ['signed out (a sign-in page instead of the text)', { type: 'text/html; charset=utf-8' }],
  ] as const) {
    it(`${why}: the reading falls back to the title and the selection, quietly, and is not retried on every reading`, async () => {
      await loadCanvasOnly('backend engineer');
      serve = { ...served };
      expect(await preloadSite(document)).toBe(false);
      const r = read();
      expect(r).toMatchObject({ adapter: 'gdocs', subject: 'Northwind 2027 plan', selection: 'backend engineer' });
      expect(r.field).toBeUndefined();
      await preloadSite(document);
      expect(calls.length).toBe(1);
    });
  }
});
