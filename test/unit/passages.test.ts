/**
 * Long items are split into passages the model can read whole: at paragraph, line and sentence boundaries, with a
 * short overlap, code fences kept whole where they fit, in time linear in the text even for hostile input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AutoTokenizer } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { excerpt, OVERLAP_PIECES, PASSAGE_CHARS, PASSAGE_GAP, PASSAGE_PIECES, pieceCosts, splitPassages } from '../../lib/memory/index/passages';
import { useLocalModels } from '../../lib/embed/local-models';
import { contextText } from '../../lib/memory/index/item-text';
import { NODE_MODEL_ROOT } from '../../lib/embed/node-embedder';
import { MAX_WORD_PIECES, MODEL_ID } from '../../lib/embed/embedder';
import { GROWTH_LIMIT, costGrowth, repeatTo } from './cost-growth';

const sentence = (i: number) => `Sentence number ${i} says something about the garden and the shed. `;
const prose = (n: number) => Array.from({ length: n }, (_, i) => sentence(i)).join('');

describe('splitPassages', () => {
  it('keeps a text up to a passage long as one passage, the whole text', () => {
    const text = prose(40).slice(0, 900);
    expect(pieceCosts(text)[text.length]).toBeLessThan(PASSAGE_PIECES);
    expect(splitPassages(text)).toEqual([{ start: 0, end: text.length }]);
  });

  it('cuts long prose at sentence ends into passages of at most a window, overlapping by about a sentence', () => {
    const text = prose(60);
    const ps = splitPassages(text);
    const cost = pieceCosts(text);
    expect(ps.length).toBeGreaterThan(3);
    for (const [k, p] of ps.entries()) {
      expect(cost[p.end] - cost[p.start]).toBeLessThanOrEqual(PASSAGE_PIECES);
      expect(text.slice(p.start, p.end)).toMatch(/^Sentence number \d+/);
      if (k < ps.length - 1) {
        expect(text.slice(p.start, p.end)).toMatch(/shed\.$/);
        const next = ps[k + 1];
        // The next passage starts inside this one (the overlap), but not far back.
        expect(next.start).toBeLessThan(p.end);
        expect(cost[p.end] - cost[next.start]).toBeLessThanOrEqual(OVERLAP_PIECES);
      }
    }
    expect(ps[0].start).toBe(0);
    expect(ps[ps.length - 1].end).toBe(text.length);
  });

  it('prefers a paragraph break to a sentence end', () => {
    const first = prose(10); // about 140 pieces: past half a passage's room
    const text = first + '\n\n' + prose(20);
    const ps = splitPassages(text);
    expect(ps[0]).toEqual({ start: 0, end: first.trimEnd().length });
  });

  it('keeps a code fence whole when it fits a passage', () => {
    const code = '```js\n' + Array.from({ length: 14 }, (_, i) => `const value${i} = compute(${i}); // step ${i}.`).join('\n') + '\n```\n';
    expect(code.length).toBeLessThan(PASSAGE_CHARS);
    const text = prose(6) + '\n' + code + prose(12);
    const from = text.indexOf('```js');
    const to = text.indexOf('```\n', from + 3) + 3;
    const ps = splitPassages(text);
    expect(ps.some((p) => p.start <= from && p.end >= to)).toBe(true);
    // No passage starts or ends inside the fence.
    for (const p of ps) {
      expect(p.start > from && p.start < to).toBe(false);
      expect(p.end > from && p.end < to).toBe(false);
    }
  });

  it('covers every character, in order, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 5000, unit: fc.constantFrom('a', 'b', ' ', '.', '\n', '`', '~', '?', '"') }), (text) => {
        const ps = splitPassages(text);
        expect(ps[0].start).toBe(0);
        let reach = 0;
        for (const [k, p] of ps.entries()) {
          expect(p.end - p.start).toBeLessThanOrEqual(PASSAGE_CHARS);
          expect(p.start).toBeLessThanOrEqual(reach + 1); // no hole (a blank at a cut is not lost text)
          if (k) expect(p.start).toBeGreaterThan(ps[k - 1].start);
          reach = Math.max(reach, p.end);
        }
        expect(text.slice(reach).trim()).toBe('');
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a text whole exactly when its estimated pieces and its characters fit one passage', () => {
    const word = fc.stringMatching(/^[a-zé漢]{1,14}$/);
    const gap = fc.constantFrom(' ', '. ', ', ', '\n', '\n\n', ' — ', '? ');
    const seen = { fit: 0, split: 0 };
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { minLength: 30, maxLength: 420, size: 'max' }), (parts) => {
        const text = parts.map(([w, g]) => w + g).join('');
        const fits = pieceCosts(text)[text.length] <= PASSAGE_PIECES && text.length <= PASSAGE_CHARS;
        expect(splitPassages(text).length === 1).toBe(fits);
        if (fits) seen.fit++;
        else seen.split++;
      }),
      // About one draw in ten fits (3,000 draws: 0.099): 600 keep the check below from failing by chance (300 saw 27 once).
      { numRuns: 600 },
    );
    expect(Math.min(seen.fit, seen.split)).toBeGreaterThan(30); // both sides of the line were tried
  });

  it('splits in time linear in the length: 100 KB with no space or line break, and 100 KB of prose', async () => {
    expect(await costGrowth(splitPassages, (n) => 'x'.repeat(n))).toBeLessThan(GROWTH_LIMIT);
    expect(await costGrowth(splitPassages, (n) => repeatTo('Word. ', n))).toBeLessThan(GROWTH_LIMIT);
    expect(await costGrowth(splitPassages, (n) => repeatTo('```\na b\n', n))).toBeLessThan(GROWTH_LIMIT);
  });

  it('makes passages that fit the model window on real text, measured with the real tokenizer', async () => {
    useLocalModels(NODE_MODEL_ROOT);
    const tokenizer = await AutoTokenizer.from_pretrained(MODEL_ID);
    const root = join(__dirname, '..', '..');
    const counts: number[] = [];
    for (const file of ['README.md', 'docs/how-it-works.md', 'docs/security.md', 'DEVELOPERS.md']) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const p of splitPassages(text)) {
        // A title of 80 characters goes in front of each passage's text when it is embedded.
        counts.push(tokenizer.encode('A title of eighty characters that names the note and what it is about, in words: ' + text.slice(p.start, p.end)).length);
      }
    }
    counts.sort((a, b) => a - b);
    const fit = counts.filter((n) => n <= MAX_WORD_PIECES).length / counts.length;
    expect(counts.length).toBeGreaterThan(40);
    expect(fit).toBeGreaterThanOrEqual(0.95);
    // And they use the window: the median passage is more than half of it.
    expect(counts[counts.length >> 1]).toBeGreaterThan(MAX_WORD_PIECES / 2);
  });
});

describe('excerpt', () => {
  const text = prose(60);
  const ps = splitPassages(text);

  it('joins chosen passages in their order within the item with "…" between, whatever order they were chosen in', () => {
    const got = excerpt(text, ps, [4, 1]);
    const parts = got.split(PASSAGE_GAP);
    expect(parts[0]).toBe('… ' + text.slice(ps[1].start, ps[1].end).trim());
    expect(parts[1]).toBe(text.slice(ps[4].start, ps[4].end).trim() + (ps[4].end < text.trimEnd().length ? ' …' : ''));
  });

  it('joins overlapping neighbours into one stretch, without repeating the overlap', () => {
    const got = excerpt(text, ps, [2, 3]);
    expect(got).toBe('… ' + text.slice(ps[2].start, ps[3].end).trim() + ' …');
  });

  it('gives the whole text for no choice or for every passage', () => {
    expect(excerpt(text, ps, undefined)).toBe(text);
    expect(excerpt(text, ps, ps.map((_, k) => k))).toBe(text);
  });
});

describe('contextText', () => {
  it("reads a reply after a long answer with the answer's end, so the reply itself is inside the model's window", () => {
    const answer = { text: prose(60) };
    const reply = { text: 'Thanks, that settles the shed question.' };
    const ctx = contextText(reply, answer)!;
    expect(ctx.endsWith('\n' + reply.text)).toBe(true);
    expect(ctx).not.toContain('Sentence number 0 ');
    expect(pieceCosts(ctx)[ctx.length]).toBeLessThanOrEqual(PASSAGE_PIECES + 20);
  });
});
