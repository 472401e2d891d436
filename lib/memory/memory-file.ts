import type { MemoryInput, MemoryItem, MemoryKind } from './types';
import { parseScope } from './scope-guess';

export const MEMORY_FORMAT = 'backstory-memory';
export const MEMORY_VERSION = 1;

/** A rejected import: the message names the problem and, where there is one, the item index. */
export class ImportError extends Error {
  constructor(
    message: string,
    readonly itemIndex?: number,
  ) {
    super(message);
  }
}

const KNOWN = new Set(['id', 'text', 'title', 'kind', 'tags', 'people', 'sites', 'pinned', 'createdAt', 'updatedAt', 'source', 'scope']);

function parseTime(v: unknown, field: string, i: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  const t = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
  if (!Number.isFinite(t)) throw new ImportError(`Item ${i}: "${field}" is not an ISO 8601 date.`, i);
  return t;
}

function stringList(v: unknown, field: string, i: number): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new ImportError(`Item ${i}: "${field}" must be a list of strings.`, i);
  }
  return v as string[];
}

/** Parses a memory file (CONTRACT.md). Throws ImportError naming the first problem; returns every item otherwise. */
export function parseMemoryFile(raw: string): MemoryInput[] {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    throw new ImportError(`The file is not valid JSON (${(e as Error).message}).`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new ImportError('The file is not a Backstory memory file (expected a JSON object).');
  const d = doc as Record<string, unknown>;
  if (d.format !== MEMORY_FORMAT) throw new ImportError(`Wrong format "${String(d.format)}": expected "${MEMORY_FORMAT}".`);
  if (d.version !== MEMORY_VERSION) throw new ImportError(`Unsupported version ${String(d.version)}: this Backstory reads version ${MEMORY_VERSION}.`);
  if (!Array.isArray(d.items)) throw new ImportError('The file has no "items" list.');
  const seen = new Set<string>();
  return d.items.map((raw, i): MemoryInput => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ImportError(`Item ${i} is not an object.`, i);
    const it = raw as Record<string, unknown>;
    if (typeof it.text !== 'string' || !it.text.trim()) throw new ImportError(`Item ${i} has no "text".`, i);
    if (it.kind !== undefined && it.kind !== 'evidence' && it.kind !== 'instruction') {
      throw new ImportError(`Item ${i}: "kind" must be "evidence" or "instruction".`, i);
    }
    if (it.id !== undefined && typeof it.id !== 'string') throw new ImportError(`Item ${i}: "id" must be a string.`, i);
    if (typeof it.id === 'string') {
      if (seen.has(it.id)) throw new ImportError(`Item ${i}: duplicate id "${it.id}".`, i);
      seen.add(it.id);
    }
    const src = it.source && typeof it.source === 'object' ? (it.source as Record<string, unknown>) : {};
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(it)) if (!KNOWN.has(k)) extra[k] = v;
    return {
      id: it.id as string | undefined,
      text: it.text,
      title: typeof it.title === 'string' ? it.title : undefined,
      kind: it.kind as MemoryKind | undefined,
      tags: stringList(it.tags, 'tags', i),
      people: stringList(it.people, 'people', i),
      sites: stringList(it.sites, 'sites', i),
      pinned: it.pinned === true,
      createdAt: parseTime(it.createdAt, 'createdAt', i),
      updatedAt: parseTime(it.updatedAt, 'updatedAt', i),
      source: {
        ...(typeof src.url === 'string' ? { url: src.url } : {}),
        ...(typeof src.title === 'string' ? { title: src.title } : {}),
      },
      ...(parseScope(it.scope) ? { scope: parseScope(it.scope) } : {}),
      extra: Object.keys(extra).length ? extra : undefined,
    };
  });
}

/** The memory file for export; unknown fields captured on import are written back. `more`: other top-level parts. */
export function serializeMemoryFile(items: MemoryItem[], more: Record<string, unknown> = {}): string {
  return JSON.stringify(
    {
      format: MEMORY_FORMAT,
      version: MEMORY_VERSION,
      ...more,
      items: items.map((it) => ({
        ...(it.extra ?? {}),
        id: it.id,
        text: it.text,
        title: it.title,
        kind: it.kind,
        tags: it.tags,
        people: it.people,
        sites: it.sites,
        pinned: it.pinned,
        createdAt: new Date(it.createdAt).toISOString(),
        updatedAt: new Date(it.updatedAt).toISOString(),
        source: it.source,
        ...(it.scope ? { scope: it.scope } : {}),
      })),
    },
    null,
    2,
  );
}

/** Markdown notes: one item per top-level section (the heading becomes the title); no headings, one item. */
export function parseMarkdownNotes(md: string, fileName = 'notes.md'): MemoryInput[] {
  const text = md.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const level = [1, 2, 3].find((n) => new RegExp(`^${'#'.repeat(n)} `, 'm').test(text));
  if (!level) return text.trim() ? [{ text: text.trim(), title: fileName.replace(/\.(md|markdown|txt)$/i, '') }] : [];
  const re = new RegExp(`^${'#'.repeat(level)} (.+)$`, 'm');
  const parts = text.split(new RegExp(`(?=^${'#'.repeat(level)} )`, 'm'));
  const items: MemoryInput[] = [];
  for (const part of parts) {
    const m = re.exec(part);
    const body = (m ? part.slice(m.index + m[0].length) : part).trim();
    if (!body && !m) continue;
    items.push({ title: m?.[1].trim(), text: body || m![1].trim() });
  }
  return items;
}

/** Plain text: one item per file, split at blank lines when it is long. */
export function parsePlainText(txt: string, fileName = 'note.txt'): MemoryInput[] {
  const text = txt.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').trim();
  if (!text) return [];
  if (text.length <= 2000) return [{ text, title: fileName.replace(/\.txt$/i, '') }];
  const out: MemoryInput[] = [];
  let chunk = '';
  for (const para of text.split(/\n\s*\n/)) {
    if (chunk && chunk.length + para.length > 1500) {
      out.push({ text: chunk });
      chunk = '';
    }
    chunk = chunk ? `${chunk}\n\n${para}` : para;
  }
  if (chunk) out.push({ text: chunk });
  return out;
}

/** Picks the parser by file name and content. */
export function parseImport(fileName: string, content: string): MemoryInput[] {
  const trimmed = content.trimStart();
  if (/\.json$/i.test(fileName) || trimmed.startsWith('{')) return parseMemoryFile(content);
  if (/\.(md|markdown)$/i.test(fileName)) return parseMarkdownNotes(content, fileName);
  return parsePlainText(content, fileName);
}
