import { describe, expect, it, vi } from 'vitest';
import type { MemoryItem } from '../../lib/memory/types';
import { countTokens } from '../../lib/memory/tokens';
import type { RankRequest, RankSettings, TaskReading } from '../../lib/rank/types';
import { rankMemory, scoreMemory } from '../../lib/rank/rank';
import { TUNING } from '../../lib/rank/tuning';
import { PHRASE_LOOK_LIMIT } from '../../lib/rank/lexical-pass';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { buildPackage } from '../../lib/rank/package';
import { DESTINATION_NAMES } from '../../lib/core/destinations';
import { LexicalIndex, RANK_LEXICAL } from '../../lib/memory/index/lexical-index';
import { contextText } from '../../lib/memory/index/item-text';
import { planQuery, taskQueryText, taskQueryTexts } from '../../lib/rank/query';
import { terms, askDateTerms, itemDateTerms, phrases } from '../../lib/memory/index/tokenize';
import { RANK_SETTINGS as SETTINGS } from './rank-fixtures';
import { needsWords, traceReason, withWords, writtenTerms } from '../../lib/rank/trace';

// Deterministic stand-in for the model: a hashed bag of stemmed words, normalised. Texts sharing words are close.
const DIM = 128;
function fakeEmbed(text: string): Float32Array {
  const v = new Float32Array(DIM);
  for (const t of terms(text)) {
    let h = 2166136261;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
    v[Math.abs(h) % DIM] += 1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < DIM; i++) v[i] /= n;
  return v;
}

const NOW = Date.UTC(2025, 5, 1);
const DAY = 86_400_000;
let seq = 0;
function item(text: string, extra: Partial<MemoryItem> = {}): MemoryItem {
  const id = extra.id ?? `m${++seq}`;
  return {
    id,
    text,
    title: '',
    kind: 'evidence',
    tags: [],
    people: [],
    sites: [],
    pinned: false,
    createdAt: NOW - 10 * DAY,
    updatedAt: NOW - 10 * DAY,
    source: {},
    tokens: countTokens(text),
    ...extra,
  };
}


function task(text: string, extra: Partial<TaskReading> = {}): TaskReading {
  return { url: 'https://example.com/page', title: 'Page', site: 'example.com', adapter: 'generic', destination: 'documents', field: { text, kind: 'textarea' }, at: NOW, ...extra };
}

function request(items: MemoryItem[], t: TaskReading, settings: Partial<RankSettings> = {}, extra: Partial<RankRequest> = {}): RankRequest {
  const vectors = new Map(items.map((i) => [i.id, fakeEmbed(i.text)]));
  return {
    task: t,
    memory: arrayMemoryView(items, vectors),
    settings: { ...SETTINGS, ...settings },
    queryVectors: taskQueryTexts(t).map(fakeEmbed),
    now: NOW,
    ...extra,
  };
}

const ids = (r: { cards: { item: MemoryItem }[] }) => r.cards.map((c) => c.item.id);
/** A candidate's trace entry with its reason in words, as the panel shows it. */
const traceOf = (r: Awaited<ReturnType<typeof rankMemory>>, id: string) => {
  const e = r.trace.find((x) => x.id === id);
  return e && { ...e, reason: traceReason(e) };
};

describe('tokenize and lexical index', () => {
  it('lets inflections of a word meet', () => {
    expect(terms('painted paintings')).toEqual(terms('paint painting'));
    expect(terms('The retries failed')).toEqual(terms('retry fails'));
  });

  it('scores a rare matching word above a common one (BM25) and forgets removed items', () => {
    const idx = new LexicalIndex();
    idx.add('a', 'budget meeting notes');
    idx.add('b', 'meeting with the team');
    idx.add('c', 'meeting again');
    const hits = idx.search(LexicalIndex.queryTerms('budget meeting'), 10);
    expect(hits[0].id).toBe('a');
    expect(hits[0].matched).toContain('budget');
    idx.remove('a');
    expect(idx.search(LexicalIndex.queryTerms('budget'), 10)).toEqual([]);
    expect(idx.size).toBe(2);
  });

  it('does not let long saved pages that repeat a word crowd out the short note about it', () => {
    const notes = Array.from({ length: 300 }, (_, i) => `Note ${i}: errands, groceries and calls for week ${i % 52}.`);
    const page = ('Outdoor catalogue. ' + 'paddles tents stoves lanterns ropes '.repeat(6000) + 'kayak '.repeat(101)).trim();
    for (const pages of [3, 30]) {
      const idx = new LexicalIndex(RANK_LEXICAL);
      notes.forEach((t, i) => idx.add(`n${i}`, t));
      for (let p = 0; p < pages; p++) idx.add(`page${p}`, page);
      idx.add('kayak-note', 'Book the kayak for Saturday at the harbour.');
      expect(idx.search(LexicalIndex.queryTerms('kayak'), 5)[0].id).toBe('kayak-note');
    }
  });
});

describe('query', () => {
  it('folds the page around a short ask into the query and strips reply prefixes', () => {
    const t = task('re: budget', { subject: 'Q3 marketing budget', people: ['Dana Lee <dana@acme.com>'] });
    const plan = planQuery(t);
    expect(plan.ask).toBe('budget');
    expect(plan.short).toBe(true);
    expect(taskQueryText(t)).toContain('Q3 marketing budget');
    expect(taskQueryTexts(t).length).toBeGreaterThan(1);
    expect(plan.terms.get('budget')).toBe(1);
    expect(plan.terms.get(terms('marketing')[0])).toBeLessThan(1);
  });

  it('finds the background of a two-word ask through the page subject', async () => {
    const notes = [
      item('The flaky upload retry loop: exponential backoff resets on 503, see ticket INFRA-212', { id: 'retry' }),
      item('Lunch options near the office: tacos, ramen, salads', { id: 'lunch' }),
      item('Holiday schedule for December', { id: 'holiday' }),
    ];
    const r = await rankMemory(request(notes, task('fix it', { subject: 'Upload retry backoff broken again' })));
    expect(ids(r)[0]).toBe('retry');
  });
});

