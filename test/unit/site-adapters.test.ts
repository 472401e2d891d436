// @vitest-environment happy-dom
/**
 * Each site adapter's reading against its fixture page (test/e2e/fixtures/sites), under happy-dom: a change of a
 * site that the fixture records is caught here without a browser. The e2e tests read the same pages in Chromium.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { readTask } from '../../lib/sites/index';
import type { TaskReading } from '../../lib/rank/types';
import { ADAPTERS } from '../../lib/sites/index';
import { situationMatch } from '../../lib/rank/situation';
import { createItem } from '../../lib/memory/normalize';
import { fieldOnly, readingLandmarks } from '../../lib/sites/landmarks';
import { genericAdapter } from '../../lib/sites/generic';
import { fixtureFile, readAll } from './import-fixtures';

const FIXTURES = join(import.meta.dirname, '..', 'e2e', 'fixtures');

/** Loads a fixture page at a real site's address; the chat pages' TipTap mounts become plain ProseMirror editables. */
function load(file: string, url: string): Document {
  (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL(url);
  const html = readFileSync(join(FIXTURES, file), 'utf8').replace(/<script[\s\S]*?<\/script>/g, '');
  document.open();
  document.write(html);
  document.close();
  for (const mount of Array.from(document.querySelectorAll('[data-fixture-editor]'))) {
    const el = document.createElement('div');
    el.setAttribute('contenteditable', 'true');
    el.className = 'ProseMirror';
    for (const a of Array.from(mount.attributes)) if (a.name.startsWith('data-attr-')) el.setAttribute(a.name.slice('data-attr-'.length), a.value);
    el.innerHTML = '<p><br></p>';
    mount.replaceWith(el);
  }
  return document;
}

function typeInto(el: HTMLElement, text: string): void {
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) el.value = text;
  else el.innerHTML = `<p>${text}</p>`;
  el.focus();
}

const read = (sel: string | null): TaskReading => readTask(document, sel ? document.querySelector<HTMLElement>(sel) : null);

beforeEach(() => {
  document.body.innerHTML = '';
});

describe('Gmail', () => {
  it('compose: recipients come from the chips alone (no hidden inputs), subject and body', () => {
    load('sites/gmail-compose.html', 'https://mail.google.com/mail/u/0/');
    expect(document.querySelector('input[name="to"]')).toBeNull();
    const r = read('[role="dialog"] [aria-label="Message Body"]');
    expect(r.adapter).toBe('gmail');
    expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'bo@example.org', 'Dee Park', 'dee@example.com']);
    expect(r.subject).toBe('Q3 budget numbers');
    expect(r.field?.text).toBe('Hi Ana,');
  });

  it('thread: .a3s bodies, oldest first; a collapsed message, the header date and the "to" line are not turns; the thread id is the X-GM-THRID', () => {
    load('sites/gmail-reply.html', 'https://mail.google.com/mail/u/1/');
    const r = read('[role="main"] [aria-label="Message Body"]');
    expect(r.turns).toEqual([
      'Ana Lima: Hi team,\nPlease send your Q3 numbers by Friday. We are 4% over on travel.\nAna',
      'Bo Chen: Travel was the offsite in Lisbon. I can move it to Q4.',
      'Ana Lima: Can you also confirm the hardware line? Finance needs it for the board deck.',
    ]);
    const all = JSON.stringify(r);
    for (const noise of ['HEADER-DATE', 'HEADER-TO-LINE', 'COLLAPSED', 'QUOTED-OLD-TEXT', 'REPLY-QUOTE']) expect(all).not.toContain(noise);
    expect(r.thread).toEqual({ id: 'mail-thread:1790000000000000001' });
    expect(r.subject).toBe('Re: Q3 budget review');
  });

  it('a newsletter (no div[dir], a table layout): its text, not its header or style block', () => {
    load('sites/gmail-newsletter.html', 'https://mail.google.com/mail/u/0/');
    const r = read(null);
    expect(r.adapter).toBe('gmail');
    expect(r.turns).toHaveLength(1);
    expect(r.turns?.[0]).toBe('Infra Weekly: Postgres 18 upgrade guide\nLogical replication slots now survive failover.\nPlan a maintenance window for the major upgrade.\nUnsubscribe');
    expect(r.turns?.[0]).not.toMatch(/HEADER|font:/);
    expect(r.thread).toEqual({ id: 'mail-thread:1790000000000000077' });
  });

  it('a thread heading with only the hex data-legacy-thread-id (as Gmail sometimes draws it) keeps its thread: the id the mbox import gives the same mail', async () => {
    load('sites/gmail-reply-legacy.html', 'https://mail.google.com/mail/u/1/');
    expect(document.querySelector('[data-thread-perm-id]')).toBeNull();
    const r = read('[role="main"] [aria-label="Message Body"]');
    expect(r.thread).toEqual({ id: 'mail-thread:1790000000000000001' });
    // The Takeout mbox carries that thread's X-GM-THRID: its import and the page name the thread alike.
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    expect(items.map((i) => i.thread?.id)).toContain(r.thread?.id);
    // A perm id Gmail wrote as "undefined" is no id: the hex one is read.
    document.querySelector('h2')!.setAttribute('data-thread-perm-id', 'undefined');
    expect(read(null).thread).toEqual({ id: 'mail-thread:1790000000000000001' });
    // A list row's legacy id alone (no open thread heading) is not the open thread.
    document.querySelector('h2')!.remove();
    expect(read(null).thread).toBeUndefined();
  });

  for (const [lang, subject] of [
    ['de', 'Zahlen zum Q3-Budget'],
    ['fr', 'Chiffres du budget T3'],
    ['es', 'Cifras del presupuesto del T3'],
    ['ja', '第3四半期予算の数字'],
  ] as const) {
    it(`compose in a ${lang} interface: chips, an address typed into Cc, the subject and the body, by structure`, () => {
      load(`sites/gmail-compose-${lang}.html`, 'https://mail.google.com/mail/u/0/');
      const r = read('[role="dialog"] [g_editable="true"]');
      expect(r.adapter).toBe('gmail');
      expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'bo@example.org', 'dee@example.com']);
      expect(r.subject).toBe(subject);
      expect(r.field?.text).toMatch(/Ana/);
      expect(r.landmarks).toMatchObject({ adapter: 'gmail', label: 'Gmail' });
      expect(r.landmarks?.found).toEqual(expect.arrayContaining(['compose body', 'subject', 'recipients']));
    });
  }
});

