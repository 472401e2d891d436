import * as v from 'valibot';
import { LAST_TIME_MS } from '../core/input-limits';
import { MEMORY_FILE_FORMAT } from './intake';
import { inputFromItem } from './item-input';
import { parseScope } from './scope-guess';
import type { MemoryInput, MemoryItem } from './types';

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

/** An item's time: ISO 8601 text (what export writes) or epoch milliseconds. */
const Time = v.union(
  [
    v.pipe(v.string(), v.check((s) => Number.isFinite(Date.parse(s)), 'is not an ISO 8601 date')),
    v.pipe(v.number(), v.finite('is not an ISO 8601 date'), v.check((t) => Math.abs(t) <= LAST_TIME_MS, 'is not an ISO 8601 date')),
  ],
  'is not an ISO 8601 date',
);
const Strings = v.array(v.string('must be a list of strings'), 'must be a list of strings');
const Flag = v.boolean('must be true or false');
const Text = v.string('must be text');

/** One item of a memory file (CONTRACT.md), every field Backstory stores about an item; unknown fields pass through. */
const ItemSchema = v.looseObject(
  {
    id: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'))),
    text: v.pipe(v.string('missing'), v.check((s) => !!s.trim(), 'missing')),
    title: v.nullish(Text),
    kind: v.optional(v.picklist(['evidence', 'instruction'], 'must be "evidence" or "instruction"')),
    tags: v.nullish(Strings),
    people: v.nullish(Strings),
    sites: v.nullish(Strings),
    pinned: v.nullish(Flag),
    excluded: v.nullish(Flag),
    archived: v.nullish(Flag),
    needsReview: v.nullish(v.string('must be text (why the item is held)')),
    createdAt: v.nullish(Time),
    updatedAt: v.nullish(Time),
    lastUsedAt: v.nullish(Time),
    undated: v.nullish(Flag),
    source: v.nullish(
      v.looseObject({ url: v.optional(Text), title: v.optional(Text), importId: v.optional(Text), format: v.optional(Text) }, 'must be an object'),
    ),
    thread: v.nullish(
      v.object(
        {
          id: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
          seq: v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must not be negative')),
        },
        'must be an object with "id" and "seq"',
      ),
    ),
    aux: v.nullish(Text),
    /** Where an instruction applies (lib/memory/scope-guess.ts parseScope); one it cannot read is dropped. */
    scope: v.nullish(v.unknown()),
  },
  'is not an object',
);

const KNOWN = new Set(Object.keys(ItemSchema.entries));


/**
 * One item of a memory file, checked and turned into input (the streaming reader validates each `$.items.*` with it).
 * Throws ImportError naming the item index and the field.
 */
export function parseMemoryItem(raw: unknown, index: number): MemoryInput {
  const r = v.safeParse(ItemSchema, raw);
  if (!r.success) {
    const issue = r.issues[0];
    const path = (issue.path ?? []).map((p) => String(p.key)).filter((k, i) => i === 0 || !/^\d+$/.test(k));
    if (path.length > 1 && issue.input === undefined) throw new ImportError(`Item ${index}: "${path.join('.')}" is missing.`, index);
    if (!path.length) throw new ImportError(`Item ${index} ${issue.message}.`, index);
    if (path[0] === 'text') throw new ImportError(`Item ${index} has no "text".`, index);
    throw new ImportError(`Item ${index}: "${path.join('.')}" ${issue.message}.`, index);
  }
  const it = r.output;
  // Its format is this reader's whatever the file says (a file may not pass for a mail export); what it said is kept
  // aside for a trusted file (lib/memory/intake.ts).
  const fileSource = it.source ? { ...it.source } : {};
  const input: MemoryInput = { text: it.text, source: { ...fileSource, format: MEMORY_FILE_FORMAT }, fileSource };
  let extra: Record<string, unknown> | undefined;
  for (const k in it) {
    const val = (it as Record<string, unknown>)[k];
    if (val === undefined || val === null || k === 'text' || k === 'source') continue;
    if (!KNOWN.has(k)) (extra ??= {})[k] = val;
    else if (k === 'createdAt' || k === 'updatedAt' || k === 'lastUsedAt') input[k] = typeof val === 'number' ? val : Date.parse(val as string);
    else if (k === 'thread') input.thread = { id: it.thread!.id, seq: it.thread!.seq };
    else if (k === 'scope') {
      const scope = parseScope(val);
      if (scope) input.scope = scope;
    }
    else if (k !== 'needsReview' || val) (input as unknown as Record<string, unknown>)[k] = val;
  }
  if (extra) input.extra = extra;
  return input;
}

