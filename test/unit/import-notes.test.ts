import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { noteFormat, noteItems } from '../../lib/import/notes';
import { textItems } from '../../lib/import/plain-text';
import { parseMemoryFile } from '../../lib/memory/memory-file';
import { bytesFile, byId, fixtureFolder, folderEntries, readAll } from './import-fixtures';

const PLAN = 'note:vault/Projects/Lisbon offsite.md';

describe('a notes folder / Obsidian vault', () => {
  it('reads the notes and passes over .obsidian, .trash and attachments', async () => {
    const files = fixtureFolder('vault');
    expect(files.map((f) => f.path)).toContain('vault/.obsidian/workspace.json');
    const { items } = await readAll(files);
    const paths = new Set(items.map((i) => i.thread!.id));
    expect([...paths].sort()).toEqual(['note:vault/Daily/2026-03-03.md', 'note:vault/People/Dana Ortiz.md', PLAN]);
  });

  it('splits a note at its headings into the parts of one thread, with front matter tags, aliases and date', async () => {
    const { items } = await readAll(fixtureFolder('vault'));
    const plan = items.filter((i) => i.thread!.id === PLAN);
    expect(plan.map((i) => [i.id, i.thread!.seq, i.title])).toEqual([
      [`${PLAN}#0`, 0, 'Lisbon offsite (Offsite 2026)'],
      [`${PLAN}#1`, 1, 'Lisbon offsite › Venue'],
      [`${PLAN}#2`, 2, 'Lisbon offsite › Budget'],
    ]);
    expect(plan.every((i) => i.tags!.join() === 'offsite,travel' && i.createdAt === Date.parse('2026-02-20T09:30:00Z'))).toBe(true);
    expect(plan[0].source).toEqual({ format: 'markdown', title: 'Lisbon offsite' });
  });

  it('keeps links as text, drops embeds and comments, and does not split at a "#" inside a code block', async () => {
    const { items } = await readAll(fixtureFolder('vault'));
    const parts = byId(items);
    expect(parts.get(`${PLAN}#0`)!.text).toBe('Second week of November, 40 people. Dana handles the venue shortlist.');
    expect(parts.get(`${PLAN}#1`)!.text).toBe(
      'The Marvila warehouse fits a U-shaped table; see and the booking page (https://venues.example.com/marvila).\n\n```\n## not a heading: inside a code block\n```',
    );
    expect(parts.get(`${PLAN}#2`)!.text).toBe('Flights are capped at 350 euros a person. Dinner on the Thursday at Restaurants › Cervejaria.');
  });

  it('takes inline #tags as tags', async () => {
    const { items } = await readAll(fixtureFolder('vault'));
    expect(byId(items).get('note:vault/Daily/2026-03-03.md#0')!.tags).toEqual(['kiln', 'todo']);
    expect(byId(items).get('note:vault/People/Dana Ortiz.md#0')!.tags).toEqual(['person', 'team/ops']);
  });

  it('passes over JSON in a folder that is neither a chat export nor a memory file', async () => {
    const files = [...fixtureFolder('vault'), { name: 'package.json', path: 'vault/scripts/package.json', blob: new Blob(['{ "name": "x" }']) }, { name: 'data.json', path: 'vault/data.json', blob: new Blob(['[1, 2]']) }];
    const { items } = await readAll(files);
    expect(new Set(items.map((i) => i.thread!.id)).size).toBe(3);
  });

  it('gives the same ids when the vault is read again', async () => {
    const a = await readAll(fixtureFolder('vault'));
    const b = await readAll(fixtureFolder('vault'));
    expect(b.items).toEqual(a.items);
  });

  it('a front matter block that is not YAML does not stop the note', () => {
    const items = noteItems('---\ntags: [unclosed\n---\nThe body.\n', 'odd.md', { format: noteFormat('odd.md') });
    expect(items).toMatchObject([{ text: 'The body.', title: 'odd', tags: [] }]);
  });
});