describe('Outlook on the web in other interface languages', () => {
  const cases = [
    ['en', 'outlook-compose.html', 'Vendor contract renewal', 'Hi Ana,'],
    ['de', 'outlook-compose-de.html', 'Verlängerung des Lieferantenvertrags', 'Hallo Ana,'],
    ['fr', 'outlook-compose-fr.html', 'Renouvellement du contrat fournisseur', 'Bonjour Ana,'],
    ['es', 'outlook-compose-es.html', 'Renovación del contrato con el proveedor', 'Hola Ana:'],
    ['ja', 'outlook-compose-ja.html', '仕入先契約の更新', 'Ana さん'],
  ] as const;
  for (const [lang, file, subject, greeting] of cases) {
    it(`${lang}: recipients from the wells' chips and typed text, the subject and the body, by the form's shape`, () => {
      load(`sites/${file}`, 'https://outlook.office.com/mail/deeplink/compose');
      const r = read('[aria-multiline="true"]');
      expect(r.adapter).toBe('outlook');
      expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'Raj Patel', 'raj@example.org', 'dee@example.com']);
      expect(r.subject).toBe(subject);
      // The body without its signature.
      expect(r.field).toMatchObject({ text: greeting, kind: 'contenteditable' });
      expect(r.landmarks?.missing).toEqual([]);
    });
  }
  it('with every label and placeholder taken away (an interface language no hint knows), the structure alone still reads Outlook and Gmail', () => {
    const unlabel = () => {
      for (const el of Array.from(document.querySelectorAll('[aria-label], [placeholder], [aria-labelledby]'))) {
        for (const a of ['aria-label', 'placeholder', 'aria-labelledby']) el.removeAttribute(a);
      }
    };
    load('sites/outlook-compose-fr.html', 'https://outlook.office.com/mail/deeplink/compose');
    unlabel();
    let r = read('[aria-multiline="true"]');
    expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'Raj Patel', 'raj@example.org', 'dee@example.com']);
    expect(r.subject).toBe('Renouvellement du contrat fournisseur');
    expect(r.field?.text).toBe('Bonjour Ana,');
    load('sites/gmail-compose-es.html', 'https://mail.google.com/mail/u/0/');
    unlabel();
    r = read('[g_editable="true"]');
    expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'bo@example.org', 'dee@example.com']);
    expect(r.subject).toBe('Cifras del presupuesto del T3');
  });
  it('nothing focused: the open compose form is still found (recipients and subject, no field)', () => {
    load('sites/outlook-compose-ja.html', 'https://outlook.live.com/mail/0/');
    const r = read(null);
    expect(r.adapter).toBe('outlook');
    expect(r.people).toContain('raj@example.org');
    expect(r.subject).toBe('仕入先契約の更新');
  });
});

