/**
 * Asks Google Docs to draw its annotated text layer for extensions (lib/sites/gdocs.ts reads it). Docs reads the
 * flag once, when its editor starts, and only needs it to be a non-empty string (its gate is an emptiness test, as
 * others who read Docs' code report: lib/sites/REFERENCES.md); it records the value as the requester, so it names
 * Backstory and no other extension. Runs in the page's own world at document_start: an isolated-world script cannot
 * set the page's globals, and at document_idle it would be too late.
 */
export const DOCS_HOST = 'docs.google.com';
/** Documents only: the same host serves Google Forms, which anyone can author, and Sheets and Slides. */
export const DOCS_PATH = '/document/';
export const DOCS_PATTERN = `https://${DOCS_HOST}${DOCS_PATH}*`;
export const DOCS_ANNOTATE_FLAG = '_docs_annotate_canvas_by_ext';
export const ANNOTATION_REQUESTER = 'backstory';

export function requestAnnotatedCanvas(w: Window): void {
  try {
    const g = w as unknown as Record<string, unknown>;
    if (!g[DOCS_ANNOTATE_FLAG]) g[DOCS_ANNOTATE_FLAG] = ANNOTATION_REQUESTER;
  } catch {
    // never interfere with the page
  }
}
