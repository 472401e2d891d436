import { describe, expect, it } from 'vitest';
import { bytesOf } from '../../lib/import/byte-stream';
import { replyText } from '../../lib/import/mail-text';
import { mboxMessages } from '../../lib/import/mbox';
import { ImportFileError } from '../../lib/import/types';
import { bytesFile, byId, fixtureBytes, fixtureFile, readAll } from './import-fixtures';

const latin1 = new TextDecoder('latin1');

describe('mbox (Gmail Takeout)', () => {
  it('splits at "From " separator lines only, and undoes mboxrd\'s ">From " quoting', async () => {
    const bytes = fixtureBytes('mail/takeout.mbox');
    // Fed a few bytes at a time, so separators and lines fall across chunk edges.
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
    const messages: string[] = [];
    for await (const m of mboxMessages(bytesOf(...chunks))) messages.push(latin1.decode(m.raw));
    expect(messages).toHaveLength(7);
    expect(messages.every((m) => !m.startsWith('From '))).toBe(true);
    expect(messages[2]).toContain('\nFrom the accounts team: thank you');
    // An unescaped body line starting with "From " is not a separator.
    expect(messages[2]).toContain('\nFrom here on, invoices come from this address.');
    expect(messages[3]).toContain('Subject: You have won a kiln');
    const whole: string[] = [];
    for await (const m of mboxMessages(bytesOf(bytes))) whole.push(latin1.decode(m.raw));
    expect(whole).toEqual(messages);
  });

  it('reads an mbox with CRLF line ends the same', async () => {
    const lf = fixtureBytes('mail/takeout.mbox');
    const a = await readAll([bytesFile('a.mbox', lf)]);
    const crlf = Uint8Array.from(latin1.decode(lf).replace(/\n/g, '\r\n'), (c) => c.charCodeAt(0));
    const b = await readAll([bytesFile('b.mbox', crlf)]);
    expect(b.items).toHaveLength(6);
    expect(b.items).toEqual(a.items);
  });

  it('reads each message: subject as title, people, date, Gmail labels as tags, a link to the thread', async () => {
    const { items, batches } = await readAll([fixtureFile('mail/takeout.mbox', 'All mail Including Spam and Trash.mbox')]);
    expect(items).toHaveLength(6);
    expect(batches.every((b) => b.format === 'mbox' && b.file === 'All mail Including Spam and Trash.mbox')).toBe(true);
    const budget = byId(items).get('mail:budget-1@mail.example.fr')!;
    expect(budget).toMatchObject({
      title: 'Réunion budgétaire déplacée', // RFC 2047, ISO-8859-1
      people: ['Marc Lefèvre <marc@example.fr>', 'Léa Martin <lea@example.org>', 'compta@example.fr'],
      tags: ['Inbox', 'Important', 'Clients, Paris'],
      createdAt: Date.parse('2026-03-03T09:12:44Z'),
      kind: 'evidence',
      thread: { id: 'mail-thread:1790000000000000001', seq: 0 },
      source: { format: 'mbox', title: 'Réunion budgétaire déplacée', url: 'https://mail.google.com/mail/u/0/#all/18d75b8423f30001' },
    });
  });

  it('takes the plain part of a multipart/alternative mail, decoding quoted-printable ISO-8859-1', async () => {
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    const budget = byId(items).get('mail:budget-1@mail.example.fr')!;
    expect(budget.text).toBe('Bonjour Léa,\n\nLa réunion budgétaire est déplacée à jeudi 14h. Le budget café passe à 250 euros, merci de prévoir.\n\nMarc');
  });

  it('turns an HTML-only windows-1252 base64 newsletter into text: no tags, styles or scripts', async () => {
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    const news = byId(items).get('mail:weekly-42@news.studio.example.com')!;
    expect(news.title).toBe('Open Studio – Saturday');
    expect(news.text).toBe('Studio Weekly\n\nOur “Open Studio” day is on Saturday 21 March – tickets are €12.\n\nRead more at our site (https://studio.example.com/open).');
    expect(news.tags).toEqual(['Category Promotions']);
  });

  it('leaves out mail in Spam or Trash', async () => {
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    expect(items.some((i) => /won a kiln|free kiln/.test(`${i.title} ${i.text}`))).toBe(false);
  });

  it('leaves attachments out', async () => {
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    const invoice = byId(items).get('mail:invoice-77@billing.example.net')!;
    expect(invoice.text).toContain('Invoice 77 for February is attached: 1,240 euros, due on March 31.');
    expect(items.map((i) => i.text).join('\n')).not.toMatch(/SECRET-ATTACHMENT|PDF-1\.4|JVBER/);
    expect(invoice.people).toEqual(['Billing <billing@example.net>', 'Martin, Lea <lea@example.org>']);
  });

  it('threads replies by References without Gmail ids, each reply without the quoted mail or the signature', async () => {
    const { items } = await readAll([fixtureFile('mail/takeout.mbox')]);
    const thread = items.filter((i) => i.thread?.id === 'mail-thread:kiln-1@example.com');
    expect(thread.map((i) => [i.id, i.thread!.seq, i.text])).toEqual([
      ['mail:kiln-1@example.com', 0, 'Hi both,\n\nThe kiln repair quote came in at 2,300 euros. The technician can come on March 18.\nShall we book it?'],
      ['mail:kiln-2@example.org', 1, 'Yes, book the 18th. Ask whether the quote includes the thermocouple.'],
      ['mail:kiln-3@example.org', 2, 'Agreed. I moved 2,300 euros from the equipment reserve.'],
    ]);
    expect(thread[1].people).toEqual(['Priya Raman <priya@example.org>', 'Dana Ortiz <dana@example.com>', 'Lea Martin <lea@example.org>']);
  });
});