describe('Notion export', () => {
  it('reads the pages of a "Markdown & CSV" export zip, nested zips too, with the page ids as thread ids', async () => {
    const pages = folderEntries('notion');
    const inner = zipSync(pages);
    const { items, batches } = await readAll([bytesFile('Export-5d1f.zip', zipSync({ 'Export-5d1f-Part-1.zip': inner }))]);
    expect(batches.every((b) => b.format === 'notion' && b.file === 'Export-5d1f.zip')).toBe(true);
    const wiki = items.filter((i) => i.thread!.id === 'notion:3f2a9c1e8b7d4e6fa0b1c2d3e4f5a6b7');
    expect(wiki.map((i) => [i.id, i.title, i.text])).toEqual([
      ['notion:3f2a9c1e8b7d4e6fa0b1c2d3e4f5a6b7#0', 'Team wiki', 'Everything a new person at the studio needs. Start with Onboarding.'],
      ['notion:3f2a9c1e8b7d4e6fa0b1c2d3e4f5a6b7#1', 'Team wiki › Tools', 'We plan in Notion, chat in Slack and keep files on the NAS in the back office.'],
    ]);
    expect(wiki[0].source).toEqual({ format: 'notion', title: 'Team wiki', url: 'https://www.notion.so/3f2a9c1e8b7d4e6fa0b1c2d3e4f5a6b7' });
    const task = byId(items).get('notion:77aa88bb99cc4dd0ae1f2a3b4c5d6e7f#0')!;
    expect(task).toMatchObject({ title: 'Fix kiln thermocouple', tags: ['kiln', 'maintenance'] });
    expect(new Date(task.createdAt!).getFullYear()).toBe(2026);
    // The database's CSV is not read: each of its rows is also a page of its own.
    expect(items).toHaveLength(4);
    const flat = await readAll([bytesFile('Export-5d1f.zip', inner)]);
    expect(flat.items).toEqual(items);
  });
});

describe('plain text and small files read as text', () => {
  it('small files read as text: Markdown notes, plain text, memory files', () => {
    expect(noteItems('# Budget\nQ3 is frozen.\n\n# Dana\nPrefers numbers first.\n', 'notes.md', { format: noteFormat('notes.md') })).toMatchObject([
      { id: 'note:notes.md#0', title: 'notes › Budget', text: 'Q3 is frozen.', thread: { id: 'note:notes.md', seq: 0 } },
      { id: 'note:notes.md#1', title: 'notes › Dana', text: 'Prefers numbers first.', thread: { id: 'note:notes.md', seq: 1 } },
    ]);
    expect(textItems('just a note', 'plain.txt')).toMatchObject([{ title: 'plain', text: 'just a note', id: 'note:plain.txt#0' }]);
    expect(parseMemoryFile(JSON.stringify({ format: 'backstory-memory', version: 1, items: [{ text: 'x' }] }))).toMatchObject([{ text: 'x' }]);
  });

  it('a long text file becomes the parts of one thread, split at blank lines', async () => {
    const para = (n: number) => `Paragraph ${n}. ` + 'The kiln log for the week and what changed. '.repeat(8);
    const text = Array.from({ length: 12 }, (_, i) => para(i)).join('\n\n');
    const { items, batches } = await readAll([bytesFile('log.txt', text)]);
    expect(batches[0].format).toBe('text');
    expect(items.length).toBeGreaterThan(2);
    expect(items.map((i) => i.thread!.seq)).toEqual(items.map((_, i) => i));
    expect(items.map((i) => i.text).join('\n\n')).toBe(text.trim());
  });

  it('reads a Windows-1252 text file as such', async () => {
    const bytes = new Uint8Array([...strToU8('Caf'), 0xe9, ...strToU8(' costs '), 0x80, ...strToU8('3 '), 0x96, ...strToU8(' cheap')]);
    const { items } = await readAll([bytesFile('prices.txt', bytes)]);
    expect(items[0].text).toBe('Café costs €3 – cheap');
  });
});