/** Checks a memory file's `format` and `version` (the streaming reader reads them before the items). */
export function checkMemoryHeader(doc: { format?: unknown; version?: unknown }): void {
  if (doc.format !== MEMORY_FORMAT) throw new ImportError(`Wrong format "${String(doc.format)}": expected "${MEMORY_FORMAT}".`);
  if (doc.version !== MEMORY_VERSION) throw new ImportError(`Unsupported version ${String(doc.version)}: this Backstory reads version ${MEMORY_VERSION}.`);
}

/** A parseMemoryItem that also refuses an id seen earlier in the same file. */
export function memoryItemParser(): (raw: unknown, index: number) => MemoryInput {
  const seen = new Set<string>();
  return (raw, index) => {
    const input = parseMemoryItem(raw, index);
    if (input.id !== undefined) {
      if (seen.has(input.id)) throw new ImportError(`Item ${index}: duplicate id "${input.id}".`, index);
      seen.add(input.id);
    }
    return input;
  };
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
  checkMemoryHeader(d);
  if (!Array.isArray(d.items)) throw new ImportError('The file has no "items" list.');
  const parse = memoryItemParser();
  return d.items.map((item, i) => parse(item, i));
}

/**
 * One item as the memory file holds it: every field Backstory stores (inputFromItem: all but derived ones), times as
 * ISO 8601, and the unknown fields an import brought, at the top level where they were found.
 */
export function exportItem(item: MemoryItem): Record<string, unknown> {
  const { extra, createdAt, updatedAt, lastUsedAt, ...rest } = inputFromItem(item);
  return {
    ...(extra ?? {}),
    ...rest,
    createdAt: isoTime(createdAt!),
    updatedAt: isoTime(updatedAt!),
    ...(lastUsedAt !== undefined ? { lastUsedAt: isoTime(lastUsedAt) } : {}),
  };
}

/** A time as ISO 8601; one past any date (kept before files and sync refused them) at the nearest date, so it exports. */
function isoTime(t: number): string {
  return new Date(Number.isFinite(t) ? Math.max(-LAST_TIME_MS, Math.min(LAST_TIME_MS, t)) : 0).toISOString();
}

/**
 * The memory file as chunks of JSON text, one item per chunk (with the header first and the closing last), so a
 * large memory is written out without one giant string.
 */
export function* memoryFileChunks(items: Iterable<MemoryItem>, more: Record<string, unknown> = {}): Generator<string> {
  yield memoryFileHead(more);
  let first = true;
  for (const item of items) {
    yield (first ? '\n' : ',\n') + JSON.stringify(exportItem(item));
    first = false;
  }
  yield memoryFileEnd();
}

/** The file up to its items: format, version and the fields given (the feedback), then the opening of `items`. */
export function memoryFileHead(more: Record<string, unknown> = {}): string {
  let head = `{"format":${JSON.stringify(MEMORY_FORMAT)},"version":${MEMORY_VERSION},`;
  for (const [k, v] of Object.entries(more)) head += `${JSON.stringify(k)}:${JSON.stringify(v)},`;
  return head + '"items":[';
}

/** The end of the file, with the signature after the items when there is one (lib/memory/file-signature.ts). */
export function memoryFileEnd(signature?: string): string {
  return signature ? `\n],"signature":${JSON.stringify(signature)}}\n` : '\n]}\n';
}

/** The memory file for export, as one string (memoryFileChunks for large memories). */
export function serializeMemoryFile(items: Iterable<MemoryItem>, more: Record<string, unknown> = {}): string {
  return [...memoryFileChunks(items, more)].join('');
}
