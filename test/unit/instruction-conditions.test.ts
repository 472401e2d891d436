import { describe, expect, it } from 'vitest';
import { createItem } from '../../lib/memory/normalize';
import { guessScope } from '../../lib/memory/scope-guess';
import type { MemoryInput, MemoryItem } from '../../lib/memory/types';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { terms } from '../../lib/memory/index/tokenize';
import { rankMemory } from '../../lib/rank/rank';
import { overrides } from '../../lib/rank/overridden-instructions';
import type { TaskReading } from '../../lib/rank/types';
import { DEFAULT_SETTINGS } from '../../lib/settings/defaults';
import { reasonOf } from './rank-fixtures';

const NOW = Date.UTC(2026, 2, 10);
const DAY = 86_400_000;

function save(input: MemoryInput, daysAgo = 5): MemoryItem {
  return createItem({ createdAt: NOW - daysAgo * DAY, ...input }, NOW);
}
const rule = (text: string, daysAgo = 5) => save({ text, kind: 'instruction' }, daysAgo);

const rank = (items: MemoryItem[], task: TaskReading) =>
  rankMemory({ task, memory: arrayMemoryView(items, new Map()), settings: DEFAULT_SETTINGS, now: NOW });

const email = (body: string, people: string[] = [], subject?: string): TaskReading => ({
  url: 'https://mail.google.com/mail/u/0/#inbox?compose=new', title: 'Compose', site: 'mail.google.com', adapter: 'gmail', destination: 'email',
  field: { text: body, kind: 'contenteditable' }, people, ...(subject ? { subject } : {}), at: NOW,
});
const chat = (ask: string): TaskReading => ({
  url: 'https://chatgpt.com/c/1', title: 'ChatGPT', site: 'chatgpt.com', adapter: 'chatgpt', destination: 'chat', field: { text: ask, kind: 'contenteditable' }, at: NOW,
});
const doc = (text: string): TaskReading => ({
  url: 'https://docs.google.com/document/d/1', title: 'Garden plan', site: 'docs.google.com', adapter: 'gdocs', destination: 'documents',
  field: { text, kind: 'contenteditable' }, at: NOW,
});

const shownIds = (r: Awaited<ReturnType<typeof rank>>) => r.cards.map((c) => c.item.id);

describe('the guess gives a rule the condition its text states', () => {
  it.each([
    ['When writing about a vendor contract renewal, always copy Priya from procurement.', 'subject', ['vendor contract renewal']],
    ['For anything about pricing, say prices exclude VAT.', 'subject', ['pricing']],
    ['Anything about reserves: our policy is three months of running costs.', 'subject', ['reserves']],
    ['When writing about invoices or late payment, state the due date.', 'subject', ['invoices', 'late payment']],
    ['When emailing Nadia Haddad, keep it to three bullet points; she reads on her phone.', 'people', ['Nadia Haddad']],
    ['In emails to Raj Patel, include the Jira ticket numbers.', 'people', ['Raj Patel']],
    ['When writing to or about Dana, mention the customer impact first.', 'people', ['Dana']],
    ['When emailing the journal editor Dr. Achebe, follow the cover letter template.', 'people', ['Achebe']],
    ['Copy Priya on anything I send to Marco Bellini at Fennwick.', 'people', ['Marco Bellini']],
    ['With my manager Kwame Asante, always include an estimate.', 'people', ['Kwame Asante']],
    ['Mrs. Delgado reads English as a second language; use simple sentences with her.', 'people', ['Delgado']],
  ])('%s → %s %j', (text, kind, values) => {
    expect(guessScope({ text })).toEqual({ kind, values, set: 'guess' });
  });

  it('on every path: typed, and in a memory file without a scope', () => {
    expect(save({ text: 'When writing about a vendor contract renewal, always copy Priya.', kind: 'instruction' }).scope?.kind).toBe('subject');
    expect(save({ text: 'When emailing Nadia Haddad, keep it short.', kind: 'instruction', source: { format: 'memory-file' } }).scope)
      .toEqual({ kind: 'people', values: ['Nadia Haddad'], set: 'guess' });
  });
});

describe('a conditional rule shows when its condition holds, and only then', () => {
  const renewal = rule('When writing about a vendor contract renewal, always copy Priya from procurement.', 30);
  // Newer than the renewal rule: under a "three newest" cap these would have pushed it out.
  const everywhere = [1, 2, 3, 4].map((i) => rule(['Use British spelling.', 'Keep sentences short.', 'No exclamation marks.', 'Write dates as 3 March 2026.'][i - 1], i));
  const note = save({ text: 'Fennwick contract: 120 seats at £38 per seat, ends 30 June.' });

  it('shows the renewal rule on a renewal email even when four newer rules apply too', async () => {
    const r = await rank([renewal, ...everywhere, note], email('Hi Marco, our contract with Fennwick is up for renewal at the end of June.', ['marco@fennwick.com']));
    expect(shownIds(r)).toContain(renewal.id);
    for (const e of everywhere) expect(shownIds(r)).toContain(e.id);
  });

  it('leaves it out of an email about something else, saying its condition did not hold', async () => {
    const lunch = save({ text: 'Team lunch is on Friday at the Italian place.' });
    const r = await rank([renewal, ...everywhere, note, lunch], email('Hi all, team lunch is on Friday, see you there.', ['team@x.example']));
    expect(shownIds(r)).not.toContain(renewal.id);
    expect(reasonOf(r.trace, renewal.id)).toMatch(/only when the task is about “vendor contract renewal”/);
  });

  it('a person rule applies when the task names the person as its audience ("my manager Dana")', async () => {
    const dana = rule('When writing to or about Dana, mention the customer impact first.');
    const slip = save({ text: 'Audit log export slipped two weeks: the storage migration took longer.' });
    const r = await rank([dana, slip], chat('Help me write a status update for my manager Dana about the audit log export slipping.'));
    expect(shownIds(r)).toContain(dana.id);
    expect(r.cards.find((c) => c.item.id === dana.id)?.why[0]).toMatch(/names Dana/);
    const other = await rank([dana, slip], chat('Write a status update for the team about the audit log export slipping.'));
    expect(shownIds(other)).not.toContain(dana.id);
  });

  it('a person rule applies when the recipient is the person, by name or by an address that spells it', async () => {
    const nadia = rule('When emailing Nadia Haddad, keep it to three bullet points.');
    const checklist = save({ text: 'Onboarding checklist: design done, engineering starts next sprint.' });
    const r = await rank([nadia, checklist], email('Quick update on the onboarding checklist.', ['nadia.haddad@brightline.io']));
    expect(shownIds(r)).toContain(nadia.id);
    expect(r.cards.find((c) => c.item.id === nadia.id)?.why[0]).toMatch(/written to/);
  });
});

