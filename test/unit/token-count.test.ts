import fc from 'fast-check';
import { BytePairEncodingCore } from 'gpt-tokenizer/BytePairEncodingCore';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { describe, expect, it, vi } from 'vitest';
import { mergeParts } from '../../lib/memory/bpe-merge';
import { createItem } from '../../lib/memory/normalize';
import { tokenRanks } from '../../lib/memory/token-ranks-node';
import { countTokens, countTokensUpTo } from '../../lib/memory/tokens';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { rankMemory } from '../../lib/rank/rank';
import { RANK_SETTINGS } from './rank-fixtures';

// gpt-tokenizer's encoder as it ships, and its core's own merge: the reference.
interface Core {
  bytePairMerge(piece: Uint8Array): number[];
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
}
const reference = GptEncoding.getEncodingApi('o200k_base', tokenRanks);
const core = (reference as unknown as { bytePairEncodingCoreProcessor: Core }).bytePairEncodingCoreProcessor;
const theirMerge = (BytePairEncodingCore.prototype as unknown as Core).bytePairMerge;
const utf8 = new TextEncoder();

function ourTokens(piece: Uint8Array): number[] {
  const starts = mergeParts(piece, (b) => core.getBpeRankFromBytes(b));
  return starts.slice(0, -1).map((s, k) => core.getBpeRankFromBytes(piece.subarray(s, starts[k + 1]))!);
}

describe('merging a long piece', () => {
  it('gives the tokens gpt-tokenizer gives, for runs of letters, CJK, marks and signs, and for any bytes', () => {
    const alphabets = ['ab', 'aeiou', 'strength', 'Zz', '的是了', 'กขค\u0e31\u0e34', 'a\u0301e\u0300', '=-_', '\u200b\u200c', '😀👍'];
    const run = fc.tuple(fc.constantFrom(...alphabets), fc.integer({ min: 1, max: 1_500 }), fc.integer()).map(([abc, n, seed]) => {
      const chars = [...abc];
      let x = seed >>> 0;
      return Array.from({ length: n }, () => chars[(x = (x * 1103515245 + 12345) >>> 0) % chars.length]).join('');
    });
    fc.assert(fc.property(run, (text) => {
      const piece = utf8.encode(text);
      expect(ourTokens(piece)).toEqual(theirMerge.call(core, piece));
    }), { numRuns: 150, seed: 7 });
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 600 }), (piece) => {
      expect(ourTokens(piece)).toEqual(theirMerge.call(core, piece));
    }), { numRuns: 150, seed: 8 });
  });
});

describe('token counts of crafted text', () => {
  // A file or a page can hold one unbroken run, which the encoder's pattern keeps as one piece; gpt-tokenizer merges
  // a piece in time quadratic in its length (100,000 letters took 11-16 s, as many zero-width spaces two minutes, the
  // worker blocked all that time).
  const runs = { letters: 'a'.repeat(100_000), 'zero-width spaces': '\u200b'.repeat(100_000), 'one CJK character': '的'.repeat(100_000), spaces: `x${' '.repeat(100_000)}x`, 'one sign (a divider line)': '='.repeat(100_000) };

  // What bounds the work: gpt-tokenizer's own merge is never given a long piece.
  function withoutQuadraticMerges(run: () => void) {
    const spy = vi.spyOn(BytePairEncodingCore.prototype as unknown as Core, 'bytePairMerge').mockImplementation(function (this: Core, piece: Uint8Array) {
      if (piece.length > 256) throw new Error(`gpt-tokenizer's merge was given one piece of ${piece.length} bytes`);
      return theirMerge.call(this, piece);
    });
    try {
      run();
    } finally {
      spy.mockRestore();
    }
  }

  it.each(Object.entries(runs))('a note of 100,000 characters of %s is remembered without a merge quadratic in its length', (_, text) => {
    withoutQuadraticMerges(() => {
      const item = createItem({ text, kind: 'evidence' }, Date.UTC(2026, 11, 7));
      expect(item.tokens).toBeGreaterThan(0);
      expect(item.tokens).toBeLessThanOrEqual(item.text.length + 2);
      expect(countTokensUpTo(text, 100)).toBeUndefined();
    });
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
  const asText = (t: string) => reference.countTokens(t, { disallowedSpecial: new Set() });

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