describe('filters', () => {
  it('never shows archived, never-include, dismissed or other-site items, however relevant', async () => {
    const text = 'Quarterly budget for the marketing team is 40k';
    const notes = [
      item(text, { id: 'ok' }),
      item(text + ' (archived copy)', { id: 'arch', archived: true }),
      item(text + ' (private)', { id: 'never', excluded: true }),
      item(text + ' (dismissed)', { id: 'dis' }),
      item(text + ' (other site)', { id: 'site', sites: ['mail.google.com'] }),
      item('Always sign budget mails to Bob as B.', { id: 'bob-rule', kind: 'instruction', people: ['Bob'] }),
    ];
    const r = await rankMemory(request(notes, task('what is the marketing budget this quarter'), {}, { dismissed: ['dis'] }));
    expect(ids(r)).toEqual(['ok']);
    for (const id of ['arch', 'never', 'dis', 'site', 'bob-rule']) expect(traceOf(r, id)?.stage).toBe('filter');
    expect(traceOf(r, 'arch')?.reason).toMatch(/archived/i);
    expect(traceOf(r, 'site')?.reason).toMatch(/mail\.google\.com/);
    expect(r.package?.text).not.toContain('archived copy');
  });

  it('keeps a site-scoped item on its own site', async () => {
    const notes = [item('Gmail filters: label invoices automatically', { id: 'g', sites: ['mail.google.com'] })];
    const r = await rankMemory(request(notes, task('invoices label', { site: 'mail.google.com', url: 'https://mail.google.com/x' })));
    expect(ids(r)).toContain('g');
  });
});

describe('guarantees', () => {
  it('keeps pinned items, global instructions and this recipient\'s notes even when evidence fills the budget', async () => {
    const filler = Array.from({ length: 30 }, (_, i) =>
      item(`Project Falcon launch plan part ${i}: the launch checklist, launch dates and launch owners for Falcon.`, { id: `f${i}` }),
    );
    const notes = [
      ...filler,
      item('My home address is 12 Elm Street', { id: 'pin', pinned: true }),
      item('Keep replies short and friendly.', { id: 'ins-old', kind: 'instruction', createdAt: NOW - 90 * DAY }),
      item('Never use exclamation marks.', { id: 'ins-new', kind: 'instruction', createdAt: NOW - DAY }),
      item('Dana prefers calls before 10am', { id: 'dana', people: ['dana@acme.com'] }),
    ];
    const r = await rankMemory(request(notes, task('Falcon launch checklist status', { people: ['Dana <dana@acme.com>'] }), { budgetTokens: 300 }));
    const got = ids(r);
    expect(got[0]).toBe('pin');
    expect(got).toEqual(expect.arrayContaining(['ins-new', 'ins-old', 'dana']));
    // Guarantees decide inclusion, not order: the evidence the task is about comes before rules that merely apply.
    expect(got.findIndex((id) => id.startsWith('f'))).toBeLessThan(got.indexOf('ins-old'));
    const scores = r.cards.slice(1).map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(r.cards.find((c) => c.item.id === 'dana')?.guaranteed).toBe('situation');
    expect(got.some((id) => id.startsWith('f'))).toBe(true);
    const used = r.cards.reduce((n, c) => n + c.item.tokens + 6, 0);
    expect(used).toBeLessThanOrEqual(300);
  });

  it('brings a thread\'s children along after their parent', async () => {
    const notes = [
      item('Vendor contract renewal: Acme wants a 3-year term', { id: 'p', thread: { id: 'p', seq: 0 } }),
      item('Reply: legal asked for a 1-year term instead', { id: 'c1', thread: { id: 'p', seq: 1 } }),
      item('Reply: Acme agreed to 2 years', { id: 'c2', thread: { id: 'p', seq: 2 } }),
      item('Unrelated note about printers', { id: 'x' }),
    ];
    const r = await rankMemory(request(notes, task('Acme vendor contract renewal term')));
    const got = ids(r);
    expect(got.indexOf('c1')).toBe(got.indexOf('p') + 1);
    expect(traceOf(r, 'c1')?.reason).toMatch(/Follows/);
  });
});

describe('an answer that repeats the words of the turn before it', () => {
  // A chat with an assistant: the user says something about themselves, the assistant's long answer repeats the
  // user's words around advice. Asked later, the user's own turn holds the fact; the answer only echoes it.
  const chat = [
    item("I just adopted a golden retriever puppy called Biscuit from the shelter in Leeds. What food should a retriever puppy eat?", { id: 'user', title: 'You', thread: { id: 's', seq: 0 } }),
    item(
      'Congratulations on adopting a golden retriever puppy from the shelter! A golden retriever puppy grows fast, so choose a large-breed puppy food. ' +
        'Feed your retriever puppy three or four small meals a day, keep fresh water out, and ask the shelter what the puppy ate there. ' +
        'Golden retriever puppies love to chew: puppy-safe toys help. Enjoy your new golden retriever!',
      { id: 'answer', title: 'Assistant', thread: { id: 's', seq: 1 } },
    ),
    item('Reminder: renew the car insurance before March.', { id: 'other' }),
  ];
  const ask = task('What is the name of the golden retriever puppy I adopted from the shelter?');
  const order = async (echo: number) => (await scoreMemory(request(chat, ask), { ...TUNING, echo })).ranked.map((s) => s.item.id);

  it('ranks the turn that said it first above the answer that echoes it', async () => {
    expect((await order(TUNING.echo)).slice(0, 2)).toEqual(['user', 'answer']);
  });

  it('the discount is what puts it first: without it the long answer leads', async () => {
    expect((await order(0))[0]).toBe('answer');
  });
});

