import { guessKind } from './kind-guess';
import { guessScope, parseScope } from './scope-guess';
import { titleFrom } from './title';
import { countTokens } from './tokens';
import type { MemoryInput, MemoryItem, MemoryPatch } from './types';

/** Longest text one item may hold; longer captures are refused with a message rather than truncated silently. */
export const MAX_ITEM_CHARS = 200_000;

export class MemoryInputError extends Error {}

function newId(): string {
  return globalThis.crypto?.randomUUID?.() ?? `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Control characters other than tab and newline make text unreadable in the panel and in editors. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '').trim();
}

const uniq = (xs: string[] | undefined): string[] =>
  Array.from(new Set((xs ?? []).map((x) => x.trim()).filter(Boolean)));

/** A complete item from caller input: defaults, cleaned text, guessed kind, token count. */
export function createItem(input: MemoryInput, now = Date.now()): MemoryItem {
  if (typeof input.text !== 'string') throw new MemoryInputError('An item needs text.');
  const text = cleanText(input.text);
  if (!text) throw new MemoryInputError('There is no text to remember.');
  if (text.length > MAX_ITEM_CHARS) {
    throw new MemoryInputError(
      `The text is ${text.length.toLocaleString('en')} characters; one memory holds at most ${MAX_ITEM_CHARS.toLocaleString('en')}.`,
    );
  }
  const createdAt = input.createdAt ?? now;
  return {
    // U+0000 separates an id from a passage's number in the index (passageKey): never part of an id.
    id: input.id?.replace(/\u0000/g, '').trim() || newId(),
    text,
    title: input.title?.trim() || titleFrom(text),
    kind: input.kind ?? guessKind(text),
    tags: uniq(input.tags),
    people: uniq(input.people),
    sites: uniq(input.sites).map((s) => s.toLowerCase()),
    pinned: input.pinned ?? false,
    ...(input.excluded ? { excluded: true } : {}),
    ...(input.archived ? { archived: true } : {}),
    ...(input.needsReview ? { needsReview: input.needsReview } : {}),
    createdAt,
    updatedAt: input.updatedAt ?? createdAt,
    ...(input.undated ? { undated: true } : {}),
    ...(input.lastUsedAt !== undefined ? { lastUsedAt: input.lastUsedAt } : {}),
    source: { ...(input.source ?? {}) },
    scope: parseScope(input.scope) ?? guessScope({ ...input, text }),
    tokens: countTokens(text),
    ...(input.thread ? { thread: { id: input.thread.id, seq: input.thread.seq } } : {}),
    ...(input.aux?.trim() ? { aux: input.aux.trim() } : {}),
    ...(input.extra && Object.keys(input.extra).length ? { extra: input.extra } : {}),
  };
}


/** Applies an edit; returns the new item and whether its text (and so its embedding) changed. */
export function patchItem(item: MemoryItem, patch: MemoryPatch, now = Date.now()): { item: MemoryItem; textChanged: boolean } {
  const next = createItem(
    {
      ...item,
      ...patch,
      id: item.id,
      text: patch.text ?? item.text,
      title: patch.title ?? (patch.text !== undefined && item.title === titleFrom(item.text) ? undefined : item.title),
      createdAt: item.createdAt,
      updatedAt: now,
      // A guessed scope follows the edited text, people and sites; one the user chose stays.
      scope: patch.scope ?? (item.scope?.set === 'guess' ? undefined : item.scope),
    },
    now,
  );
  return { item: next, textChanged: next.text !== item.text };
}
