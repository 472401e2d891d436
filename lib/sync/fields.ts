// What a synced operation may say: the closed list of fields, each value's type and size (docs/sync.md, "Merging").
// Everything read from a synced folder is hostile until checked here, even once its seal is verified: a device with
// a bug, or an old version, must not be able to put into memory what intake would never let in.
import * as v from 'valibot';
import { IMPORT_LIMITS, LAST_TIME_MS } from '../core/input-limits';
import { FIELD_CAPS } from '../memory/intake';
import { MAX_ITEM_CHARS } from '../memory/normalize';
import { parseScope } from '../memory/scope-guess';
import { isStamp } from './hlc';
import type { HeldValue, SyncOp } from './types';

/** The fields of an item record, in the order they are hashed. */
export const ITEM_FIELDS = [
  'text', 'title', 'kind', 'scope', 'pinned', 'excluded', 'archived', 'needsReview', 'thread', 'tags', 'people', 'sites',
  'source', 'createdAt', 'updatedAt', 'undated', 'aux', 'extra', 'lastUsedAt',
] as const;
export type ItemField = (typeof ITEM_FIELDS)[number];

/** The synced settings' record and its fields (the settings layer reads and checks their shape). */
export const SETTINGS_ID = '$settings';
export const SETTINGS_FIELDS = ['rank', 'capture', 'siteSuggestions', 'learning'] as const;

/** The register whose operations delete a record. */
export const DELETED = 'deleted';

/**
 * An id, a thread id, a URL, an import id: mail ids (`mail:<Message-ID>`) are the longest real ones, and a
 * Message-ID line is at most 998 characters (RFC 5322); URLs a browser keeps run to a few thousand.
 */
export const MAX_REF_CHARS = 4096;
/**
 * Stamps one operation may name as its base. A delete names every head of every field (about 20 for an item edited
 * on one device at a time); only as many concurrent edits as there are devices add to that.
 */
export const MAX_BASE = 1024;
/** JSON kept whole for round trips (an item's `extra`, a settings group): as deep as an export, as long as a text. */
export const JSON_LIMITS = { depth: IMPORT_LIMITS.jsonDepth, chars: MAX_ITEM_CHARS } as const;

export class SyncFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncFormatError';
  }
}

/** Whether `x` is plain JSON within `depth` levels and `chars` characters, checked without deep recursion. */
export function jsonWithin(x: unknown, limits: { depth: number; chars: number } = JSON_LIMITS): boolean {
  let chars = 0;
  const walk = (y: unknown, depth: number): boolean => {
    if (depth > limits.depth) return false;
    if (y === null || typeof y === 'boolean') chars += 5;
    else if (typeof y === 'number') {
      if (!Number.isFinite(y)) return false;
      chars += 8;
    } else if (typeof y === 'string') chars += y.length + 2;
    else if (Array.isArray(y)) {
      chars += 2;
      for (const z of y) if (chars > limits.chars || !walk(z, depth + 1)) return false;
    } else if (typeof y === 'object' && Object.getPrototypeOf(y) === Object.prototype) {
      chars += 2;
      for (const [k, z] of Object.entries(y)) {
        chars += k.length + 3;
        if (chars > limits.chars || !walk(z, depth + 1)) return false;
      }
    } else return false;
    return chars <= limits.chars;
  };
  return walk(x, 0);
}

const text = (max: number, what: string) => v.pipe(v.string(`must be ${what}`), v.maxLength(max, `must be ${what}`));
const list = (max: number, what: string) =>
  v.pipe(
    v.array(v.pipe(v.string(`must be a list of ${what}`), v.maxLength(max, `must be a list of ${what}`)), `must be a list of ${what}`),
    v.maxLength(FIELD_CAPS.listItems, `must be a list of at most ${FIELD_CAPS.listItems} ${what}`),
  );
const flag = v.boolean('must be true or false');
const time = v.pipe(v.number('must be a time'), v.finite('must be a time'), v.minValue(0, 'must be a time'), v.maxValue(LAST_TIME_MS, 'must be a time'));
const json = (what: string) => v.pipe(v.unknown(), v.check((x) => jsonWithin(x), `must be ${what} of at most ${JSON_LIMITS.chars} characters, ${JSON_LIMITS.depth} levels deep`));
const jsonObject = (what: string) => v.pipe(v.record(v.string(), v.unknown(), `must be ${what}`), v.check((x) => jsonWithin(x), `must be ${what} of at most ${JSON_LIMITS.chars} characters, ${JSON_LIMITS.depth} levels deep`));