describe('a long answer after a matching turn', () => {
  // Two chats with an assistant. In the first the user asks about a trip and the assistant's long answer is general
  // packing advice; in the second the user says when the trip is. Asked later, the second chat's turn holds the fact;
  // the long answer only follows a turn with the same words.
  const advice = 'For a hiking trip in the Lake District: ' + Array.from(
    { length: 8 },
    (_, i) => `Point ${i + 1}: bring layers, a waterproof jacket, sturdy boots, a map, snacks and plenty of water, and check the forecast each morning.`,
  ).join(' ');
  const chats = [
    item('What should I pack for my hiking trip to the Lake District?', { id: 'ask', title: 'You', thread: { id: 'c1', seq: 0 } }),
    item(advice, { id: 'long-answer', title: 'Assistant', thread: { id: 'c1', seq: 1 } }),
    item('Thanks, that list helps.', { id: 'thanks', title: 'You', thread: { id: 'c1', seq: 2 } }),
    item('By the way, I booked the Lake District trip for the second week of October.', { id: 'fact', title: 'You', thread: { id: 'c2', seq: 0 } }),
    item('Great, October is a lovely time for the fells.', { id: 'reply', title: 'Assistant', thread: { id: 'c2', seq: 1 } }),
    item('Reminder: renew the car insurance before March.', { id: 'other' }),
  ];
  const ask = task('When is my hiking trip to the Lake District?');
  const order = async (standalone: number) => (await scoreMemory(request(chats, ask), { ...TUNING, standalone })).ranked.map((s) => s.item.id);
  const place = (ids: string[], id: string) => ids.indexOf(id);

  it('ranks the turn that states the fact above the long answer that only follows a matching question', async () => {
    const ids = await order(TUNING.standalone);
    expect(place(ids, 'fact')).toBeLessThan(place(ids, 'long-answer'));
  });

  it('a long answer no longer takes the whole of the question’s evidence: taking it all, it ranks above the fact', async () => {
    const ids = await order(0);
    expect(place(ids, 'long-answer')).toBeLessThan(place(ids, 'fact'));
  });

  it('a short reply still inherits the turn it answers (it ranks above the unrelated note)', async () => {
    const ids = await order(TUNING.standalone);
    expect(place(ids, 'reply')).toBeLessThan(place(ids, 'other'));
  });
});

describe('an ask answered across several conversations', () => {
  // One long chat about a kayak trip matches the ask in every turn; another chat holds the one turn that says which
  // kayak the user sold. Asked about both, the user needs that turn in the first few, not after the whole first chat.
  const trip = Array.from({ length: 8 }, (_, i) =>
    item(`Day ${i + 1} of the kayak trip: we paddled along the coast and camped on a beach near the river mouth.`, {
      id: `trip${i}`,
      title: i % 2 ? 'Assistant' : 'You',
      thread: { id: 'trip', seq: i },
    }),
  );
  const sold = item('After the trip I sold the kayak to a neighbour.', { id: 'sold', title: 'You', thread: { id: 'garage', seq: 0 } });
  const chats = [...trip, sold, item('Reminder: renew the car insurance before March.', { id: 'other' })];
  const ask = task('Which kayak did I sell, and where did the kayak trip go?');
  const order = async (threadSpread: number) => (await scoreMemory(request(chats, ask), { ...TUNING, threadSpread })).ranked.map((s) => s.item.id);

  it('brings the other conversation’s turn up among the first conversation’s best turns', async () => {
    const ids = await order(TUNING.threadSpread);
    expect(ids.indexOf('sold')).toBe(TUNING.threadFree);
    // The first conversation's best turns keep their places.
    expect(ids.slice(0, TUNING.threadFree).every((id) => id.startsWith('trip'))).toBe(true);
  });

  it('says on Why? of a later turn that it was placed lower to make room', async () => {
    const r = await rankMemory(request(chats, ask, { maxCards: 12, budgetTokens: 2000 }));
    const ranked = (await scoreMemory(request(chats, ask), TUNING)).ranked.filter((s) => s.item.thread?.id === 'trip');
    const first = ranked.slice(0, TUNING.threadFree).map((s) => s.item.id);
    const later = ranked.slice(TUNING.threadFree).map((s) => s.item.id);
    const said = (id: string) => [traceOf(r, id)?.reason ?? '', ...(r.cards.find((c) => c.item.id === id)?.why ?? [])].join(' ');
    const note = /turn of its conversation in this list/;
    expect(later.length).toBeGreaterThan(0);
    for (const id of later) expect(said(id)).toMatch(note);
    for (const id of first) expect(said(id)).not.toMatch(note);
  });

  it('without the spread, the whole first conversation comes first', async () => {
    expect((await order(0)).indexOf('sold')).toBeGreaterThanOrEqual(7);
  });

  it('a short chat on one topic keeps only its two best turns ahead of the other conversation’s turn', async () => {
    expect((await order(TUNING.threadSpread)).indexOf('sold')).toBe(2);
  });
});

