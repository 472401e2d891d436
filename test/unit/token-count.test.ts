import fc from 'fast-check';
import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { mergedCount, mergeParts } from '../../lib/memory/bpe-merge';
import { createItem } from '../../lib/memory/normalize';
import { tokenTable } from '../../lib/memory/token-ranks-node';
import { countTokens, countTokensUpTo, keptPieceChars } from '../../lib/memory/tokens';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import { RANK_SETTINGS } from './rank-fixtures';

// gpt-tokenizer's encoder as it ships, and its core's own merge: the reference.
interface Core {
  bytePairMerge(piece: Uint8Array): number[];
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
}
const reference = GptEncoding.getEncodingApi('o200k_base', () => ranks);
const core = (reference as unknown as { bytePairEncodingCoreProcessor: Core }).bytePairEncodingCoreProcessor;
const theirMerge = (BytePairEncodingCore.prototype as unknown as Core).bytePairMerge;
const utf8 = new TextEncoder();
/** gpt-tokenizer's count with special tokens read as text, as the destination model reads a user's text. */
const asText = (t: string) => reference.countTokens(t, { disallowedSpecial: new Set() });

/** The tokens `mergeParts` leaves of `piece`, by the table's ranks. */
function ourTokens(piece: Uint8Array): number[] {
  const rankOf = (from: number, to: number) => tokenTable().rankOf(piece, from, to);
  const starts = mergeParts(piece.length, rankOf);
  return starts.slice(0, -1).map((s, k) => rankOf(s, starts[k + 1]));
}

describe('merging a piece', () => {
  it('gives the tokens gpt-tokenizer gives, for runs of letters, CJK, marks and signs, and for any bytes', () => {
    const alphabets = ['ab', 'aeiou', 'strength', 'Zz', '的是了', 'กขค\u0e31\u0e34', 'a\u0301e\u0300', '=-_', '\u200b\u200c', '😀👍'];
    const run = fc.tuple(fc.constantFrom(...alphabets), fc.integer({ min: 1, max: 1_500 }), fc.integer()).map(([abc, n, seed]) => {
      const chars = [...abc];
      let x = seed >>> 0;
      return Array.from({ length: n }, () => chars[(x = (x * 1103515245 + 12345) >>> 0) % chars.length]).join('');
    });
    const same = (piece: Uint8Array) => {
      const theirs = theirMerge.call(core, piece);
      expect(ourTokens(piece)).toEqual(theirs);
      expect(mergedCount(piece.length, (from, to) => tokenTable().rankOf(piece, from, to))).toBe(theirs.length);
    };
    fc.assert(fc.property(run, (text) => same(utf8.encode(text))), { numRuns: 150, seed: 7 });
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), same), { numRuns: 300, seed: 8 });
  });
});

describe('the token table', () => {
  it('holds every token of gpt-tokenizer at its rank, and nothing else', () => {
    const table = tokenTable();
    expect(table.size).toBe(ranks.length);
    (ranks as (string | number[])[]).forEach((r, k) => {
      const bytes = typeof r === 'string' ? utf8.encode(r) : Uint8Array.from(r);
      if (table.rankOf(bytes, 0, bytes.length) !== k) expect.fail(`token ${k} (${JSON.stringify(r)}) is not at its rank`);
    });
    for (const word of ['Backstory', 'zxqv', '<|endoftext|>']) {
      const bytes = utf8.encode(word);
      expect(table.rankOf(bytes, 0, bytes.length), word).toBe(core.getBpeRankFromBytes(bytes) ?? -1);
    }
  });

  it('counts any text exactly as gpt-tokenizer does: scripts, emoji, marks, numbers, code, spaces, lone surrogates', () => {
    const parts = ['Dana', ' prefers', "'s", "'LL", ' £1,200', '2026-03-01', '\n\n', '  ', '\t', '\r\n', 'Größe', 'déjà', ' Ελληνικά', 'русский', '日本語の', 'العربية',
      'हिन्दी', 'กขค', '👩\u200d💻', '🚀', 'a\u0301', '\ud800', '\udc00x', '{ return x; }', '<b>', '&amp;', '//', '...', '—', '<|endoftext|>', 'DON\'T', 'x'.repeat(300)];
    // Without U+FEFF: gpt-tokenizer decodes bytes to look them up, and its decoder drops a byte order mark (below).
    const text = fc.array(fc.oneof(fc.constantFrom(...parts), fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 40 })
      .map((p) => p.join('').replaceAll('\ufeff', ''));
    fc.assert(fc.property(text, fc.integer({ min: 0, max: 60 }), (t, limit) => {
      const n = asText(t);
      expect(countTokens(t)).toBe(n);
      expect(countTokensUpTo(t, limit)).toBe(n <= limit ? n : undefined);
    }), { numRuns: 2_000, seed: 11 });
  });

  it('counts a byte order mark by its bytes, as one token, where gpt-tokenizer loses it', () => {
    // A file saved with a BOM starts with U+FEFF; its bytes EF BB BF are one token of o200k_base (5574). gpt-tokenizer
    // looks byte pairs up by decoding them, its TextDecoder drops the BOM, and it counts "\ufeffHighly" as 3 tokens.
    const bom = utf8.encode('\ufeff');
    expect(tokenTable().rankOf(bom, 0, 3)).toBe(5574);
    expect(countTokens('\ufeffHighly')).toBe(2);
    expect(asText('\ufeffHighly')).toBe(3);
    expect(countTokens('\ufeffHighly recommended')).toBe(asText('Highly recommended') + 1);
  });
});

