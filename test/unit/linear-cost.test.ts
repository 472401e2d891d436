/**
 * Text a page or a file controls never costs more than about its length. Each parser, normaliser and tokenizer on
 * those paths is fed adversarial input (markup openers that never close, long runs of one character, fragments mixed
 * by fast-check) at 25 KB and at 100 KB in the same run; the cost may grow about fourfold, not sixteenfold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sniffFormat } from '../../lib/import/detect';
import { chatgptItems, type ChatGPTConversation } from '../../lib/import/chatgpt';
import { claudeItems, type ClaudeConversation } from '../../lib/import/claude';
import { decodeEntities } from '../../lib/import/html-entities';
import { htmlToText } from '../../lib/import/html-text';
import { mailItems } from '../../lib/import/mail';
import { replyText } from '../../lib/import/mail-text';
import { mboxMessages } from '../../lib/import/mbox';
import { bytesOf } from '../../lib/import/byte-stream';
import { inlineTags, markdownToText, paragraphs } from '../../lib/import/note-text';
import { noteFormat, noteItems } from '../../lib/import/notes';
import { textItems } from '../../lib/import/plain-text';
import { findPhrases } from '../../lib/learn/phrases';
import { guessKind } from '../../lib/memory/kind-guess';
import { createItem } from '../../lib/memory/normalize';
import { guessScope, isBoundary } from '../../lib/memory/scope-guess';
import { titleFrom } from '../../lib/memory/title';
import { planQuery } from '../../lib/rank/query';
import { personKeys } from '../../lib/rank/situation';
import { personKey } from '../../lib/memory/index/situation-keys';
import { askDateTerms, hasTimeExpression, phrases, splitByTerms, terms, writtenWords } from '../../lib/memory/index/tokenize';
import type { TaskReading } from '../../lib/rank/types';
import { sectionOfText } from '../../lib/sites/section';
import { firstEmail, nameAndAddress, tidy, withoutTitleSuffix } from '../../lib/sites/text';
import { GROWTH_LIMIT, costGrowth, repeatTo } from './cost-growth';

/** Characters and fragments that open, close or repeat the constructs the parsers look for. */
const PIECES = [
  '[', ']', '(', ')', '<', '>', '!', '#', '%', '@', '&', ';', '`', '"', "'", ' ', '\n', '\t', '-', '*', '_', ':', '/',
  '=', '|', '^', '\\', 'a', 'Z', '1', '\u3010', '\u2020', '\ue200', '![', '[[', '](', '<!--', '<a href="', 'href=',
  '<li', '<br', '<script', '&#', 'From ', 'On ', '> ', '# ', '---', '%%', '```', 'http://', 'a@b', 'never ', 'for ',
];
const unit = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 4 }).map((p) => p.join(''));

/** Checks that `run` grows about linearly for the known hard units and `mixed` more drawn by fast-check. */
async function staysLinear(run: (input: string) => unknown, known: string[], mixed = 1, wrap: (filler: string) => string = (f) => f): Promise<void> {
  await fc.assert(
    fc.asyncProperty(unit, async (u) => {
      const growth = await costGrowth(run, (size) => wrap(repeatTo(u, size)));
      expect(growth, `cost from 25 KB to 100 KB of ${JSON.stringify(u)}`).toBeLessThan(GROWTH_LIMIT);
    }),
    { numRuns: known.length + mixed, examples: known.map((k) => [k] as [string]), endOnFailure: true },
  );
}

const enc = new TextEncoder();

async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
const reading = (s: string): TaskReading => ({
  url: 'https://mail.example.test/',
  destination: 'email',
  title: s,
  site: 'mail.example.test',
  adapter: 'generic',
  at: 0,
  field: { text: s, kind: 'textarea' },
  subject: s,
  selection: s,
  turns: [s],
  headings: [s],
  people: [s],
});
let fresh = 0;