describe('a long conversation that matches in several places', () => {
  // A thirty-turn talk over many things mentions the shed roof in five turns, far apart; a note says the same once.
  // Each of the talk's mentions may be a different fact (who repairs it, when, the cost): they keep their places
  // ahead of the note, where a short chat's fourth and fifth turns on one topic would give way.
  const roof = ['Tom', 'Ann', 'Bob', 'Eve', 'Joe'].map((who) => `${who} looked at the shed roof.`);
  const talk = Array.from({ length: 30 }, (_, i) =>
    item(i % 6 === 0 ? roof[i / 6] : `Turn ${i}: we chatted about the weather, the kids and dinner plans.`, {
      id: `talk${i}`,
      title: i % 2 ? 'Sam' : 'You',
      thread: { id: 'talk', seq: i },
    }),
  );
  const note = item('Kim looked at the shed roof.', { id: 'note', createdAt: NOW - 40 * DAY, updatedAt: NOW - 40 * DAY });
  const ask = task('What about the shed roof?');

  it('keeps all five mentions of the long talk ahead of the older note', async () => {
    const ids = (await scoreMemory(request([...talk, note], ask), TUNING)).ranked.map((s) => s.item.id);
    const mentions = [0, 6, 12, 18, 24].map((i) => ids.indexOf(`talk${i}`));
    expect(Math.max(...mentions)).toBeLessThan(ids.indexOf('note'));
  });
});

describe('budget, redundancy, trace, empty state', () => {
  const many = Array.from({ length: 20 }, (_, i) =>
    item(`Budget item ${i}: the budget review covers spend category ${i} and its forecast for next quarter budget planning.`, { id: `b${i}` }),
  );

  it('never exceeds the budget, in cards or in the package', async () => {
    for (const budget of [40, 90, 150, 400]) {
      const r = await rankMemory(request(many, task('budget review forecast'), { budgetTokens: budget, maxCards: 20 }));
      const used = r.cards.reduce((n, c) => n + c.item.tokens + 6, 0);
      expect(used).toBeLessThanOrEqual(budget);
      expect(r.package!.tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(r.package!.text)).toBe(r.package!.tokens);
      const over = r.trace.find((e) => e.stage === 'budget');
      if (r.cards.length < 20) expect(over && traceReason(over)).toMatch(/budget/);
    }
  });

  it('gives a question evidence spread over short turns more one-line cards, and long cards count whole', async () => {
    const short = Array.from({ length: 12 }, (_, i) => item(`Harbour visit ${i}: we met at the harbour cafe.`, { id: `s${i}` }));
    const r = await rankMemory(request(short, task('harbour cafe visit'), { maxCards: 4, budgetTokens: 5000 }));
    expect(r.cards).toHaveLength(6);
    // One card stays one card.
    expect((await rankMemory(request(short, task('harbour cafe visit'), { maxCards: 1, budgetTokens: 5000 }))).cards).toHaveLength(1);
    const long = Array.from({ length: 12 }, (_, i) =>
      item(`Harbour visit ${i}: we met at the harbour cafe. ${Array.from({ length: 40 }, (_, k) => `topic${i}n${k}`).join(' ')}`, { id: `l${i}` }),
    );
    expect((await rankMemory(request(long, task('harbour cafe visit'), { maxCards: 4, budgetTokens: 5000 }))).cards).toHaveLength(4);
  });

  it('says why a card did not fit in the budget, with its score and the words it matched, the same after the trip to the panel', async () => {
    const r = await rankMemory(request(many, task('budget review forecast'), { budgetTokens: 90, maxCards: 20 }));
    const over = r.trace.find((e) => e.stage === 'budget')!;
    const left = 90 - r.cards.reduce((n, c) => n + c.item.tokens + 6, 0);
    const note = many.find((it) => it.id === over.id)!;
    const need = note.tokens + 6;
    // Its words are read from its text when the panel shows it (the worker's `trace:words`).
    expect(needsWords(over)).toBe(true);
    expect(traceReason(withWords(over, writtenTerms(over.notes!.terms!, note)))).toMatch(
      new RegExp(`^Did not fit the 90-token budget \\(needs ${need}, ${left} left\\)\\. Score 0\\.\\d\\d: .*shares words \\(\\+0\\.\\d\\d\\): "Budget", "review", "forecast"`),
    );
    // The panel gets a copy of the trace (a message between the worker and the page): its words are the same.
    const copied: typeof r.trace = JSON.parse(JSON.stringify(r.trace));
    expect(copied.map(traceReason)).toEqual(r.trace.map(traceReason));
  });

  it('drops a near-duplicate of a selected card and says which', async () => {
    const notes = [
      item('The wifi password for the guest network is tulip-42', { id: 'a' }),
      item('The wifi password for the guest network is tulip-42.', { id: 'dup' }),
      item('Printer on floor 2 needs toner', { id: 'z' }),
    ];
    const r = await rankMemory(request(notes, task('guest wifi password')));
    expect(ids(r).filter((id) => id === 'a' || id === 'dup')).toHaveLength(1);
    const dropped = traceOf(r, ids(r).includes('a') ? 'dup' : 'a');
    expect(dropped?.stage).toBe('redundancy');
    expect(dropped?.reason).toMatch(/same as/);
  });

  it('names the deciding reason for each candidate left out', async () => {
    // One-line cards count as half a card, up to half as many cards again: three of them for two cards.
    const r = await rankMemory(request(many, task('budget review forecast'), { maxCards: 2, budgetTokens: 5000 }));
    expect(r.cards).toHaveLength(3);
    expect(r.trace.filter((e) => e.included)).toHaveLength(3);
    const left = r.trace.filter((e) => !e.included);
    expect(left.length).toBeGreaterThan(0);
    for (const e of left) expect(['limit', 'redundancy', 'threshold']).toContain(e.stage);
    expect(left.some((e) => /Beyond the 2 cards/.test(traceReason(e)))).toBe(true);
    const top = r.trace[0];
    expect(traceReason(top)).toMatch(/shares words|similar in meaning/);
    expect(top.contributions!.lexical).toBeGreaterThan(0);
  });

  it('says nothing is relevant instead of showing noise', async () => {
    const r = await rankMemory(request(many, task('birthday cake recipe with strawberries')));
    expect(r.empty).toBe(true);
    expect(r.cards.filter((c) => !c.guaranteed)).toHaveLength(0);
    expect(r.trace.some((e) => e.stage === 'threshold')).toBe(true);
  });

  it('does not say nothing is relevant when pinned notes took the room a relevant note needed', async () => {
    const pinned = Array.from({ length: 3 }, (_, i) =>
      item(`Pinned reference ${i}: ${Array.from({ length: 30 }, (_, k) => `standing${i}fact${k}`).join(' ')}.`, { id: `p${i}`, pinned: true }),
    );
    const r = await rankMemory(request([...pinned, ...many], task('budget review forecast'), { budgetTokens: pinned.reduce((n, p) => n + p.tokens + 6, 0) + 10 }));
    expect(r.empty).toBe(false);
    expect(ids(r).sort()).toEqual(['p0', 'p1', 'p2']);
    const refused = r.trace.find((e) => e.id.startsWith('b') && e.stage === 'budget');
    expect(refused && traceReason(refused)).toMatch(/^Did not fit the \d+-token budget/);
    // The same when the pinned cards fill the cards shown rather than the budget.
    const full = await rankMemory(request([...pinned, ...many], task('budget review forecast'), { maxCards: 3, budgetTokens: 5000 }));
    expect(full.empty).toBe(false);
    expect(ids(full).sort()).toEqual(['p0', 'p1', 'p2']);
    expect(full.trace.some((e) => e.id.startsWith('b') && /Beyond the 3 cards/.test(traceReason(e)))).toBe(true);
  });
});