describe('Outlook on the web', () => {
  it('To is a contenteditable of chips, the subject is "Add a subject", the body is the message body', () => {
    load('sites/outlook-compose.html', 'https://outlook.office.com/mail/deeplink/compose');
    const r = read('[aria-label^="Message body"]');
    expect(r.adapter).toBe('outlook');
    expect(r.people).toEqual(['Ana Lima', 'ana@example.com', 'Raj Patel', 'raj@example.org', 'dee@example.com']);
    expect(r.subject).toBe('Vendor contract renewal');
    expect(r.field).toMatchObject({ text: 'Hi Ana,', kind: 'contenteditable' });
    // A card about someone on the message says it is on this email, as in Gmail, not "on this page".
    const about = createItem({ text: 'Ana prefers a short summary first', people: ['ana@example.com'] });
    expect(situationMatch(about, r).reasons).toEqual(['about ana@example.com, who is on this email']);
    expect(r.destination).toBe('email');
  });
  it('work and school mail at outlook.cloud.microsoft (where outlook.office.com now leads) is read the same', () => {
    load('sites/outlook-compose.html', 'https://outlook.cloud.microsoft/mail/deeplink/compose');
    const r = read('[aria-label^="Message body"]');
    expect(r.adapter).toBe('outlook');
    expect(r.subject).toBe('Vendor contract renewal');
    expect(r.people).toContain('raj@example.org');
  });
  it('the generic compose reader finds neither on that page (why Outlook needs its own adapter)', () => {
    load('sites/outlook-compose.html', 'https://outlook.example.test/');
    const r = read('[aria-label^="Message body"]');
    expect(r.adapter).toBe('generic');
    expect(r.people).toBeUndefined();
    expect(r.subject).toBeUndefined();
  });
});

describe('ChatGPT and Claude', () => {
  it('ChatGPT: section turns, several author blocks of one assistant turn read as one turn, the tool block left out; thread from /c/<id>', () => {
    load('sites/chatgpt.html', 'https://chatgpt.com/c/6790aa');
    expect(document.querySelectorAll('section[data-turn]').length).toBe(6);
    const prompt = document.querySelector<HTMLElement>('#prompt-textarea')!;
    typeInto(prompt, 'Which neighbourhood?');
    const r = read('#prompt-textarea');
    expect(r.adapter).toBe('chatgpt');
    expect(r.turns).toEqual([
      'User: My budget is 120 EUR a night.',
      'ChatGPT: Then Cedofeita guesthouses fit well.\nMost are under 100 EUR.',
      'User: Any food tips?',
      'ChatGPT: Try a francesinha near Bolhão.',
    ]);
    expect(JSON.stringify(r)).not.toMatch(/TOOL-CALL-TEXT|Thought for|said:/);
    expect(r.field?.text).toBe('Which neighbourhood?');
    expect(r.thread).toEqual({ id: 'chatgpt:6790aa' });
  });

  it('Claude: a reply is its markdown, without thinking, tool-use or artifact blocks; thread from /chat/<uuid>', () => {
    load('sites/claude.html', 'https://claude.ai/chat/0b1c2d');
    const r = read(null);
    expect(r.adapter).toBe('claude');
    expect(r.turns?.at(-2)).toBe('Claude: Keep Stripe behind a PaymentGateway port.');
    expect(JSON.stringify(r)).not.toMatch(/THINKING-TEXT|TOOL-USE-TEXT|ARTIFACT-TEXT/);
    expect(r.thread).toEqual({ id: 'claude:0b1c2d' });
  });
});

