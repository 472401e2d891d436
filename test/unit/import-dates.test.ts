import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { noteItems } from '../../lib/import/notes';
import { bytesFile, fixtureBytes, readAll } from './import-fixtures';

const conversations = () => JSON.parse(new TextDecoder().decode(fixtureBytes('chatgpt/conversations.json')));
// A Notion export stamps every entry of its zip with the moment of the export, not the page's own time.
const EXPORT_TIME = new Date(2026, 5, 1, 12, 0);
const notionZip = (pages: Record<string, string>) =>
  zipSync({ 'Export-1b2c-Part-1.zip': zipSync(Object.fromEntries(Object.entries(pages).map(([n, t]) => [n, [strToU8(t), { mtime: EXPORT_TIME }]]))) });

describe('dates come from the file, never from the moment of the import', () => {
  it("a Notion page is dated by its own Created / Last edited properties", async () => {
    const { items } = await readAll([
      bytesFile(
        'Export-1b2c.zip',
        notionZip({
          'Reading list 0123456789abcdef0123456789abcdef.md': '# Reading list\n\nCreated: March 3, 2023 10:12 AM\nLast edited: May 9, 2023 4:05 PM\nTags: books\n\nThe Overstory, then Piranesi.\n',
          'Kiln log 11112222333344445555666677778888.md': '# Kiln log\n\nLast edited time: October 12, 2023 2:56 PM\n\nCone 6 reached at 11:40.\n',
        }),
      ),
    ]);
    const list = items.find((i) => i.thread!.id === 'notion:0123456789abcdef0123456789abcdef')!;
    expect(list.createdAt).toBe(new Date(2023, 2, 3, 10, 12).getTime());
    expect(list.updatedAt).toBe(new Date(2023, 4, 9, 16, 5).getTime());
    expect(list.undated).toBeUndefined();
    // The dates are read, not left in the text.
    expect(list.text).toBe('Tags: books\n\nThe Overstory, then Piranesi.');
    const log = items.find((i) => i.thread!.id === 'notion:11112222333344445555666677778888')!;
    expect(log.createdAt).toBe(new Date(2023, 9, 12, 14, 56).getTime());
  });

  it('a Notion page with no date of its own says so (undated) rather than taking the export or import time', async () => {
    const { items } = await readAll([bytesFile('Export-1b2c.zip', notionZip({ 'Welcome 0123456789abcdef0123456789abcdef.md': '# Welcome\n\nStart here.\n' }))]);
    expect(items).toHaveLength(1);
    expect(items[0].createdAt).toBeUndefined();
    expect(items[0].undated).toBe(true);
  });

  it('the picked zip\'s own file time (when it was downloaded) dates nothing inside it', async () => {
    const zip = notionZip({ 'Welcome 0123456789abcdef0123456789abcdef.md': '# Welcome\n\nStart here.\n' });
    const file = { name: 'Export-1b2c.zip', blob: new File([zip as BlobPart], 'Export-1b2c.zip', { lastModified: Date.parse('2026-06-02T08:00:00Z') }) };
    const { items } = await readAll([file]);
    expect(items[0]).toMatchObject({ undated: true });
    expect(items[0].createdAt).toBeUndefined();
  });

  it('a note picked on its own keeps its file time; an absurd front matter year is refused for the next evidence', () => {
    const mtime = Date.parse('2024-02-10T09:00:00Z');
    expect(noteItems('---\ncreated: 3609-01-01\n---\nA note.\n', 'n.md', { format: 'markdown', lastModified: mtime })[0]).toMatchObject({ createdAt: mtime });
    const none = noteItems('---\ncreated: 3609-01-01\n---\nA note.\n', 'n.md', { format: 'markdown' })[0];
    expect(none.createdAt).toBeUndefined();
    expect(none.undated).toBe(true);
    const zero = noteItems('A note.\n', 'n.md', { format: 'markdown', lastModified: 0 })[0];
    expect(zero).toMatchObject({ undated: true });
    const fm = noteItems('---\ncreated: 2021-04-05\nupdated: 2022-01-02\n---\nA note.\n', 'n.md', { format: 'markdown', lastModified: mtime })[0];
    expect([fm.createdAt, fm.updatedAt]).toEqual([Date.parse('2021-04-05'), Date.parse('2022-01-02')]);
  });

  it('a ChatGPT message without create_time takes its conversation\'s time; with neither it is undated', async () => {
    const convs = conversations();
    const b = convs[1];
    b.mapping['b-u1'].message.create_time = null;
    let { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify([b])))]);
    expect(items[0].createdAt).toBe(Math.round(b.create_time * 1000));
    b.create_time = null;
    b.update_time = null;
    ({ items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify([b])))]));
    expect(items[0].createdAt).toBeUndefined();
    expect(items[0].undated).toBe(true);
    expect(items[1].undated).toBeUndefined();
  });

  it('a ChatGPT time in an absurd year (milliseconds written as seconds) is refused', async () => {
    const b = conversations()[1];
    b.mapping['b-u1'].message.create_time = b.create_time * 1000;
    const { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify([b])))]);
    expect(items[0].createdAt).toBe(Math.round(b.create_time * 1000));
  });

  it('a Claude message with no usable created_at takes the conversation\'s; with neither it is undated', async () => {
    const conv = { uuid: 'c-1', name: 'Grant', created_at: '2024-04-02T09:00:00Z', chat_messages: [{ uuid: 'm-1', sender: 'human', text: 'Draft the outline.', created_at: 'not a date' }] };
    let { items } = await readAll([bytesFile('conversations.json', JSON.stringify([conv]))]);
    expect(items[0].createdAt).toBe(Date.parse('2024-04-02T09:00:00Z'));
    ({ items } = await readAll([bytesFile('conversations.json', JSON.stringify([{ ...conv, created_at: '0001-01-01T00:00:00Z' }]))]));
    expect(items[0]).toMatchObject({ undated: true });
    expect(items[0].createdAt).toBeUndefined();
  });
});