describe('package', async () => {
  const cards = (await rankMemory(
    request(
      [
        item('Dana owns the Q3 budget; the cap is 40k', { id: 'e1', title: 'Q3 budget' }),
        item('Write in plain English, no jargon.', { id: 'i1', kind: 'instruction' }),
      ],
      task('Q3 budget cap question'),
    ),
  )).cards;

  it('keeps instructions and evidence apart, formatted for the destination', () => {
    const chat = buildPackage(cards, 'chat', 500);
    expect(chat.text).toMatch(/\*\*How I like things done:\*\*\n- Write in plain English/);
    expect(chat.text).toMatch(/\*\*Background:\*\*\n- \*\*Q3 budget:\*\* Dana owns/);
    const mail = buildPackage(cards, 'email', 500);
    expect(mail.text).not.toMatch(/\*\*|^- /m);
    expect(mail.text).toContain('Q3 budget: Dana owns the Q3 budget');
    expect(mail.ids.sort()).toEqual(['e1', 'i1']);
  });

  it('cuts rather than overflows when one card alone is over budget', async () => {
    const long = item('word '.repeat(400), { id: 'long' });
    const p = buildPackage((await rankMemory(request([long], task('word'), { budgetTokens: 5000 }))).cards, 'documents', 60);
    expect(p.tokens).toBeLessThanOrEqual(60);
    expect(p.ids).toEqual(['long']);
    expect(p.text).toMatch(/…$/);
  });
});