describe('cost grows about linearly with what a page or file controls', () => {
  it('a page\'s very long "To" field: person keys', async () => {
    await staysLinear(personKey, ['a'], 0);
    // personKeys is memoised by string: a new string each call measures the work itself.
    await staysLinear((s) => personKeys(s + ++fresh), ['<'], 0);
  });

  it('a note of "[" and other Markdown that never closes', async () => {
    await staysLinear(markdownToText, ['[', '![[', '<!--'], 1);
    await staysLinear((s) => noteItems(s, 'notes/a.md', { format: 'markdown' }), ['['], 0);
    await staysLinear((s) => noteItems(s, 'Plan 0123456789abcdef0123456789abcdef.md', { format: 'notion' }), ['['], 0);
    await staysLinear(inlineTags, ['#'], 0);
    // A heading line of spaces, and a file name a zip made 100,000 characters long.
    await staysLinear((s) => noteItems(s, 'notes/a.md', { format: 'markdown' }), [' '], 0, (f) => `# A\n\n## x${f}y\n\ntext`);
    await staysLinear(noteFormat, [' '], 0, (f) => `notes/a${f}.md`);
    await staysLinear((s) => paragraphs(s), ['\n'], 0);
    await staysLinear((s) => textItems(s, 'a.txt'), ['\n'], 0);
  });

  it('an HTML-only mail of "<" and tags that never close', async () => {
    await staysLinear(htmlToText, ['<', '<a href="', '<a href="x">', '<!--'], 1);
    await staysLinear(decodeEntities, ['&#'], 0);
  });

  it('mail text and headers', async () => {
    await staysLinear(replyText, ['On ', 'wrote '], 0);
    const eml = (head: string, body: string, type = 'text/plain') =>
      enc.encode(`From: a@x.test\r\nTo: ${head}\r\nSubject: ${head}\r\nReferences: ${head}\r\nContent-Type: ${type}\r\n\r\n${body}`);
    await staysLinear((s) => mailItems(eml('b@x.test', s, 'text/html'), 'eml'), ['<'], 0);
    await staysLinear((s) => mailItems(eml(s, 'Hello.'), 'eml'), ['<'], 0);
    await staysLinear(
      async (s) => {
        for await (const _ of mboxMessages(bytesOf(enc.encode(s)))) void _;
      },
      ['\nFrom ', '>From '],
      0,
      (f) => `From a@x Mon Mar 03 10:00:00 2026\n${f}`,
    );
    // A "From " line that never ends, handed over in small chunks, is not carried and copied chunk after chunk.
    await staysLinear(
      async (s) => {
        for await (const _ of mboxMessages(chunked(enc.encode(s), 1024))) void _;
      },
      ['a'],
      0,
      (f) => `From a@x Mon Mar 03 10:00:00 2026\nSubject: s\n\nFrom ${f}`,
    );
  });

  it('what the first bytes of a file say it is', async () => {
    await staysLinear((s) => sniffFormat(enc.encode(s), 'file'), ['a: b\n', 'From '], 0);
  });

  it('chat exports', async () => {
    const gpt = (s: string): ChatGPTConversation =>
      ({
        id: 'c1',
        title: s,
        current_node: 'm',
        mapping: { m: { id: 'm', message: { id: 'm', author: { role: 'user' }, content: { content_type: 'text', parts: [s] } }, children: [] } },
      }) as unknown as ChatGPTConversation;
    await staysLinear((s) => chatgptItems(gpt(s), () => {}), ['\u3010', '```'], 0);
    const claude = (s: string) => ({ uuid: 'u', name: s, chat_messages: [{ uuid: 'm', sender: 'human', text: s, content: [{ type: 'text', text: s }] }] }) as unknown as ClaudeConversation;
    await staysLinear((s) => claudeItems(claude(s)), ['\n'], 0);
  });

  it('the tokenizer and the query planner', async () => {
    await staysLinear(terms, ["'s"], 0);
    await staysLinear(phrases, ['a '], 0);
    await staysLinear(hasTimeExpression, ['1'], 0);
    await staysLinear((s) => askDateTerms(s, 0), ['in '], 0);
    await staysLinear((s) => planQuery(reading(s)), ['<'], 1);
    await staysLinear(titleFrom, ['#'], 0);
  });

  it('a note remembered: its token count and all else an item is made with, over one unbroken run', async () => {
    // The token counter's encoder keeps a run with no break its pattern splits on as one piece (see bpe-merge.ts).
    // A word at each end: a run of spaces or newlines alone is no note ("There is no text to remember").
    await staysLinear((s) => createItem({ text: s, kind: 'evidence' }, 0), ['a', '\u200b', '\u7684', '=', '\n'], 1, (f) => `note ${f} end`);
  });

  it('the words a card marks and *Why?* quotes, in an item of numbers with separators', async () => {
    // Terms with a digit and two letters: each is looked for where its beginning occurs, so a run of "1," is read
    // from every "1" in it unless a word inside a number is known for one.
    const matched = ['1000', '12', 'a1000', 'run'];
    await staysLinear((s) => writtenWords(matched, s), ['1,', '1.', 'a1,', "1'1,"], 0);
    await staysLinear((s) => splitByTerms(s, matched), ['1,', '1.'], 0);
  });

  it('scope, kind and phrase guessing', async () => {
    // No people given: those would be the scope, and the text never read. A person lead over and over ("send to a
    // send to a …"): each is followed by what may be a name.
    await staysLinear((s) => guessScope({ text: s, title: s }), ['never ', 'for a', 'send to a ', 'emailing '], 0);
    await staysLinear(guessKind, ['please '], 0);
    await staysLinear(isBoundary, ['never '], 0);
    await staysLinear(findPhrases, ['!a'], 1);
  });

  it('page text read for the section around the caret', async () => {
    await staysLinear((s) => sectionOfText(s, s.length >> 1), ['# a'], 0);
    // A heading a page typed: "# x", spaces, "y".
    await staysLinear((s) => sectionOfText(s, 0), [' '], 0, (f) => `# x${f}y`);
    await staysLinear(tidy, [' '], 0);
  });

  it('recipients and titles the site adapters read', async () => {
    await staysLinear(nameAndAddress, [' '], 0);
    await staysLinear(firstEmail, ['a', 'a@b.'], 0);
    await staysLinear((s) => withoutTitleSuffix(s, '-', /Google Docs$/), [' '], 0, (f) => `a${f}b Google Docs`);
  });
});