describe('more assistants: the prompt and the recent turns, packaged for a chat', () => {
  const cases = [
    { name: 'gemini', file: 'gemini.html', url: 'https://gemini.google.com/app/ab12cd', prompt: '.ql-editor', turns: ['User: Our EKS bill doubled in October.', 'Gemini: Check the NAT gateway traffic first.', 'User: It is mostly cross-AZ data transfer.', 'Gemini: Pin chatty services to one zone.'], thread: 'gemini:ab12cd', subject: 'Kubernetes cost review' },
    { name: 'copilot', file: 'copilot.html', url: 'https://copilot.microsoft.com/chats/Xy9', prompt: '#userInput', turns: ['User: Draft a note to the landlord about the broken boiler.', 'Copilot: Here is a short note you can send.', 'User: Make it firmer, it has been three weeks.'], thread: 'copilot:Xy9', subject: 'Microsoft Copilot: Your AI companion' },
    { name: 'perplexity', file: 'perplexity.html', url: 'https://www.perplexity.ai/search/best-e-bike-Q1w2', prompt: '#ask-input', turns: ['User: Best e-bike for a 20 km commute', 'Perplexity: Look for a mid-drive motor and at least 500 Wh.', 'User: Which ones fold?', 'Perplexity: Folding models trade range for portability.'], thread: 'perplexity:best-e-bike-Q1w2', subject: 'Best e-bike for a 20 km commute' },
    { name: 'deepseek', file: 'deepseek.html', url: 'https://chat.deepseek.com/a/chat/s/77aa', prompt: '#chat-input', turns: ["User: Why does my async fn need a 'static bound?", 'DeepSeek: tokio::spawn needs the future to own its data.', 'User: Can I use scoped tasks instead?'], thread: 'deepseek:77aa', subject: 'Rust lifetimes in async code' },
    { name: 'mistral', file: 'mistral.html', url: 'https://chat.mistral.ai/chat/9f8e', prompt: 'textarea', turns: ['User: I am the best man, the groom is my brother Tom.', 'Le Chat: Open with a short story from your childhood.'], thread: 'mistral:9f8e', subject: 'Wedding speech outline' },
  ];
  for (const c of cases) {
    it(`${c.name}`, () => {
      load(`sites/${c.file}`, c.url);
      const prompt = document.querySelector<HTMLElement>(c.prompt)!;
      typeInto(prompt, 'What should I ask next?');
      const r = read(c.prompt);
      expect(r.adapter).toBe(c.name);
      expect(r.turns).toEqual(c.turns);
      expect(r.field?.text).toBe('What should I ask next?');
      expect(r.thread).toEqual({ id: c.thread });
      expect(r.subject).toBe(c.subject);
      // Cards are packaged for a chat, not as a generic page's.
      expect(r.destination).toBe('chat');
      expect(JSON.stringify(r)).not.toMatch(/THINKING-TEXT|\[1\]|Copy|You said/);
    });
  }
  it('every adapter declares where the user writes, and every reading on its pages carries it', () => {
    const declared = Object.fromEntries(ADAPTERS.map((a) => [a.name, a.destination]));
    expect(declared).toEqual({
      gmail: 'email', outlook: 'email', gdocs: 'documents', notion: 'documents', chatgpt: 'chat', claude: 'chat', gemini: 'chat',
      copilot: 'chat', perplexity: 'chat', deepseek: 'chat', mistral: 'chat', generic: 'documents',
    });
    // A site whose page no longer has the structure its adapter knows is still that site: Gmail stays email.
    load('sites/chatgpt.html', 'https://mail.google.com/mail/u/0/');
    expect(read(null)).toMatchObject({ adapter: 'generic', destination: 'email' });
    load('sites/gmail-compose.html', 'https://chatgpt.com/c/1');
    expect(read(null)).toMatchObject({ adapter: 'generic', destination: 'chat' });
    // Any other page is a page; any other webmail (a mail.* host) is email.
    load('sites/gmail-compose.html', 'https://example.com/compose');
    expect(read(null)).toMatchObject({ adapter: 'generic', destination: 'documents' });
    load('sites/gmail-compose.html', 'https://mail.yahoo.com/d/compose/1');
    expect(read(null)).toMatchObject({ adapter: 'generic', destination: 'email' });
  });
  it('every adapter but the generic one declares its hosts and when its selectors were last compared with the references', () => {
    for (const a of ADAPTERS) {
      if (a.name === 'generic') continue;
      expect(a.hosts.length, a.name).toBeGreaterThan(0);
      expect(a.seen, a.name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const h of a.hosts) expect(a.matches(new URL(`https://${h}/document/x`) as unknown as Location), h).toBe(true);
    }
  });
});