describe('retrieval signals', () => {
  const order = async (req: RankRequest) => (await scoreMemory(req)).ranked.map((s) => s.item.id);

  it('matches dates the ask names against the day and month items are dated', async () => {
    const may3 = new Date(2023, 4, 3, 14, 0).getTime();
    expect(askDateTerms('What did Maria do on May 3, 2023?', NOW)).toEqual(itemDateTerms(may3));
    expect(askDateTerms('What did she find on 3rd May, 2023?', NOW)).toEqual(itemDateTerms(may3));
    expect(askDateTerms('What did we plan in May 2023?', NOW)).toEqual([itemDateTerms(may3)[1]]);
    expect(askDateTerms('May I ask what you think?', NOW)).toEqual([]);
    const items = [
      item('Went to the farmers market and bought apples', { id: 'early', createdAt: new Date(2023, 3, 20).getTime() }),
      item('Went to the farmers market, got pears', { id: 'then', createdAt: may3 }),
      item('Went to the farmers market for honey', { id: 'late', createdAt: new Date(2023, 5, 9).getTime() }),
    ];
    expect((await order(request(items, task('What did I get at the market on May 3, 2023?'))))[0]).toBe('then');
  });

  it('prefers items by or about the person the ask names', async () => {
    const items = [
      item('I started learning the cello', { id: 'ana', people: ['Ana'] }),
      item('I started learning the cello', { id: 'ben', people: ['Ben'] }),
      item('Bought a bike', { id: 'other' }),
    ];
    const sem = async (ask: string, id: string) => (await scoreMemory(request(items, task(ask)))).retrieval.signals.get(id)!.semantic;
    // Same text, same meaning: only who it is by tells them apart.
    expect(await sem('When did they start learning the cello?', 'ana')).toBeCloseTo(await sem('When did they start learning the cello?', 'ben'));
    expect(await sem('When did Ana start learning the cello?', 'ana')).toBeGreaterThan(await sem('When did Ana start learning the cello?', 'ben'));
    expect((await order(request(items, task('When did Ana start learning the cello?'))))[0]).toBe('ana');
    expect((await order(request(items, task('When did Ben start learning the cello?'))))[0]).toBe('ben');
  });

  it('finds who the ask names from the person\'s postings, reading no candidate\'s list of words', async () => {
    const items = Array.from({ length: 300 }, (_, i) =>
      item(`Cello practice notes, week ${i}: scales and a slow piece`, { id: `n${i}`, people: i % 10 === 0 ? ['Ana'] : i % 10 === 1 ? ['Ben'] : [] }),
    );
    const docHas = vi.spyOn(LexicalIndex.prototype, 'docHas');
    try {
      const sm = await scoreMemory(request(items, task('What did Ana practise on the cello?')));
      // Every candidate was weighed for the person (300 of them), and not one word list was read for it.
      expect(sm.retrieval.signals.size).toBe(300);
      expect(docHas).not.toHaveBeenCalled();
      const about = (id: string) => items.find((x) => x.id === id)!.people.includes('Ana');
      expect(sm.ranked.slice(0, 30).every((s) => about(s.item.id))).toBe(true);
    } finally {
      docHas.mockRestore();
    }
  });

  it('scores phrases: two ask words side by side beat the same words apart', async () => {
    expect(phrases('the support group meets')).toEqual(['support group', 'group meet']);
    const items = [
      item('The group said my support of the plan helped', { id: 'apart' }),
      item('I joined a support group last week', { id: 'phrase' }),
    ];
    expect((await order(request(items, task('support group'))))[0]).toBe('phrase');
  });

  it('in a memory of more than PHRASE_LOOK_LIMIT items holding both words, looks for the rarer phrases only', async () => {
    // Every note holds "team" and "week", most apart and some side by side; a few say "support group". Counting "team
    // week" would read the sequence of every note: the ask's other pair is still found as a phrase.
    const notes = Array.from({ length: PHRASE_LOOK_LIMIT + 200 }, (_, i) =>
      i % 50 === 0 ? item(`support group for the team this week, note ${i}`, { id: `s${i}` }) : item(`the team met; one week on, note ${i}`, { id: `n${i}` }),
    );
    notes.push(item('The team week went well', { id: 'side-by-side' }));
    const big = await scoreMemory(request(notes, task('team week support group')));
    const matched = (id: string) => big.retrieval.lexical.get(id)?.matched ?? [];
    expect(matched('s0')).toContain('support group');
    expect(matched('side-by-side')).not.toContain('team week');
    // Below the limit every phrase counts, the common pair too.
    const small = await scoreMemory(request(notes.slice(-300), task('team week support group')));
    expect(small.retrieval.lexical.get('side-by-side')?.matched).toContain('team week');
  });

  it('finds a reply by what it answers through its context vector', async () => {
    const q = item('Where did you go on holiday this summer?', { id: 'q', thread: { id: 't', seq: 0 } });
    const a = item('Lisbon, and the food was great', { id: 'a', thread: { id: 't', seq: 1 } });
    const other = item('Lunch plans for Friday', { id: 'o' });
    expect(contextText(a, q)).toBe('Where did you go on holiday this summer?\nLisbon, and the food was great');
    expect(contextText(q, undefined)).toBeUndefined();
    const t = task('summer holiday destination');
    const req = request([q, a, other], t);
    const view = req.memory as ReturnType<typeof arrayMemoryView>;
    const before = (await scoreMemory(req)).retrieval.signals.get('a')!.semantic;
    view.setContextVector('a', fakeEmbed(contextText(a, q)!));
    expect((await scoreMemory(req)).retrieval.signals.get('a')!.semantic).toBeGreaterThan(before);
  });
});

