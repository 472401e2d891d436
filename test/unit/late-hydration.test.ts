import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openMemoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import { createItem } from '../../lib/memory/normalize';
import { arrayMemoryView, IndexedMemory } from '../../lib/memory/index/memory-index';
import { HYDRATED_CHARS, NotHydratedError } from '../../lib/memory/index/hydrated-items';
import { rankMemory } from '../../lib/rank/rank';
import { cardText } from '../../lib/rank/package';
import { traceReason } from '../../lib/rank/trace';
import type { RankRequest, TaskReading } from '../../lib/rank/types';
import type { MemoryInput, MemoryItem } from '../../lib/memory/types';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';

const NOW = Date.UTC(2026, 10, 20);

function task(text: string): TaskReading {
  return { url: 'https://mail.google.com/', title: 'Inbox', site: 'mail.google.com', adapter: 'gmail', destination: 'email', field: { text, kind: 'contenteditable' }, people: ['Dana <dana@acme.com>'], at: NOW };
}

/** Notes, a conversation, an instruction, a pinned note and one long item: every kind of candidate a ranking hydrates. */
function inputs(): MemoryInput[] {
  const long = Array.from({ length: 40 }, (_, k) => `Paragraph ${k} of the vendor review talks about ${k === 31 ? 'the Falcon crate shipping to pier 4' : 'office chairs and desk lamps'}.`).join('\n\n');
  return [
    { id: 'budget', text: 'The Q3 budget review moved to Thursday; Dana approved the hardware line.', people: ['Dana <dana@acme.com>'], createdAt: NOW - 5e6 },
    { id: 'rule', text: 'When writing to Dana, keep it to three sentences.', kind: 'instruction', scope: { kind: 'people', values: ['Dana'], set: 'user' }, createdAt: NOW - 4e6 },
    { id: 'pin', text: 'Sign mails as Sam.', pinned: true, createdAt: NOW - 3e6 },
    { id: 'long', text: long, title: 'Vendor review', createdAt: NOW - 2e6 },
    ...[0, 1, 2].map((seq) => ({ id: `chat:c1:${seq}`, text: ['Where does the Falcon crate go?', 'The Falcon crate ships to pier 4 on Monday.', 'Thanks, and the budget?'][seq], thread: { id: 'chat:c1', seq }, createdAt: NOW - 1e6 + seq })),
    ...Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, text: `Note ${i}: ${i % 3 ? 'garden tomatoes need water' : 'budget forecast for the hardware line'}.`, createdAt: NOW - 9e6 + i })),
  ];
}

const request = (memory: RankRequest['memory'], ask: string): RankRequest => ({ task: task(ask), memory, settings: DEFAULT_SETTINGS, now: NOW });
const shown = (r: Awaited<ReturnType<typeof rankMemory>>) => ({
  cards: r.cards.map((c) => [c.item.id, c.item.text, c.item.title, c.passages, c.why]),
  trace: r.trace.map((t) => [t.id, t.title, t.stage, traceReason(t)]),
  pkg: r.package?.text,
});

