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

describe('a rich document whose paragraphs are divs (Draft.js, Slate without its own elements)', () => {
  /** The DOM Draft.js renders: a div per paragraph block, a heading block as <h2> around the same div. */
  function draftDoc(): HTMLElement {
    const block = (tag: string, text: string, id = '') =>
      `<${tag} data-block="true"${id ? ` id="${id}"` : ''}><div class="public-DraftStyleDefault-block"><span><span data-text="true">${text}</span></span></div></${tag}>`;
    document.body.innerHTML = `<div id="draft" contenteditable="true" role="textbox"><div data-contents="true">${[
      block('h1', 'Northwind 2027 plan'),
      block('div', 'This document collects the plans of the platform team for next year. Each section has an owner who keeps it up to date.'),
      block('h2', 'Budget'),
      block('div', 'The quarterly budget review is on Friday. The hardware line is the one finance keeps asking about, and travel went over because of the offsite.', 'budget'),
      block('h2', 'Hiring'),
      block('div', 'We are hiring a backend engineer for the payments squad. The interview loop has four stages and the hiring manager wants a decision before the holidays.', 'hiring'),
      block('h2', 'Launch'),
      block('div', 'The beta launch goes to the first design partners. Support needs the runbook and marketing needs the announcement draft.', 'launch'),
    ].join('')}</div></div>`;
    return document.getElementById('draft')!;
  }
  function caretAt(root: HTMLElement, id: string): void {
    const text = document.querySelector(`#${id} [data-text]`)!.firstChild!;
    root.focus();
    const range = document.createRange();
    range.setStart(text, 20);
    range.collapse(true);
    document.getSelection()!.removeAllRanges();
    document.getSelection()!.addRange(range);
  }

  it('the ask is the heading above the caret and the paragraph the caret is in, not the heading alone', () => {
    const root = draftDoc();
    caretAt(root, 'hiring');
    let r = readTask(document, root);
    expect(r.field?.text).toMatch(/^Hiring\nWe are hiring a backend engineer for the payments squad/);
    expect(r.headings?.slice(0, 2)).toEqual(['Hiring', 'Northwind 2027 plan']);
    caretAt(root, 'budget');
    r = readTask(document, root);
    expect(r.field?.text).toMatch(/^Budget\nThe quarterly budget review is on Friday/);
    expect(r.field?.text).not.toMatch(/backend engineer/);
  });
});