describe('ranking at scale keeps every decision explained', () => {
  it('includes the rules that apply within their share of the budget, not a count, and explains every other one', async () => {
    const rules = Array.from({ length: 40 }, (_, i) =>
      item(`House rule number ${i}: write the date in full.`, { id: `rule${i}`, kind: 'instruction', createdAt: NOW - (i + 1) * DAY, updatedAt: NOW - (i + 1) * DAY }),
    );
    const notes = [item('The kayak trip is on Saturday at the harbour.', { id: 'kayak' })];
    const r = await rankMemory(request([...rules, ...notes], task('When is the kayak trip?')));
    expect(ids(r)).toContain('kayak');
    const included = r.cards.filter((c) => c.kind === 'instruction');
    // More than the three newest: as many as their share of the budget (30% of 800 tokens) holds.
    expect(included.length).toBeGreaterThan(3);
    const share = SETTINGS.budgetTokens * TUNING.instructionShare;
    expect(included.reduce((n, c) => n + c.item.tokens + 6, 0)).toBeLessThanOrEqual(share);
    for (let i = 0; i < 40; i++) {
      if (included.some((c) => c.item.id === `rule${i}`)) continue;
      const e = traceOf(r, `rule${i}`);
      expect(e?.included).toBe(false);
      expect(e?.stage).toBe('budget');
      expect(e?.reason).toMatch(/30% of the budget/);
    }
    expect(new Set(r.trace.map((e) => e.id)).size).toBe(r.trace.length);
  });

  it('rules do not take the places of the notes: pinned cards fill the panel and the rules that apply still show', async () => {
    // Three one-line pinned cards fill two cards' worth of reading (at most half as many cards again).
    const pins = Array.from({ length: 3 }, (_, i) => item(`Pinned fact ${i} about the harbour.`, { id: `pin${i}`, pinned: true }));
    const rules = Array.from({ length: 12 }, (_, i) => item(`Rule ${i}: sign with initials.`, { id: `r${i}`, kind: 'instruction', createdAt: NOW - (i + 1) * DAY }));
    const note = item('The harbour closes at five.', { id: 'note' });
    const r = await rankMemory(request([...pins, ...rules, note], task('harbour'), { maxCards: 2 }));
    expect(r.cards.filter((c) => c.kind === 'evidence')).toHaveLength(3);
    expect(traceOf(r, 'note')).toMatchObject({ included: false, stage: 'limit', reason: expect.stringMatching(/^Beyond the 2 cards shown/) });
    expect(r.cards.filter((c) => c.kind === 'instruction').length).toBeGreaterThan(0);
  });

  it('explains instructions too large for the budget or their share, and still includes one that fits', async () => {
    const pin = item('Pinned: the harbour office opens at nine and closes at five on weekdays, later in summer, and the key is with Ana at the front desk.', { id: 'pin', pinned: true });
    const long = Array.from({ length: 6 }, (_, i) =>
      item(`Rule ${i}: always write a long formal greeting that names the recipient, their role, their team and the date, then restate the question before answering it in full.`, { id: `long${i}`, kind: 'instruction', createdAt: NOW - (i + 1) * DAY }),
    );
    const short = item('Sign as B.', { id: 'short', kind: 'instruction', createdAt: NOW - 10 * DAY });
    const r = await rankMemory(request([pin, ...long, short], task('harbour office hours'), { budgetTokens: 120 }));
    expect(ids(r)).toContain('short');
    for (let i = 0; i < 6; i++) expect(traceOf(r, `long${i}`)).toMatchObject({ included: false, stage: 'budget', reason: expect.stringMatching(/^Instructions may take 30% of the budget/) });
    expect(r.package!.tokens).toBeLessThanOrEqual(120);
  });

  it('counts the package exactly when card lines start or end with punctuation and slashes', () => {
    const texts = ['/etc/hosts needs the new IP…', 'Paths: /srv/app/…/', '“Quoted” — and done.', '/'];
    const cards = texts.map((t, i) => ({ item: item(t, { id: `p${i}`, title: i % 2 ? 'Paths' : '' }), kind: 'evidence' as const, score: 1, factors: { semantic: 1, lexical: 0, recency: 0, priority: 0, continuity: 0, situation: 0 }, matched: [], why: [] }));
    for (const dest of DESTINATION_NAMES) {
      const pkg = buildPackage(cards, dest, 800);
      expect(pkg.ids).toHaveLength(4);
      expect(pkg.tokens).toBe(countTokens(pkg.text));
      const tight = buildPackage(cards, dest, pkg.tokens - 1);
      expect(tight.tokens).toBeLessThanOrEqual(pkg.tokens - 1);
      expect(tight.tokens).toBe(countTokens(tight.text));
    }
  });

  it('answers long BM25 queries exactly while items are added, edited and removed between them', () => {
    // 48 query words and their phrases: the matched terms of a hit span several 32-term words of the hit bit sets,
    // and the length normalisation must follow every change (the average length moves with each one).
    const words = Array.from({ length: 48 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
    let s = 11;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
    const text = () => Array.from({ length: 3 + Math.floor(rnd() * 30) }, () => words[Math.floor(rnd() * words.length)]).join(' ');
    const live = new LexicalIndex(RANK_LEXICAL);
    const docs = new Map<string, string>();
    const query = LexicalIndex.queryTerms(words.join(' '));
    for (const ph of phrases(words.slice(0, 12).join(' '))) query.set(ph, 1);
    const hitsOf = (index: LexicalIndex) => index.search(query, 5000).map((h) => [h.id, h.score.toFixed(9), h.matched.join()].join());
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 150; i++) {
        const id = `d${Math.floor(rnd() * 400)}`;
        if (rnd() < 0.2) {
          live.remove(id);
          docs.delete(id);
        } else {
          const t = text();
          live.addItem({ id, text: t, title: '', tags: [], people: [] });
          docs.set(id, t);
        }
      }
      const fresh = new LexicalIndex(RANK_LEXICAL);
      for (const [id, t] of docs) fresh.addItem({ id, text: t, title: '', tags: [], people: [] });
      const a = hitsOf(fresh);
      expect(a.length).toBe(docs.size);
      expect(new Set(hitsOf(live))).toEqual(new Set(a));
    }
    // A hit lists the query terms it holds, in query order, however many there are.
    const [top] = live.search(query, 1);
    const held = new Set(live.termsOf(top.id)!.keys());
    expect(top.matched.filter((m) => !m.includes(' '))).toEqual([...query.keys()].filter((t) => held.has(t)));
    expect(top.matched.filter((m) => !m.includes(' ')).length).toBeGreaterThan(0);
  });

  it('answers BM25 queries exactly as a fresh index after most of its items were deleted and re-added', () => {
    const words = 'alpha beta gamma delta epsilon zeta theta iota kappa lambda painted running houses budget'.split(' ');
    let s = 5;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
    const text = () => Array.from({ length: 10 }, () => words[Math.floor(rnd() * words.length)]).join(' ');
    const churned = new LexicalIndex(RANK_LEXICAL);
    const docs = new Map<string, string>();
    for (let i = 0; i < 3000; i++) {
      const id = `d${i % 1200}`;
      const t = text();
      docs.set(id, t);
      churned.addItem({ id, text: t, title: '', tags: [], people: [] });
      if (i % 7 === 0) {
        churned.remove(`d${(i * 3) % 1200}`);
        docs.delete(`d${(i * 3) % 1200}`);
      }
    }
    const fresh = new LexicalIndex(RANK_LEXICAL);
    for (const [id, t] of docs) fresh.addItem({ id, text: t, title: '', tags: [], people: [] });
    expect(churned.size).toBe(fresh.size);
    for (const q of ['painted houses', 'alpha beta gamma', 'budget', 'running lambda']) {
      const terms = LexicalIndex.queryTerms(q);
      for (const ph of phrases(q)) terms.set(ph, 1);
      // Every hit (a cut at 50 would fall among equal scores, ordered by when items were added).
      const a = fresh.search(terms, 5000).map((h) => [h.id, h.score.toFixed(9), h.matched.join()].join());
      const b = churned.search(terms, 5000).map((h) => [h.id, h.score.toFixed(9), h.matched.join()].join());
      expect(a.length).toBeGreaterThan(50);
      expect(new Set(b)).toEqual(new Set(a));
      for (const t of terms.keys()) expect(churned.idf(t)).toBeCloseTo(fresh.idf(t), 12);
    }
  });
});