describe('token counts of crafted text', () => {
  // A file or a page can hold one unbroken run, which the encoder's pattern keeps as one piece; gpt-tokenizer merges
  // a piece in time quadratic in its length (100,000 letters took 11-16 s, as many zero-width spaces two minutes, the
  // worker blocked all that time), and so would the scan here: a piece that long goes to `mergeParts` (tested above
  // against gpt-tokenizer's merge), and these finish within the test's time.
  const runs = { letters: 'a'.repeat(100_000), 'zero-width spaces': '\u200b'.repeat(100_000), 'one CJK character': '的'.repeat(100_000), spaces: `x${' '.repeat(100_000)}x`, 'one sign (a divider line)': '='.repeat(100_000) };

  it.each(Object.entries(runs))('a note of 100,000 characters of %s is remembered without a merge quadratic in its length', (_, text) => {
    const item = createItem({ text, kind: 'evidence' }, Date.UTC(2026, 11, 7));
    expect(item.tokens).toBeGreaterThan(0);
    expect(item.tokens).toBeLessThanOrEqual(item.text.length + 2);
    expect(countTokensUpTo(text, 100)).toBeUndefined();
  });

  it('keeps no long run in memory after counting it: a file of many distinct runs does not pile up in the worker', () => {
    // The counter remembers the counts of pieces it merged (words come back); a run of 20,000 characters is not one
    // that comes back, and 300 of them held as keys were over 4 million characters the worker could not give back.
    const letters = (k: number) => k.toString(36).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]);
    for (let k = 0; k < 300; k++) countTokens(`${letters(k)}${'ab'.repeat(10_000)}`);
    expect(keptPieceChars()).toBeLessThan(100_000);
    expect(countTokens('unbelievably unbelievably')).toBe(asText('unbelievably unbelievably'));
  });

  it('counts texts with long runs, and ordinary ones, exactly as gpt-tokenizer does', () => {
    const prose = 'The vendor contract with Acme renews on 1 March 2026; Priya signs it. Keep replies under 200 words. '.repeat(40);
    for (const text of [prose, 'a'.repeat(3_000), 'strength'.repeat(400), '的'.repeat(2_000), `${prose}${'z'.repeat(2_000)} the end`]) {
      expect(countTokens(text)).toBe(reference.countTokens(text));
      expect(countTokensUpTo(text, 10)).toBeUndefined();
      expect(countTokensUpTo(text, 100_000)).toBe(reference.countTokens(text));
    }
  });
});

describe('text that spells a special token', () => {
  // A page, a file or a chat about tokenisers can hold "<|endoftext|>"; the destination model reads it as ordinary
  // text, and counting it must not fail the note or the ranking that packages it.
  const texts = ['The tokenizer ends a document with <|endoftext|> and starts a turn with <|im_start|>.', '<|endofprompt|>', 'a<|im_sep|>b <|fim_prefix|>'];

  it.each(texts)('is remembered and counted as ordinary text: %s', (text) => {
    const item = createItem({ text, kind: 'evidence' }, Date.UTC(2026, 11, 7));
    expect(item.tokens).toBe(asText(text));
    expect(countTokens(text)).toBeGreaterThan(1);
    expect(countTokensUpTo(text, 1_000)).toBe(asText(text));
  });

  it('a note that spells one is found and packaged for a task', async () => {
    const now = Date.UTC(2026, 11, 7);
    const items = [createItem({ id: 'tok', text: texts[0], kind: 'evidence' }, now), createItem({ id: 'other', text: 'The garden needs watering twice a week.', kind: 'evidence' }, now)];
    const res = await rankMemory({
      task: { url: 'https://chat.example/c/1', title: 'Chat', site: 'chat.example', adapter: 'generic', destination: 'chat', field: { text: 'how does the tokenizer end a document', kind: 'textarea' }, at: now },
      memory: arrayMemoryView(items, new Map()), settings: RANK_SETTINGS, now,
    });
    expect(res.cards.map((c) => c.item.id)).toEqual(['tok']);
    expect(res.package?.text).toContain('<|endoftext|>');
  });
});