/** Each field's value as an operation carries it: an absent optional field is `null`, a flag that is not set `false`. */
export const FIELD_VALUE = {
  text: v.pipe(v.string('must be text'), v.nonEmpty('must not be empty'), v.maxLength(MAX_ITEM_CHARS, `must be at most ${MAX_ITEM_CHARS} characters`)),
  title: text(FIELD_CAPS.title, `text of at most ${FIELD_CAPS.title} characters`),
  kind: v.picklist(['evidence', 'instruction'], 'must be "evidence" or "instruction"'),
  scope: v.nullable(
    v.pipe(
      v.object(
        {
          kind: v.string('must be a scope'),
          values: list(FIELD_CAPS.person, `values of at most ${FIELD_CAPS.person} characters`),
          set: v.picklist(['guess', 'user', 'source'], 'must be a scope'),
        },
        'must be a scope',
      ),
      v.check((s) => parseScope(s) !== undefined, 'must be a scope'),
    ),
  ),
  pinned: flag,
  excluded: flag,
  archived: flag,
  needsReview: v.nullable(text(FIELD_CAPS.title, `a reason of at most ${FIELD_CAPS.title} characters`)),
  thread: v.nullable(
    v.object(
      {
        id: v.pipe(v.string('must have a thread id'), v.nonEmpty('must have a thread id'), v.maxLength(MAX_REF_CHARS, `must have a thread id of at most ${MAX_REF_CHARS} characters`)),
        seq: v.pipe(v.number('must have a place in its thread'), v.integer('must have a place in its thread'), v.minValue(0, 'must have a place in its thread')),
      },
      'must be a thread (an id and a place in it)',
    ),
  ),
  tags: list(FIELD_CAPS.tag, `tags of at most ${FIELD_CAPS.tag} characters`),
  people: list(FIELD_CAPS.person, `names of at most ${FIELD_CAPS.person} characters`),
  sites: list(FIELD_CAPS.site, `sites of at most ${FIELD_CAPS.site} characters`),
  source: v.strictObject(
    {
      url: v.optional(text(MAX_REF_CHARS, 'a URL')),
      title: v.optional(text(FIELD_CAPS.title, 'a title')),
      importId: v.optional(text(MAX_REF_CHARS, 'an import id')),
      format: v.optional(text(FIELD_CAPS.tag, 'a format name')),
    },
    'must be a source (url, title, importId, format)',
  ),
  createdAt: time,
  updatedAt: time,
  undated: flag,
  aux: v.nullable(v.pipe(v.string('must be text'), v.maxLength(MAX_ITEM_CHARS, `must be at most ${MAX_ITEM_CHARS} characters`))),
  extra: v.nullable(jsonObject('an object')),
  lastUsedAt: v.nullable(time),
  rank: jsonObject('an object'),
  capture: jsonObject('an object'),
  learning: json('JSON'),
  siteSuggestions: v.pipe(
    v.array(v.pipe(v.string('must be a list of sites'), v.maxLength(FIELD_CAPS.site, 'must be a list of sites')), 'must be a list of sites'),
    v.check((x) => jsonWithin(x), 'must be a list of sites'),
  ),
  [DELETED]: v.literal(true, 'must be true'),
} satisfies Record<ItemField | (typeof SETTINGS_FIELDS)[number] | typeof DELETED, v.GenericSchema>;

const ITEM_FIELD_SET: ReadonlySet<string> = new Set<string>([...ITEM_FIELDS, DELETED]);
const SETTINGS_FIELD_SET: ReadonlySet<string> = new Set<string>([...SETTINGS_FIELDS, DELETED]);

/** Whether `field` is a field of record `id` (an item's, or the settings'). */
export function isFieldOf(id: string, field: string): boolean {
  return (id === SETTINGS_ID ? SETTINGS_FIELD_SET : ITEM_FIELD_SET).has(field);
}

/** Why `id` cannot be a record id, or undefined when it can. */
function badId(id: unknown): string | undefined {
  if (typeof id !== 'string' || !id.trim()) return 'has no record id';
  if (id.length > MAX_REF_CHARS) return `has a record id longer than ${MAX_REF_CHARS} characters`;
  if (id.includes('\u0000')) return 'has a record id with a NUL character';
  if (id.startsWith('$') && id !== SETTINGS_ID) return `names the unknown record "${id.slice(0, 40)}"`;
  return undefined;
}

/** Why `value` cannot be the value of `field`, or undefined when it can. */
export function badValue(field: string, value: unknown): string | undefined {
  const schema = (FIELD_VALUE as Record<string, v.GenericSchema>)[field];
  const r = v.safeParse(schema, value);
  return r.success ? undefined : `"${field}" ${r.issues[0].message}`;
}

const SETTINGS_IN_WORDS: Record<(typeof SETTINGS_FIELDS)[number], string> = {
  rank: 'The ranking settings are',
  capture: 'The capture setting is',
  learning: 'What learning gathered is',
  siteSuggestions: 'The list of sites to suggest is',
};

/** What the user is told of a change this device keeps to itself (`HeldValue`). */
export function heldInWords(h: HeldValue): string {
  const what = h.id === SETTINGS_ID ? SETTINGS_IN_WORDS[h.field as (typeof SETTINGS_FIELDS)[number]] : undefined;
  if (what) return `${what} too large to sync (${h.why}): this version stays on this device, and the rest syncs.`;
  return `A change to the memory "${h.id.slice(0, 80)}" is not synced (${h.why}): it stays on this device, and the rest syncs.`;
}

/** Why `raw` is not an operation, or undefined when it is one. */
function badOp(raw: unknown): string | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'is not an object';
  const op = raw as Record<string, unknown>;
  const id = badId(op.id);
  if (id) return id;
  if (typeof op.field !== 'string' || !isFieldOf(op.id as string, op.field)) return `changes an unknown field "${String(op.field).slice(0, 40)}"`;
  if (!isStamp(op.stamp)) return 'has no valid stamp';
  if (!Array.isArray(op.base) || op.base.length > MAX_BASE || !op.base.every(isStamp)) return `has a base that is not a list of at most ${MAX_BASE} stamps`;
  if (op.base.includes(op.stamp)) return 'names itself in its base';
  return badValue(op.field, op.value);
}

/**
 * The operations of a segment, checked: a closed list of fields, each value's type and size. Throws SyncFormatError
 * naming the first bad one; nothing is returned from a list that has one (a segment is applied whole or not at all).
 */
export function parseOps(raw: unknown, where = 'a synced change list'): SyncOp[] {
  if (!Array.isArray(raw)) throw new SyncFormatError(`${where} is not a list of changes.`);
  return raw.map((op: unknown, i) => {
    const bad = badOp(op);
    if (bad) throw new SyncFormatError(`Change ${i + 1} of ${where} ${bad}; nothing of it was applied.`);
    const { id, field, value, stamp, base } = op as SyncOp;
    return { id, field, value, stamp, base: [...base] };
  });
}

export { canonicalJson } from './bytes';
