import { parse as parseYaml } from 'yaml';
import { decodeFileBytes } from '../memory/decode-text';
import type { MemoryInput } from '../memory/types';
import { itemDates, plausibleDate, plausibleTime } from './dates';
import { fencedLines, inlineTags, markdownToText, paragraphs, plainInline } from './note-text';

/** A Notion export names each page "Title <32 hex digits>.md". */
const NOTION_ID = /\s([0-9a-f]{32})\.(md|markdown)$/i;

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * The title and page id of a Notion page's file name. The id is looked for in the name's last characters only: a
 * pattern from the start (/^(.*?)\s+…$/) costs the square of a name a zip may make 65,535 characters long.
 */
function notionPage(name: string): { title: string; id: string } | null {
  const tail = name.slice(-43);
  const m = NOTION_ID.exec(tail);
  if (!m) return null;
  const title = name.slice(0, name.length - tail.length + m.index).trimEnd();
  return /[\n\r\u2028\u2029]/.test(title) ? null : { title, id: m[1] };
}

export function noteFormat(path: string): 'markdown' | 'notion' {
  return notionPage(basename(path)) ? 'notion' : 'markdown';
}

/** "Title ##" without its closing #'s (as /\s+#+\s*$/ would take them off, read from the end instead). */
function withoutClosingHashes(s: string): string {
  const t = s.trimEnd();
  let hashes = t.length;
  while (hashes > 0 && t[hashes - 1] === '#') hashes--;
  let space = hashes;
  while (space > 0 && /\s/.test(t[space - 1])) space--;
  return hashes === t.length || space === hashes ? s : s.slice(0, space);
}

interface FrontMatter {
  title?: string;
  tags: string[];
  aliases: string[];
  created?: number;
  updated?: number;
}

function list(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map((x) => String(x).trim()).filter(Boolean);
  if (typeof v === 'string') return v.split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
  return [];
}

/** The first of `keys` that holds a plausible date. */
function firstDate(d: Record<string, unknown>, keys: string[]): number | undefined {
  for (const k of keys) {
    const t = plausibleDate(d[k]);
    if (t !== undefined) return t;
  }
  return undefined;
}