describe('sent-message capture joins the thread on screen', () => {
  it('a message sent from the ChatGPT prompt carries the conversation id the importer uses', async () => {
    const { startSentCapture } = await import('../../lib/sites/capture-sent');
    load('sites/chatgpt.html', 'https://chatgpt.com/c/6790aa');
    const prompt = document.querySelector<HTMLElement>('#prompt-textarea')!;
    const sent: unknown[] = [];
    const stop = startSentCapture({
      readField: (el) => (el instanceof HTMLElement && el.isContentEditable ? el.innerText : null),
      send: async (m) => void sent.push(m),
      thread: () => readTask(document, prompt).thread,
      loadSettings: async () => ({ captureSent: true, captureSites: ['chatgpt.com'] }),
      onSettingsChanged: () => () => {},
    });
    await new Promise((r) => setTimeout(r, 0));
    typeInto(prompt, 'Book the Cedofeita one');
    // The user's own typing and Enter (trusted; a page's synthetic events are not a send).
    const trusted = <E extends Event>(e: E): E => Object.defineProperty(e, 'isTrusted', { value: true });
    prompt.dispatchEvent(trusted(new InputEvent('beforeinput', { bubbles: true, inputType: 'insertText' })));
    prompt.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    stop();
    expect(sent).toEqual([expect.objectContaining({ text: 'Book the Cedofeita one', thread: { id: 'chatgpt:6790aa' } })]);
  });
});

