import { describe, expect, it } from 'vitest';
import { normalizeForCompare, verifyInsert } from '../../lib/insert/index';
import { techniquesFor, UNDO_GROUP_MS } from '../../lib/insert/detect';
import { insertedInto, rememberInserted, stripInsertedText } from '../../lib/insert/state';

const fakeEl = () => ({ setAttribute() {} }) as unknown as HTMLElement;

describe('verifyInsert (reading the field back)', () => {
  it('takes when one more copy of the text is there, lines in order', () => {
    expect(verifyInsert('Hello', 'HelloAlpha\nBeta', 'Alpha\nBeta')).toBe('took');
    // Editors re-flow lines into paragraphs (blank lines between), and drop a trailing space.
    expect(verifyInsert('Hi ', 'Hi Alpha\n\nBeta\n', 'Alpha\nBeta ')).toBe('took');
    expect(verifyInsert('a\u00a0b', 'a\u00a0Alpha one b', 'Alpha one')).toBe('took');
  });
  it('does not take when lines were merged or reversed (the Lexical execCommand failure)', () => {
    expect(verifyInsert('x', 'xBetaAlpha', 'Alpha\nBeta')).toBe('changed');
    expect(verifyInsert('x', 'xAlpha Beta', 'Alpha\nBeta')).toBe('changed');
  });
  it('is unchanged when nothing happened, and needs a new copy when the text was already there', () => {
    expect(verifyInsert('same', 'same', 'Alpha')).toBe('unchanged');
    expect(verifyInsert('Alpha', 'Alpha', 'Alpha')).toBe('unchanged');
    expect(verifyInsert('Alpha', 'Alpha Alpha', 'Alpha')).toBe('took');
  });
  it('single-line inputs compare with the line breaks turned into spaces', () => {
    expect(verifyInsert('q', 'qAlpha one Beta two', 'Alpha one\nBeta two', true)).toBe('took');
  });
  it('normalizes whitespace per line', () => {
    expect(normalizeForCompare('  a   b \n\n\t c\u00a0 d ')).toBe('a b\nc d');
    expect(normalizeForCompare('a\nb', ' ')).toBe('a b');
  });
});

describe('technique order per editor', () => {
  it('never uses execCommand where it misses or garbles the model', () => {
    for (const k of ['lexical', 'slate', 'draft', 'ckeditor5'] as const) expect(techniquesFor(k)).not.toContain('execCommand');
    expect(techniquesFor('draft')[0]).toBe('paste');
  });
  it('native fields use execCommand (native undo) then the value setter', () => {
    expect(techniquesFor('textarea')).toEqual(['execCommand', 'value']);
    expect(techniquesFor('input')).toEqual(['execCommand', 'value']);
  });
  it('waits out the time-based undo grouping of ProseMirror and Quill only', () => {
    expect(UNDO_GROUP_MS.prosemirror).toBeGreaterThan(500);
    expect(UNDO_GROUP_MS.quill).toBeGreaterThan(1000);
    expect(UNDO_GROUP_MS.slate).toBeUndefined();
  });
});

describe('inserted text is not read back as the ask', () => {
  it('strips each inserted text, across re-flowed lines and spacing', () => {
    const el = fakeEl();
    rememberInserted(el, 'Budget owner: Ana\nDeadline: Friday');
    expect(insertedInto(el)).toHaveLength(1);
    expect(stripInsertedText(el, 'Note: Budget owner: Ana\n\nDeadline:\u00a0Friday and more')).toBe('Note: and more');
  });
  it('leaves text alone when nothing was inserted or the user rewrote it', () => {
    const el = fakeEl();
    expect(stripInsertedText(el, 'mine')).toBe('mine');
    rememberInserted(el, 'Alpha (1) [x]');
    expect(stripInsertedText(el, 'mine Alpha (2)')).toBe('mine Alpha (2)');
    expect(stripInsertedText(el, 'mine Alpha (1) [x]')).toBe('mine');
  });
});