/** YAML front matter ("---" … "---") read with `yaml`; a block that is not valid YAML is left out, not fatal. */
function frontMatter(text: string): { meta: FrontMatter; body: string } {
  const m = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  const meta: FrontMatter = { tags: [], aliases: [] };
  if (!m) return { meta, body: text };
  let data: unknown;
  try {
    data = parseYaml(m[1]);
  } catch {
    data = undefined;
  }
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const d = data as Record<string, unknown>;
    if (typeof d.title === 'string' && d.title.trim()) meta.title = d.title.trim();
    meta.tags = list(d.tags ?? d.tag).map((t) => t.replace(/^#/, ''));
    meta.aliases = list(d.aliases ?? d.alias);
    meta.created = firstDate(d, ['created', 'date', 'created_at', 'createdAt', 'Created']);
    meta.updated = firstDate(d, ['updated', 'modified', 'updated_at', 'updatedAt', 'last_modified', 'Last edited', 'lastmod', 'last']);
  }
  return { meta, body: text.slice(m[0].length) };
}

interface Section {
  heading?: string;
  lines: string[];
}

/** Splits at the top heading level in use (headings inside ``` code blocks do not count). */
function sections(body: string): { lead?: string; parts: Section[] } {
  const lines = body.split('\n');
  const code = fencedLines(body);
  const level: (number | 0)[] = lines.map((line, i) => {
    const h = !code[i] && /^(#{1,6})\s+\S/.exec(line);
    return h ? h[1].length : 0;
  });
  let lead: string | undefined;
  // A single "# Title" on the first line names the note; its sections are the next level down.
  const h1s = level.map((l, i) => (l === 1 ? i : -1)).filter((i) => i >= 0);
  const firstText = lines.findIndex((l) => l.trim());
  if (h1s.length === 1 && h1s[0] === firstText) {
    lead = plainInline(lines[h1s[0]].replace(/^#\s+/, '').replace(/\s+#+\s*$/, ''));
    lines[h1s[0]] = '';
    level[h1s[0]] = 0;
  }
  const top = level.reduce((m, l) => (l > 0 && l <= 3 && l < m ? l : m), 99);
  const parts: Section[] = [{ lines: [] }];
  for (let i = 0; i < lines.length; i++) {
    if (level[i] === top) parts.push({ heading: plainInline(withoutClosingHashes(lines[i].replace(/^#+\s+/, '')).trim()), lines: [] });
    else parts[parts.length - 1].lines.push(level[i] ? lines[i].replace(/^#+\s+/, '') : lines[i]);
  }
  return { lead, parts };
}

/** Notion's date properties, by what they say: when the page was made, and when it was last changed. */
const CREATED_PROPS = new Set(['created', 'created time', 'created at', 'date created', 'creation date']);
const EDITED_PROPS = new Set(['last edited', 'last edited time', 'last edited at', 'last updated', 'updated', 'last modified']);

/** A Notion date: "March 3, 2023 10:12 AM", with "(GMT+1)" read as the zone and a range ("… → …") by its start. */
function notionDate(s: string): number | undefined {
  const start = s.split('→')[0].trim();
  const zoned = start.replace(/\s*\(GMT([+-])(\d{1,2})(?::?(\d\d))?\)\s*$/, (_m, sign: string, h: string, mm?: string) => ` GMT${sign}${h.padStart(2, '0')}${mm ?? '00'}`);
  return plausibleDate(zoned);
}

/**
 * Notion writes a page's properties as lines under its title: "Tags: a, b", "Created: March 3, 2026 10:00 AM",
 * "Last edited time: …". Tags and dates are read; the date lines are left out of the text (they become its dates).
 */
interface NotionProps {
  tags: string[];
  created?: number;
  edited?: number;
  date?: number;
  /** Lines (of those given) that held the created / edited dates. */
  dateLines: Set<number>;
}

function notionProperties(lines: string[]): NotionProps {
  const out: NotionProps = { tags: [], dateLines: new Set() };
  let seen = 0;
  for (let i = 0; i < Math.min(lines.length, 40); i++) {
    const line = lines[i];
    if (!line.trim()) {
      if (seen) break;
      continue;
    }
    const m = /^([\p{L}#][\p{L}\p{N}# _-]{0,40}):\s+(.+)$/u.exec(line.trim());
    if (!m) break;
    seen++;
    const key = m[1].toLowerCase();
    if (key === 'tags' || key === 'tag') out.tags = m[2].split(',').map((t) => t.trim()).filter(Boolean);
    // A date property ("Date", "Full date": a journal day) dates the page only when nothing says when it was made;
    // a due date or a reminder is about the future, not the page.
    const slot = CREATED_PROPS.has(key) ? 'created' : EDITED_PROPS.has(key) ? 'edited' : /\bdate\b/.test(key) && !/due|deadline|remind|end/.test(key) ? 'date' : undefined;
    if (!slot) continue;
    const t = notionDate(m[2]);
    if (t === undefined) continue;
    out[slot] ??= t;
    if (slot !== 'date') out.dateLines.add(i);
  }
  return out;
}

export interface NoteOptions {
  format: 'markdown' | 'notion';
  /**
   * The file's own modification time, where it is evidence of when the note was written: a file picked on its own or
   * from a folder. Not for entries of an export zip (Notion stamps each with the moment of the export).
   */
  lastModified?: number;
}

/**
 * A Markdown note (a file of a notes folder or Obsidian vault, or a page of a Notion export) as the parts of one
 * thread: the text before the first heading and each section under a top-level heading, long ones split at
 * paragraphs. Ids `note:<path>#<n>` (Notion: `notion:<page id>#<n>`), front matter tags and aliases kept, links
 * kept as their words.
 */
export function noteItems(raw: Uint8Array | string, path: string, opts: NoteOptions): MemoryInput[] {
  const decoded = typeof raw === 'string' ? raw : decodeFileBytes(raw).text;
  const text = decoded.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const { meta, body } = frontMatter(text);
  const notion = opts.format === 'notion' ? notionPage(basename(path)) : null;
  const fileTitle = notion ? notion.title.trim() : basename(path).replace(/\.(md|markdown|mdown|mkd|txt)$/i, '');
  const { lead, parts } = sections(body);
  const title = meta.title ?? lead ?? fileTitle;
  const props = notion ? notionProperties(parts[0].lines) : undefined;
  if (props?.dateLines.size) parts[0].lines = parts[0].lines.filter((_l, i) => !props.dateLines.has(i));
  const tags = [...new Set([...meta.tags, ...(props?.tags ?? []), ...(notion ? [] : inlineTags(body))])];
  const threadId = notion ? `notion:${notion.id.toLowerCase()}` : `note:${path}`;
  // A daily note is named for its day ("2023-09-12.md"): better evidence than the file's modification time.
  const day = /^(\d{4}-\d{2}-\d{2})\.(md|markdown)$/i.exec(basename(path));
  const dates = itemDates([meta.created, props?.created, props?.edited, props?.date, plausibleDate(day?.[1]), plausibleTime(opts.lastModified)], [meta.updated, props?.edited]);
  const items: MemoryInput[] = [];
  for (const part of parts) {
    const partText = markdownToText(part.lines.join('\n'));
    const partTitle = part.heading ? (part.heading === title ? title : `${title} › ${part.heading}`) : title;
    for (const piece of paragraphs(partText)) {
      const n = items.length;
      items.push({
        id: `${threadId}#${n}`,
        text: piece,
        title: n === 0 && meta.aliases.length ? `${partTitle} (${meta.aliases.join(', ')})` : partTitle,
        tags: [...tags],
        ...dates,
        source: { format: opts.format, title, ...(notion ? { url: `https://www.notion.so/${notion.id.toLowerCase()}` } : {}) },
        thread: { id: threadId, seq: n },
      });
    }
  }
  // A note that is only headings still says something.
  if (!items.length && (hasHeadings(parts) || lead)) {
    const heads = [lead, ...parts.map((p) => p.heading)].filter(Boolean).join('\n');
    items.push({ id: `${threadId}#0`, text: heads, title, tags, ...dates, source: { format: opts.format, title }, thread: { id: threadId, seq: 0 } });
  }
  return items;
}

function hasHeadings(parts: Section[]): boolean {
  return parts.some((p) => p.heading);
}