describe('how an item is named and which rule is newer', () => {
  it('of two contradicting rules saved at the same moment, the same one stands whatever the task asks about', async () => {
    const at = { createdAt: NOW - 3 * DAY, updatedAt: NOW - 3 * DAY };
    const british = item('Always use British spelling in replies', { id: 'british', kind: 'instruction', ...at });
    const american = item('Always use American spelling in replies', { id: 'american', kind: 'instruction', ...at });
    const overridden = async (ask: string) =>
      (await rankMemory(request([british, american], task(ask)))).trace.filter((t) => traceReason(t).startsWith('Superseded by')).map((t) => t.id);
    const one = await overridden('british spelling in replies');
    expect(one).toHaveLength(1);
    expect(await overridden('american spelling in replies')).toEqual(one);
  });

  it('an untitled item is named by the start of its text; an instruction edited last is the standing one', async () => {
    const long = 'Quarterly budget review: the contractor line moves to the operations cost centre from July onwards';
    const r = await rankMemory(request([item(long, { id: 'u' })], task('quarterly budget review contractor line')));
    expect(r.trace.find((t) => t.id === 'u')?.title).toBe('Quarterly budget review: the contractor line moves to the op');
    // Written first but edited yesterday: the British rule is the newer decision, the American one gives way to it.
    const edited = item('Always use British spelling in replies', { id: 'british', kind: 'instruction', createdAt: NOW - 20 * DAY, updatedAt: NOW - DAY });
    const other = item('Always use American spelling in replies', { id: 'american', kind: 'instruction', createdAt: NOW - 5 * DAY, updatedAt: NOW - 5 * DAY });
    const note = item('Replies to the Leeds office go out on Fridays; spelling was raised in last week\'s review.', { id: 'note' });
    const r2 = await rankMemory(request([edited, other, note], task('which spelling in replies')));
    expect(r2.cards.map((c) => c.item.id)).toContain('british');
    expect(traceOf(r2, 'american')).toMatchObject({ included: false, reason: expect.stringMatching(/^Superseded by “Always use British spelling in replies”/) });
  });
});

describe('words most of memory holds', () => {
  // A long chat between two people: every turn holds its speaker's name (title and people), so each name is in about
  // half of memory and tells nothing about which turn is meant; the person focus already keeps to Mel's turns.
  const filler = ['the weather', 'dinner plans', 'the kids', 'a new film', 'work this week', 'the garden'];
  const chat: MemoryItem[] = [];
  let s = 0;
  const say = (who: string, text: string, id?: string) =>
    chat.push(item(text, { id: id ?? `t${chat.length}`, title: who, people: [who], thread: { id: `s${s}`, seq: chat.filter((c) => c.thread?.id === `s${s}`).length } }));
  for (const topic of filler) {
    s++;
    say('Caro', `We talked about ${topic} again.`);
    say('Mel', `Yes, ${topic} came up.`);
  }
  s++;
  say('Caro', 'Mel, how was your week?');
  say('Mel', 'I painted a horse.', 'named');
  s++;
  say('Caro', 'How was the weekend?');
  say('Mel', 'I painted a horse by the lake with friends at the weekend.', 'unnamed');
  const ask = task('What has Mel painted?');

  it('a turn after one that says its speaker’s name is not taken for an echo of it', async () => {
    const ids = (await scoreMemory(request(chat, ask))).ranked.map((r) => r.item.id);
    // The shorter turn says it most directly; it came after a turn that called Mel by name, which repeats nothing.
    expect(ids.indexOf('named')).toBeLessThan(ids.indexOf('unnamed'));
  });

  it('still marks such a word where it matched, and a memory on one topic is still found by its words', async () => {
    const notes = ['budget for March', 'budget for April', 'budget review notes'].map((t, i) => item(t, { id: `b${i}` }));
    const r = await rankMemory(request(notes, task('budget review')));
    expect(r.cards[0].item.id).toBe('b2');
    expect(r.cards[0].matched).toEqual(expect.arrayContaining(['budget', 'review']));
  });
});

describe('meaning above the usual range of a paraphrase', () => {
  it('keeps the closer of two strong matches ahead instead of scoring both in full', async () => {
    const items = [item('cello lessons on Tuesday', { id: 'same' }), item('cello lessons on Tuesday at school', { id: 'near' })];
    const signals = (await scoreMemory(request(items, task('cello lessons on Tuesday', { title: '' })))).retrieval.signals;
    expect(signals.get('same')!.semantic).toBe(1);
    expect(signals.get('near')!.semantic).toBeLessThan(1);
  });
});
