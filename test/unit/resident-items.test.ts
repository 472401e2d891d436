import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { headOf, IndexedMemory } from '../../lib/memory/index/memory-index';
import { createItem } from '../../lib/memory/normalize';
import type { MemoryInput, MemoryItem } from '../../lib/memory/types';

/** Items shaped like an import's: no tags, most without people or sites, all from one import, a guessed scope. */
function imported(n: number): MemoryItem[] {
  const people = ['Ines', 'Tom'];
  return Array.from({ length: n }, (_, i) =>
    // Structured clone, as IndexedDB gives rows back at load: every row brings its own arrays, objects and strings.
    structuredClone(
      createItem(
        {
          id: `chat-${i}`,
          text: `note ${i}`,
          people: i % 5 ? [] : [people[i % 2]],
          source: { importId: 'job-1', format: 'chatgpt' },
          thread: { id: `conversation-${Math.floor(i / 20)}`, seq: i % 20 },
          createdAt: Date.UTC(2025, 0, 1) + i,
        },
        Date.UTC(2025, 6, 1),
      ),
    ),
  );
}

describe('items held in memory', () => {
  it('are equal to what was stored, field for field, whatever their tags, people, sites, source and scope', () => {
    const input = fc.record(
      {
        text: fc.string({ minLength: 1, maxLength: 40 }).filter((t) => t.trim().length > 0 && !/[\u0000-\u001f\u007f]/.test(t)),
        tags: fc.array(fc.constantFrom('a', 'b', 'a\u0001b', ''), { maxLength: 3 }),
        people: fc.array(fc.constantFrom('Ines', 'Tom <tom@x.example>'), { maxLength: 2 }),
        sites: fc.array(fc.constantFrom('mail.example', 'docs.example'), { maxLength: 2 }),
        kind: fc.constantFrom('evidence' as const, 'instruction' as const),
        source: fc.record({ url: fc.constantFrom('https://a.example/x', 'https://b.example/'), importId: fc.constantFrom('j1', 'j2'), format: fc.constantFrom('chatgpt', 'mbox') }, { requiredKeys: [] }),
        thread: fc.record({ id: fc.constantFrom('t1', 't2'), seq: fc.nat(9) }),
      },
      { requiredKeys: ['text'] },
    );
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 12 }), (inputs) => {
        const mem = new IndexedMemory();
        const items = inputs.map((x, i) => createItem({ ...x, id: `i${i}` } as MemoryInput, Date.UTC(2025, 0, 1)));
        for (const it of items) mem.put(structuredClone(it));
        for (const it of items) expect(mem.get(it.id)).toStrictEqual(it);
        // A start's heads from the pack, kept as they are given, and read whole from the store when asked.
        const rows = new Map(items.map((it) => [it.id, it]));
        const started = new IndexedMemory(async (ids) => ids.map((id) => structuredClone(rows.get(id))));
        for (const it of items) started.putHead(structuredClone(headOf(it)), { content: 1, textDecides: false, lexicalLoaded: true });
        for (const it of items) expect(started.head(it.id)).toStrictEqual(headOf(it));
      }),
    );
  });

  it('cannot change each other: a shared list or source changed in place throws instead of editing every item', () => {
    const mem = new IndexedMemory();
    for (const it of imported(3)) mem.put(it);
    const a = mem.get('chat-1')!;
    expect(() => a.tags.push('x')).toThrow();
    expect(() => ((a.source as { format?: string }).format = 'mbox')).toThrow();
    expect(mem.get('chat-2')!.tags).toEqual([]);
    expect(mem.get('chat-2')!.source.format).toBe('chatgpt');
    // So do the heads a start takes from the pack.
    const started = new IndexedMemory(async () => []);
    for (const it of imported(3)) started.putHead(headOf(it), { content: 1, textDecides: false, lexicalLoaded: true });
    const h = started.head('chat-1')!;
    expect(() => h.tags.push('x')).toThrow();
    expect(() => ((h.source as { format?: string }).format = 'mbox')).toThrow();
    expect(started.head('chat-2')!.tags).toEqual([]);
    expect(started.head('chat-2')!.source).toBe(h.source);
  });
});