describe('.eml files', () => {
  it('reads a single mail with CRLF lines and an Outlook "Original Message" quote', async () => {
    const { items, batches } = await readAll([fixtureFile('mail/reply.eml')]);
    expect(batches[0].format).toBe('eml');
    expect(items).toEqual([
      {
        id: 'mail:offsite-9@example.com',
        text: 'November 10–14 works for the whole team. I will hold the Marvila warehouse.',
        title: 'RE: Offsite dates',
        kind: 'evidence',
        people: ['Marcus Webb <marcus@example.com>', 'Lea Martin <lea@example.org>'],
        tags: [],
        createdAt: Date.parse('2026-03-13T14:00:00Z'),
        source: { format: 'eml', title: 'RE: Offsite dates' },
        thread: { id: 'mail-thread:offsite-7@example.com', seq: 2 },
      },
    ]);
  });

  it('gives a mail without a Message-ID an id from its content that is the same each time', async () => {
    const a = await readAll([fixtureFile('mail/no-message-id.eml')]);
    const b = await readAll([fixtureFile('mail/no-message-id.eml', 'copy.eml')]);
    expect(a.items[0].id).toMatch(/^mail:[0-9a-f]{16}$/);
    expect(b.items[0].id).toBe(a.items[0].id);
    const other = await readAll([bytesFile('x.eml', new TextDecoder().decode(fixtureBytes('mail/no-message-id.eml')).replace('4 kg', '5 kg'))]);
    expect(other.items[0].id).not.toBe(a.items[0].id);
  });

  it('recognises mail by its headers whatever the file is called', async () => {
    const { batches } = await readAll([fixtureFile('mail/reply.eml', 'message.txt')]);
    expect(batches[0].format).toBe('eml');
    const mbox = await readAll([fixtureFile('mail/takeout.mbox', 'Takeout export')]);
    expect(mbox.items).toHaveLength(6);
  });

  it('reading the same mbox twice gives the same ids and threads', async () => {
    const a = await readAll([fixtureFile('mail/takeout.mbox')]);
    const b = await readAll([fixtureFile('mail/takeout.mbox')]);
    expect(b.items).toEqual(a.items);
  });

  it('a mail that is not MIME at all is refused with the file name', async () => {
    const err = await readAll([bytesFile('broken.eml', new Uint8Array([0, 1, 2, 3, 0, 0, 0, 9, 8, 7]))]).catch((e) => e);
    expect(err).toBeInstanceOf(ImportFileError);
    expect(err.message).toMatch(/^broken\.eml: /);
  });
});

describe('reply text', () => {
  it.each([
    ['Gmail, wrapped attribution', 'Sounds good.\n\nOn Tue, 3 Mar 2026 at 10:02, Dana Ortiz <dana@example.com>\nwrote:\n> the old text\n', 'Sounds good.'],
    ['German client', 'Passt.\n\nAm 03.03.2026 um 10:02 schrieb Dana Ortiz <dana@example.com>:\n> alt\n', 'Passt.'],
    ['bottom-posted reply', 'On Mon, Dana wrote:\n> Can you send the deck?\n\nSent it this morning.\n\n-- \nPriya', 'Sent it this morning.'],
    ['HTML reply made text (no > marks)', 'Yes.\n\nOn Mon, Mar 9, 2026 at 8:00 AM Dana <dana@example.com> wrote:\nHi both, the quote came in.', 'Yes.'],
    ['Outlook header block', 'Fine by me.\n\nFrom: Dana Ortiz <dana@example.com>\nSent: Monday, March 9, 2026 8:00 AM\nTo: Lea\nSubject: Quote\n\nHi both', 'Fine by me.'],
    ['signature only', 'See you at 3.\n-- \nLea Martin\nStudio', 'See you at 3.'],
    ['mobile footer', 'On my way.\n\nSent from my iPhone', 'On my way.'],
  ])('%s', (_name, body, own) => {
    expect(replyText(body)).toBe(own);
  });

  it('keeps a forwarded mail whole', () => {
    const body = 'FYI, see below.\n\n---------- Forwarded message ---------\nFrom: Dana Ortiz <dana@example.com>\nDate: Mon, 9 Mar 2026 at 08:00\nSubject: Kiln repair quote\nTo: Lea <lea@example.org>\n\nThe quote came in at 2,300 euros.';
    expect(replyText(body)).toBe(body);
  });

  it('keeps a line that merely starts with "On"', () => {
    expect(replyText('On Tuesday we fire the kiln.\nBring gloves.')).toBe('On Tuesday we fire the kiln.\nBring gloves.');
  });
});