describe('nothing relevant found', () => {
  it('shows no card, not even the rules that apply everywhere', async () => {
    const rules = [rule('Use British spelling.'), rule('Keep sentences short and cut filler words.'), rule('Never promise a delivery date.')];
    const note = save({ text: 'Q3 roadmap: SSO for mid-tier plans, audit log export.' });
    const r = await rank([...rules, note], chat('My sourdough starter smells like nail polish remover. Is it still safe?'));
    expect(r.empty).toBe(true);
    expect(r.cards).toEqual([]);
    expect(r.package?.ids ?? []).toEqual([]);
    for (const x of rules) expect(reasonOf(r.trace, x.id)).toMatch(/Nothing in memory is relevant/);
  });
});

describe('contradicting rules', () => {
  it('two rules sharing "write" and "march" are not one rule overriding the other', () => {
    const dates = rule('Write dates as 3 March 2026, never 03/03/26.', 1);
    const report = rule('Write the March board report in a formal tone.', 10);
    expect(overrides([dates, report]).size).toBe(0);
    // The same rule with another value still is.
    expect(overrides([rule('Use American spelling.', 1), rule('Use British spelling.', 10)]).size).toBe(1);
  });
});

describe('numbers are whole terms', () => {
  it('"£1,200" and "3.5" are one term each, not a "1" that matches "Bed 1"', async () => {
    expect(terms('a wedding budget of £1,200 and 2,400, 3.5 hours')).toEqual(['wed', 'budget', '1200', '2400', '3.5', 'hour']);
    const wedding = save({ text: 'Wedding budget: venue £1,200, catering £2,400.' });
    const r = await rank([wedding], doc('Garden plan: Bed 1 tomatoes and basil, Bed 2 beans.'));
    expect(shownIds(r)).not.toContain(wedding.id);
  });
});

describe('a decision superseded by a newer one', () => {
  it('needs the same subject: "decided" and "write" shared do not make two decisions one', async () => {
    const newsletter = save({ id: 'newsletter', text: 'Decided: we write the March update.' }, 30);
    const dates = save({ id: 'dates', text: 'Decided: write dates as 3 March.' }, 2);
    const r = await rank([newsletter, dates], chat('Who writes the March update?'));
    expect(r.cards.map((c) => c.item.id)).toContain('newsletter');
    expect(reasonOf(r.trace, 'newsletter')).not.toMatch(/superseded/);
  });
});

describe('a subject condition judged by meaning where vectors are at hand', () => {
  const hiring = rule("If I'm writing about hiring, don't name candidates; use initials.");
  const note = save({ text: 'Senior product designer opening approved in January.' });
  const ask = chat('Draft a job post for a senior product designer and a rubric to compare the candidates.');
  const unit = (xs: number[]) => {
    const n = Math.hypot(...xs);
    return new Float32Array(xs.map((x) => x / n));
  };
  const withVectors = (query: Float32Array) =>
    rankMemory({ task: ask, memory: arrayMemoryView([hiring, note], new Map()), settings: DEFAULT_SETTINGS, queryVector: query, conditionVectors: new Map([['hiring', unit([1, 0, 0, 0])]]), now: NOW });

  it('holds when the ask is close to the subject in meaning though it never says "hiring"', async () => {
    expect(hiring.scope).toEqual({ kind: 'subject', values: ['hiring'], set: 'guess' });
    const words = await rank([hiring, note], ask);
    expect(shownIds(words)).not.toContain(hiring.id);
    const close = await withVectors(unit([0.9, 0.3, 0.1, 0.2]));
    expect(shownIds(close)).toContain(hiring.id);
    expect(close.cards.find((c) => c.item.id === hiring.id)?.why[0]).toMatch(/close to it in meaning/);
    const far = await withVectors(unit([0.1, 0.9, 0.3, 0.2]));
    expect(shownIds(far)).not.toContain(hiring.id);
  });
});

describe('the guess names the site a rule is for', () => {
  it.each([
    ['On GitHub, write PR descriptions with sections: What, Why, How tested.', 'sites', ['github.com']],
    ["On the charity's Slack, keep finance messages in threads.", 'sites', ['slack.com']],
    ['When I use ChatGPT, ask it for three options, not one.', 'destination', ['chat']],
    ['When asking an AI chat, remind it UK charity accounting rules apply.', 'destination', ['chat']],
    ['In policy documents, number every clause.', 'destination', ['documents']],
  ])('%s → %s %j', (text, kind, values) => {
    expect(guessScope({ text })).toEqual({ kind, values, set: 'guess' });
  });
});
