// An item as a synced record: each field's value as operations carry it (capped as intake caps an import), the
// fingerprints the ledger compares, and the item a merged record makes.
import { textHash } from '../core/text-hash';
import { FIELD_CAPS } from '../memory/intake';
import { MAX_ITEM_CHARS } from '../memory/normalize';
import type { ItemHead, MemoryInput, MemoryItem, MemoryScope } from '../memory/types';
import { canonicalJson, ITEM_FIELDS, jsonWithin, MAX_REF_CHARS, type ItemField } from './fields';
import type { MergedRecord } from './merge';

/** The fields kept in an item's head (all but the text and the title, which stay in IndexedDB). */
export const HEAD_FIELDS = ITEM_FIELDS.filter((f) => f !== 'text' && f !== 'title');

/** A field's value when no operation set it: what an item without it holds. */
export const FIELD_DEFAULTS: Partial<Record<ItemField, unknown>> = {
  pinned: false, excluded: false, archived: false, undated: false, needsReview: null, thread: null, scope: null,
  aux: null, extra: null, lastUsedAt: null, tags: [], people: [], sites: [], source: {},
};

const cut = (s: unknown, n: number): string | undefined => (typeof s === 'string' && s ? s.slice(0, n) : undefined);
const capList = (xs: readonly string[] | undefined, len: number): string[] =>
  (xs ?? []).slice(0, FIELD_CAPS.listItems).map((x) => x.slice(0, len)).filter(Boolean);
const time = (t: number | undefined): number => (Number.isFinite(t) && t! > 0 ? t! : 0);

function scopeValue(scope: MemoryScope | undefined): MemoryScope | null {
  if (!scope) return null;
  return { kind: scope.kind, values: capList(scope.values, FIELD_CAPS.person), set: scope.set };
}

/**
 * Field `field` of an item (or of its head, for every field but the text and the title) as an operation carries it:
 * an absent optional field is null, lists and strings capped as intake caps an import (an item from a trusted memory
 * file was kept whole here, but every device reads it capped). `extra` beyond what an operation may carry is left out.
 */
export function fieldValue(item: ItemHead & Partial<Pick<MemoryItem, 'text' | 'title'>>, field: ItemField): unknown {
  switch (field) {
    case 'text':
      return item.text ?? '';
    case 'title':
      return (item.title ?? '').slice(0, FIELD_CAPS.title);
    case 'kind':
      return item.kind;
    case 'scope':
      return scopeValue(item.scope);
    case 'pinned':
    case 'excluded':
    case 'archived':
    case 'undated':
      return !!item[field];
    case 'needsReview':
      return cut(item.needsReview, FIELD_CAPS.title) ?? null;
    case 'thread':
      return item.thread ? { id: item.thread.id.slice(0, MAX_REF_CHARS), seq: Math.max(0, Math.floor(item.thread.seq)) } : null;
    case 'tags':
      return capList(item.tags, FIELD_CAPS.tag);
    case 'people':
      return capList(item.people, FIELD_CAPS.person);
    case 'sites':
      return capList(item.sites, FIELD_CAPS.site);
    case 'source': {
      const s = item.source ?? {};
      const out = { url: cut(s.url, MAX_REF_CHARS), title: cut(s.title, FIELD_CAPS.title), importId: cut(s.importId, MAX_REF_CHARS), format: cut(s.format, FIELD_CAPS.tag) };
      return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
    }
    case 'createdAt':
    case 'updatedAt':
      return time(item[field]);
    case 'lastUsedAt':
      return item.lastUsedAt === undefined ? null : time(item.lastUsedAt);
    case 'aux':
      return cut(item.aux, MAX_ITEM_CHARS) ?? null;
    case 'extra':
      return item.extra && Object.keys(item.extra).length && jsonWithin(item.extra) ? item.extra : null;
    default: {
      const unknown: never = field; // a field added to ITEM_FIELDS needs its case here
      throw new Error(`No synced value for "${String(unknown)}".`);
    }
  }
}

/** Fingerprint of a field's value (FNV-1a of its canonical JSON). */
export const valuePrint = (value: unknown): number => textHash(canonicalJson(value));

/** One fingerprint of every field of the head: when it is unchanged, no head field changed. */
export function headPrint(head: ItemHead): number {
  let h: number | undefined;
  for (const f of HEAD_FIELDS) h = textHash(canonicalJson(fieldValue(head, f)), h);
  return h!;
}

/** The item a live merged record makes, as input to MemoryStore.applySynced; undefined when it has no text yet. */
export function inputFromRecord(record: MergedRecord): MemoryInput | undefined {
  const val = (f: ItemField) => (f in record.values ? record.values[f] : FIELD_DEFAULTS[f]);
  const text = val('text');
  if (typeof text !== 'string' || !text) return undefined; // only some fields arrived (from a device long away)
  const orUndefined = <T>(x: unknown) => (x === null || x === undefined ? undefined : (x as T));
  const createdAt = orUndefined<number>(val('createdAt'));
  return {
    id: record.id,
    text,
    title: orUndefined<string>(val('title')),
    kind: orUndefined<MemoryItem['kind']>(val('kind')) ?? 'evidence',
    scope: orUndefined<MemoryScope>(val('scope')),
    pinned: !!val('pinned'),
    excluded: !!val('excluded'),
    archived: !!val('archived'),
    needsReview: orUndefined<string>(val('needsReview')),
    thread: orUndefined<MemoryItem['thread']>(val('thread')),
    tags: [...(val('tags') as string[])],
    people: [...(val('people') as string[])],
    sites: [...(val('sites') as string[])],
    source: { ...(val('source') as MemoryItem['source']) },
    createdAt,
    updatedAt: orUndefined<number>(val('updatedAt')) ?? createdAt,
    undated: !!val('undated'),
    aux: orUndefined<string>(val('aux')),
    extra: orUndefined<Record<string, unknown>>(val('extra')),
    lastUsedAt: orUndefined<number>(val('lastUsedAt')),
  };
}