describe('late hydration: item texts stay in IndexedDB until a ranking reads them', () => {
  it("the store's index holds no item's text or title, and ranks exactly as the same memory held whole", async () => {
    const factory = new IDBFactory();
    const first = new MemoryStore(openMemoryDB('h', { indexedDB: factory, IDBKeyRange }), async () => null);
    await first.add(inputs(), { from: 'user' });
    await first.savePack();
    // As at a worker's start: read from the tables and the pack.
    const store = new MemoryStore(openMemoryDB('h', { indexedDB: factory, IDBKeyRange }), async () => null);
    await store.load();
    expect(store.size).toBe(inputs().length);
    for (const head of store.view.items()) {
      expect(head).not.toHaveProperty('text');
      expect(head).not.toHaveProperty('title');
    }
    const whole = arrayMemoryView(await store.all(), new Map());
    for (const ask of ['Falcon crate pier', 'What did Dana approve in the budget?', 'chairs']) {
      const fromDb = await rankMemory(request(store.view, ask));
      expect(fromDb.cards.length).toBeGreaterThan(0);
      expect(shown(fromDb)).toEqual(shown(await rankMemory(request(whole, ask))));
    }
    // The long item's card shows its matching passage, cut from the text brought for the ranking.
    const card = (await rankMemory(request(store.view, 'vendor review: the Falcon crate shipping'))).cards.find((c) => c.item.id === 'long');
    expect(card?.passages?.passages.length).toBeGreaterThan(0);
    expect(cardText(card!)).toContain('the Falcon crate shipping to pier 4');
    expect(cardText(card!)).not.toContain('Paragraph 0 ');
  });

  it('reads again an item edited while its text was being read, so a ranking never shows the old words', async () => {
    const first = createItem({ id: 'a', text: 'The offsite is in Porto.' }, NOW);
    const edited = createItem({ id: 'a', text: 'The offsite moved to Lisbon.' }, NOW + 1);
    const rows = new Map<string, MemoryItem>([['a', first]]);
    let reads = 0;
    const mem: IndexedMemory = new IndexedMemory(async (ids) => {
      const out = ids.map((id) => rows.get(id));
      // The edit lands (database, then index) while this read is on its way back with the old row.
      if (reads++ === 0) {
        rows.set('a', edited);
        mem.put(edited);
      }
      return out;
    });
    mem.put(first);
    const got = await mem.hydrate(['a']);
    expect(got.get('a')?.text).toBe('The offsite moved to Lisbon.');
    expect(mem.get('a')?.text).toBe('The offsite moved to Lisbon.');
    expect(reads).toBe(2);
  });

  it('refuses to read a text it did not bring, instead of answering with an empty one', async () => {
    const row = createItem({ id: 'a', text: 'Dana approved the hardware line.' }, NOW);
    const mem = new IndexedMemory(async (ids) => ids.map((id) => (id === 'a' ? row : undefined)));
    mem.put(row);
    expect(mem.head('a')?.tokens).toBeGreaterThan(0);
    expect(() => mem.get('a')).toThrow(NotHydratedError);
    await mem.hydrate(['a']);
    expect(mem.get('a')?.text).toBe('Dana approved the hardware line.');
    mem.put({ ...row, text: 'Dana approved the hardware and travel lines.' });
    expect(() => mem.get('a')).toThrow(NotHydratedError); // changed since it was read
  });

  it('keeps only a bounded amount of read text: the newest rankings stay, the oldest are read again', async () => {
    const rows = new Map<string, MemoryItem>();
    const mem = new IndexedMemory(async (ids) => ids.map((id) => rows.get(id)));
    const size = 10_000;
    const n = Math.ceil((3 * HYDRATED_CHARS) / size);
    for (let i = 0; i < n; i++) {
      const it = createItem({ id: `i${i}`, text: `${i} `.padEnd(size, 'x'), title: 't' }, NOW);
      rows.set(it.id, it);
      mem.put(it);
    }
    for (let i = 0; i < n; i += 10) await mem.hydrate(Array.from({ length: 10 }, (_, k) => `i${i + k}`).filter((id) => rows.has(id)));
    let kept = 0;
    for (let i = 0; i < n; i++) {
      try {
        mem.get(`i${i}`);
        kept++;
      } catch {
        expect(i).toBeLessThan(n - 10); // the last ranking's items are always kept
      }
    }
    expect(kept * size).toBeLessThanOrEqual(HYDRATED_CHARS + 10 * size);
    expect(kept).toBeGreaterThanOrEqual(10);
  });

  it('keeps every item of a ranking that weighs more than the bound, so it is not read again while the user types', async () => {
    // A mail to someone with thousands of notes: all of them are weighed at every keystroke.
    const rows = new Map<string, MemoryItem>();
    let read = 0;
    const mem = new IndexedMemory(async (ids) => ((read += ids.length), ids.map((id) => rows.get(id))));
    const size = 10_000;
    const n = Math.ceil((2 * HYDRATED_CHARS) / size);
    const ids = Array.from({ length: n + 1 }, (_, i) => `p${i}`);
    for (const id of ids) {
      const it = createItem({ id, text: `${id} `.padEnd(size, 'y') }, NOW);
      rows.set(id, it);
      mem.put(it);
    }
    await mem.hydrate(ids.slice(0, n));
    read = 0;
    const again = await mem.hydrate(ids); // the same ones and one more
    expect(read).toBe(1);
    expect(again.size).toBe(n + 1);
    for (const id of ids) expect(mem.get(id)?.text.startsWith(id)).toBe(true);
  });

  it('a mail to someone with thousands of notes (and notes and rules for elsewhere) reads only the few that can make a card, and shows what the whole memory shows', async () => {
    // Dana's notes: a few about the budget the mail asks about, hundreds of others, and a decision among them.
    const notes: MemoryInput[] = Array.from({ length: 1500 }, (_, i) => ({
      id: `d${i}`,
      text: i % 500 === 7 ? `Dana decided the budget review for the hardware line is on Thursday (${i}).` : `Lunch with Dana, note ${i}: tomatoes, the garden and the weather.`,
      title: `Dana note ${i}`,
      people: ['Dana <dana@acme.com>'],
      createdAt: NOW - 9e6 + i * 1000,
    }));
    // And notes kept for a site: hundreds for another (never shown here), hundreds for the mail site (tied to it).
    const kept: MemoryInput[] = Array.from({ length: 600 }, (_, i) => ({
      id: `s${i}`,
      text: `Site note ${i}: the garden party list and the weather.`,
      sites: [i % 2 ? 'docs.google.com' : 'mail.google.com'],
      createdAt: NOW - 8e6 + i * 1000,
    }));
    // And rules for writing to other people: filtered here without being read.
    const rules: MemoryInput[] = Array.from({ length: 300 }, (_, i) => ({
      id: `r${i}`,
      text: `When writing to Eve, mention the garden (${i}).`,
      kind: 'instruction',
      scope: { kind: 'people', values: [`Eve${i % 7}`], set: 'user' },
      createdAt: NOW - 7e6 + i * 1000,
    }));
    const items = [...inputs(), ...notes, ...kept, ...rules].map((x) => createItem(x, NOW));
    const rows = new Map(items.map((it) => [it.id, it]));
    let reads = 0;
    const mem = new IndexedMemory(async (ids) => ((reads += ids.length), ids.map((id) => rows.get(id))));
    for (const it of items) mem.put(it);
    const whole = arrayMemoryView(items, new Map());
    for (const ask of ['What did Dana approve in the budget?', 'Lunch on Friday?', 'Falcon crate pier']) {
      reads = 0;
      const got = await rankMemory(request(mem, ask));
      const want = await rankMemory(request(whole, ask));
      // About 70 candidates retrieval found, the pinned item and the rules, and the cards: never all of Dana's notes.
      expect(reads).toBeLessThan(200);
      expect(got.cards.map((c) => c.item.id)).toEqual(want.cards.map((c) => c.item.id));
      expect(got.cards.some((c) => c.item.id.startsWith('d'))).toBe(true);
      // The same trace but for the titles of the notes not read: the panel reads those where it shows them.
      expect(got.trace.length).toBe(want.trace.length);
      const untitled = got.trace.filter((e) => e.untitled);
      expect(untitled.length).toBeGreaterThan(1000);
      const titles = new Map(want.trace.map((e) => [e.id, e.title]));
      expect(got.trace.map((e) => (e.untitled ? { ...e, title: titles.get(e.id), untitled: undefined } : e))).toEqual(
        want.trace.map((e) => ({ ...e, untitled: undefined })),
      );
      expect(shown(got).cards).toEqual(shown(want).cards);
      expect(got.package).toEqual(want.package);
    }
  });
});