describe('Google Docs', () => {
  /** Runs the fixture page's own script (it paints the canvas and, when the flag was set first, the layer). */
  function loadDocs(flag: boolean): void {
    (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL('https://docs.google.com/document/d/1NwPlan2027/edit');
    const html = readFileSync(join(FIXTURES, 'sites/gdocs.html'), 'utf8');
    const layer = html.match(/<body>[\s\S]*<\/body>/)![0].replace(/<script[\s\S]*?<\/script>/g, '');
    document.open();
    document.write(`<!doctype html><html><head><title>Northwind 2027 plan - Google Docs</title></head>${layer}</html>`);
    document.close();
    if (!flag) return;
    // The annotated layer as the page draws it (one rect per painted line, grouped by paragraph).
    const paras: [number, string[]][] = [
      [26, ['Northwind 2027 plan']],
      [15, ['This document collects the plans of the platform team.']],
      [20, ['Budget']],
      [15, ['The quarterly budget review is on Friday. The hardware line', 'is the one finance keeps asking about.']],
      [20, ['Hiring']],
      [15, ['We are hiring a backend engineer for the payments squad.']],
    ];
    const svg = paras
      .map(([px, lines]) => `<g role="paragraph">${lines.map((l) => `<rect aria-label="${l}" data-font-css="${px === 20 ? 700 : 400} ${px}px Arial"></rect>`).join('')}</g>`)
      .join('');
    document.querySelector('.kix-canvas-tile-content')!.insertAdjacentHTML('beforeend', `<svg>${svg}</svg>`);
  }

  it('reads the paragraphs of the annotated layer, wrapped lines joined, headings from the font sizes', async () => {
    const { annotatedParagraphs, documentText } = await import('../../lib/sites/gdocs');
    loadDocs(true);
    expect(documentText(document)).toBe(
      'Northwind 2027 plan\nThis document collects the plans of the platform team.\nBudget\nThe quarterly budget review is on Friday. The hardware line is the one finance keeps asking about.\nHiring\nWe are hiring a backend engineer for the payments squad.',
    );
    expect(annotatedParagraphs(document)?.map((p) => p.px)).toEqual([26, 15, 20, 15, 20, 15]);
    const r = read(null);
    expect(r.adapter).toBe('gdocs');
    expect(r.subject).toBe('Northwind 2027 plan');
    // No caret geometry without layout: the document's headings stand for the task.
    expect(r.headings).toEqual(['Northwind 2027 plan', 'Budget', 'Hiring']);
  });

  it('"Remember this page" saves the document text from the layer (the DOM has none)', async () => {
    const { readPageForCapture } = await import('../../lib/sites/index');
    loadDocs(true);
    const page = readPageForCapture(document, null);
    expect(page.text).toMatch(/^Northwind 2027 plan\nThis document collects/);
    expect(page.text).toContain('We are hiring a backend engineer for the payments squad.');
  });

  it('without the layer it reads the title only, and is still the Docs adapter (Sheets and Slides are not)', async () => {
    loadDocs(false);
    const r = read(null);
    expect(r).toMatchObject({ adapter: 'gdocs', subject: 'Northwind 2027 plan' });
    expect(r.field).toBeUndefined();
    expect(ADAPTERS.find((a) => a.matches(new URL('https://docs.google.com/spreadsheets/d/x/edit') as unknown as Location))?.name).toBe('generic');
  });

  it('the main-world script sets the flag (non-empty, naming Backstory), and leaves one already set alone', async () => {
    const { requestAnnotatedCanvas, DOCS_ANNOTATE_FLAG } = await import('../../lib/sites/docs-annotate');
    const w = {} as Record<string, unknown>;
    requestAnnotatedCanvas(w as unknown as Window);
    expect(w[DOCS_ANNOTATE_FLAG]).toBe('backstory');
    const other = { [DOCS_ANNOTATE_FLAG]: 'another-extension' };
    requestAnnotatedCanvas(other as unknown as Window);
    expect(other[DOCS_ANNOTATE_FLAG]).toBe('another-extension');
  });
});

describe('Notion', () => {
  it('the focused block with the heading above it and the block before it, under the page title', () => {
    load('sites/notion.html', 'https://www.notion.so/Offsite-2027-0a1b2c3d');
    const r = read('#last');
    expect(r.adapter).toBe('notion');
    expect(r.subject).toBe('Offsite 2027');
    expect(r.field?.text).toBe('Travel\nFlights are booked centrally; the travel budget moved to Q4.\nAsk finance about');
    expect(r.headings).toEqual(['Travel', 'Offsite 2027']);
    expect(r.field?.text).not.toContain('Lisbon');
  });

  it('one editable root over the page (as Notion now draws it): the block comes from the selection, not the focused root', () => {
    load('sites/notion-root.html', 'https://www.notion.so/Northwind-plan-0a1b2c3d');
    const root = document.getElementById('root')!;
    const caretIn = (id: string) => {
      const leaf = document.getElementById(id)!;
      const range = document.createRange();
      range.setStart(leaf.firstChild!, leaf.textContent!.length);
      const sel = document.getSelection()!;
      sel.removeAllRanges();
      sel.addRange(range);
      root.focus();
    };
    caretIn('launch-leaf');
    let r = readTask(document, root);
    expect(r.adapter).toBe('notion');
    expect(r.subject).toBe('Northwind plan');
    expect(r.field?.text).toBe('Launch\nThe beta launch for design partners is in March.\nWho owns the support runbook and the status page');
    expect(r.headings).toEqual(['Launch', 'Northwind plan']);
    expect(r.landmarks?.found).toEqual(['editable root', 'page content', 'blocks', 'block text', 'block at the caret']);
    caretIn('hiring-leaf');
    r = readTask(document, root);
    expect(r.field?.text).toBe('Hiring\nThe payments squad needs a backend engineer; four interview stages are planned.\nDecide on the hiring timeline');
    expect(r.field?.text).not.toContain('beta launch');
  });
});

describe('what the reading says it found (landmarks)', () => {
  it('a known site stripped of its landmarks: none found, the reading is the focused field alone', () => {
    load('sites/gmail-settings.html', 'https://mail.google.com/mail/u/2/');
    const r = read('#sig');
    expect(r.adapter).toBe('generic');
    expect(r.landmarks).toEqual({
      adapter: 'gmail', label: 'Gmail', found: [],
      missing: ['compose body', 'subject', 'recipients', 'thread id', 'messages', 'mail view'],
    });
    expect(fieldOnly(r.landmarks)).toBe(true);
    expect(r.field?.text).toBe('Me');
    // Names only: nothing the page holds is in the report.
    expect(JSON.stringify(r.landmarks)).not.toMatch(/Signature|hunter2|Me"/);
  });
  it('a page that has them: not field-only; an adapter without a table reports its reading as one landmark; other pages report none', () => {
    load('sites/gmail-reply.html', 'https://mail.google.com/mail/u/1/');
    expect(fieldOnly(read(null).landmarks)).toBe(false);
    // Google Docs drawing no text layer for Backstory (the usual case) is still Docs as the adapter knows it.
    load('sites/gdocs.html', 'https://docs.google.com/document/d/1NwPlan2027-canvas/edit');
    const docs = read(null).landmarks;
    expect(docs?.found).toEqual(expect.arrayContaining(['editor', 'caret']));
    expect(docs?.missing).toContain('annotated text layer');
    expect(fieldOnly(docs)).toBe(false);
    const bare = { ...genericAdapter, name: 'bare', hosts: ['bare.example'] };
    expect(readingLandmarks(bare, document, null, true)).toEqual({ adapter: 'bare', label: 'bare', found: ['page structure'], missing: [] });
    expect(fieldOnly(readingLandmarks(bare, document, null, false))).toBe(true);
    load('sites/gmail-compose.html', 'https://example.com/compose');
    expect(read(null).landmarks).toBeUndefined();
  });
});
