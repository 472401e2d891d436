// @vitest-environment happy-dom
/** A long document is read as the section around the caret: the heading above it and the paragraph around it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readTask } from '../../lib/sites/index';
import { sectionOfText } from '../../lib/sites/section';

const PAGE = readFileSync(join(import.meta.dirname, '..', 'e2e', 'fixtures', 'long-doc.html'), 'utf8');

beforeEach(() => {
  (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL('https://wiki.example.test/plan');
  document.open();
  document.write(PAGE);
  document.close();
});

function caretIn(id: string, offset = 10): HTMLElement {
  const doc = document.getElementById('doc')!;
  const text = document.getElementById(id)!.firstChild!;
  doc.focus();
  const range = document.createRange();
  range.setStart(text, offset);
  range.collapse(true);
  const sel = document.getSelection()!;
  sel.removeAllRanges();
  sel.addRange(range);
  return doc;
}

describe('a rich document (contenteditable)', () => {
  it('the ask is the heading above the caret and its paragraph, and follows the caret to another section', () => {
    const doc = caretIn('hiring-p');
    let r = readTask(document, doc);
    expect(r.field?.text).toMatch(/^Hiring\nWe are hiring a backend engineer/);
    expect(r.field?.text).not.toMatch(/budget|beta launch/i);
    expect(r.headings?.slice(0, 2)).toEqual(['Hiring', 'Northwind 2027 plan']);
    caretIn('launch-p', 30);
    r = readTask(document, doc);
    expect(r.field?.text).toMatch(/^Launch\nThe beta launch goes to the first design partners/);
    expect(r.headings?.[0]).toBe('Launch');
  });

  it('a caret on a heading takes the paragraph under it; a short field is still read whole', () => {
    const doc = document.getElementById('doc')!;
    const h = Array.from(doc.querySelectorAll('h2')).find((e) => e.textContent === 'Budget')!;
    doc.focus();
    const range = document.createRange();
    range.setStart(h.firstChild!, 3);
    document.getSelection()!.removeAllRanges();
    document.getSelection()!.addRange(range);
    expect(readTask(document, doc).field?.text).toMatch(/^Budget\nThe quarterly budget review is on Friday/);
    doc.innerHTML = '<p>Hi Ana, the numbers are attached.</p>';
    expect(readTask(document, doc).field?.text).toBe('Hi Ana, the numbers are attached.');
  });
});

describe('a Markdown textarea', () => {
  it('ATX headings split it into sections; the caret offset picks one', () => {
    const md = document.getElementById('md') as HTMLTextAreaElement;
    md.focus();
    const at = md.value.indexOf('interview loop');
    md.setSelectionRange(at, at);
    let r = readTask(document, md);
    expect(r.field?.text).toMatch(/^Hiring\nWe are hiring a backend engineer/);
    expect(r.field?.text).not.toContain('runbook');
    const later = md.value.indexOf('runbook');
    md.setSelectionRange(later, later);
    r = readTask(document, md);
    expect(r.field?.text).toMatch(/^Launch\nThe beta launch/);
  });

  it('a very short paragraph brings the one before it; nested headings make the trail', () => {
    const text = '# Plan\n\nIntro text.\n\n## Risks\n\n### Vendors\n\nThe database vendor may raise prices by a third next year.\n\nAsk legal.\n';
    const s = sectionOfText(text, text.indexOf('legal'));
    expect(s?.heading).toBe('Vendors');
    expect(s?.trail).toEqual(['Vendors', 'Risks', 'Plan']);
    expect(s?.paragraph).toBe('The database vendor may raise prices by a third next year.\nAsk legal.');
  });
});
