/**
 * Real files other people published (test/fixtures/real/SOURCES.md), read the way a person imports them. Counts,
 * dates and texts below were taken from the files by hand (unzip -l, the JSON itself), not from Backstory's output.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImport } from '../../lib/import/index';
import { ImportFileError, type ImportFile } from '../../lib/import/types';
import type { MemoryInput } from '../../lib/memory/types';

const REAL = join(__dirname, '../fixtures/real');
const bytes = (p: string) => new Uint8Array(readFileSync(join(REAL, p)));
const picked = (p: string): ImportFile => ({ name: p.split('/').pop()!, blob: new Blob([bytes(p) as BlobPart]) });
const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
/** A picked folder: its files with paths below the folder's parent, as the browser gives them. */
const folder = (p: string): ImportFile[] =>
  walk(join(REAL, p)).map((f) => ({ name: f.split('/').pop()!, path: relative(join(REAL, p, '..'), f), blob: new Blob([readFileSync(f)]) }));

async function read(files: ImportFile[]): Promise<MemoryInput[]> {
  const items: MemoryInput[] = [];
  for await (const b of readImport(files)) items.push(...b.items);
  return items;
}
const threads = (items: MemoryInput[]) => new Map(items.map((i) => [i.thread!.id, items.filter((j) => j.thread!.id === i.thread!.id)]));
/** Fenced code blocks as written in a note (these notes have no fences inside fences). */
const fences = (md: string) => [...md.matchAll(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1$/gm)].map((m) => m[0]);
/** HTML tags left in text outside code. */
const tagsOutsideCode = (text: string) =>
  text
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '')
    .replace(/`[^`\n]*`/g, '')
    .match(/<\/?(?:span|div|br|p|a|img|label|input|button|ul|li|aside|details|summary|b|i|em|strong|antThinking|antArtifact)\b[^<>]*>/g) ?? [];

describe('a ChatGPT conversation as published (pionxzh/chatgpt-exporter)', () => {
  const raw = JSON.parse(new TextDecoder().decode(bytes('chat/chatgpt-ai-turing-test.json')));

  it('reads the two messages on the path shown (the hidden system message is left out), as one thread, dated by the file', async () => {
    const items = await read([picked('chat/chatgpt-ai-turing-test.json')]);
    expect(items.map((i) => i.id)).toEqual([
      'chatgpt:35a1fa05-e928-4c39-8ffa-ca74f75b509f:4afb9720-3a88-49b1-9309-e2b53d607f34',
      'chatgpt:35a1fa05-e928-4c39-8ffa-ca74f75b509f:7027f1a5-8bd5-4463-9869-8a1d1db2f9a1',
    ]);
    expect(threads(items).size).toBe(1);
    expect(items.map((i) => i.thread!.seq)).toEqual([0, 1]);
    expect(items.map((i) => i.createdAt)).toEqual([Math.round(1678015311.656259 * 1000), Math.round(1678185638.890551 * 1000)]);
    expect(items.every((i) => !i.undated)).toBe(true);
    expect(items[0].text).toBe('write an poem about the Turing test');
    expect(items[1].text).toBe(raw.mapping['7027f1a5-8bd5-4463-9869-8a1d1db2f9a1'].message.content.parts[0].trim());
    expect(items[1].title).toBe('AI Turing Test. · ChatGPT');
  });

  it('a copy damaged after its first conversation is refused in the words of the person who exported it', async () => {
    const text = new TextDecoder().decode(bytes('chat/chatgpt-ai-turing-test.json'));
    const err = await read([{ name: 'conversations.json', blob: new Blob([`[${text},\n<!DOCTYPE html><title>Error</title>]`]) }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFileError);
    expect((err as Error).message).toBe(
      'conversations.json: the file is damaged after the first conversation (it is no longer valid JSON there). Export your data from ChatGPT again.',
    );
  });
});

describe('a Claude conversation as published (osteele/claude-chat-viewer)', () => {
  const raw = JSON.parse(new TextDecoder().decode(bytes('chat/claude-bakery-chat.json')));

  it('reads its four messages as one thread, dated within the conversation, without Claude\'s reasoning markers', async () => {
    const items = await read([picked('chat/claude-bakery-chat.json')]);
    expect(items).toHaveLength(4);
    expect(threads(items).size).toBe(1);
    expect(items.map((i) => i.title!.split(' · ')[1])).toEqual(['You', 'Claude', 'You', 'Claude']);
    const [from, to] = [Date.parse(raw.created_at), Date.parse(raw.updated_at)];
    expect(items.every((i) => i.createdAt! >= from && i.createdAt! <= to && !i.undated)).toBe(true);
    expect(items[2].text).toBe('What are your ideas for extending this?');
    // The React code Claude wrote holds JSX tags of its own; Claude's markers around it are gone.
    expect(items.filter((i) => /<\/?ant[A-Z]/.test(i.text))).toEqual([]);
    // The reasoning is left out; the component Claude wrote is kept, line for line, under its title.
    expect(items[1].text).not.toContain('A new artifact is warranted');
    expect(items[1].text).toContain('Interactive Bakery Comparison:\nimport React, { useState } from \'react\';\nimport { Card } from \'@/components/ui/card\';');
  });
});

describe("a Notion 'Markdown & CSV' export as Notion mails it (obsidianmd/obsidian-importer)", () => {
  // unzip -l of the inner Export-…-Part-1.zip: 278 .md pages; every entry is stamped 2025-08-06 20:36 (the export).
  const PAGES = 278;
  const EXPORTED = new Date(2025, 7, 6, 20, 36).getTime();

  it('reads each of its 278 pages as one thread, through the zip inside the zip', async () => {
    const items = await read([picked('notion/Notion.Test.Export.zip')]);
    const byThread = threads(items);
    expect(byThread.size).toBe(PAGES);
    for (const [id, parts] of byThread) {
      expect(id).toMatch(/^notion:[0-9a-f]{32}$/);
      expect(parts.map((p) => p.thread!.seq)).toEqual(parts.map((_, k) => k));
    }
    // Project Planner has three sections, each a part of its page.
    expect(items).toHaveLength(PAGES + 2);
  });

  it("dates the Habit Tracker's 270 pages by their own date property, and says the 8 others have no date; none by the export or the import", async () => {
    const items = await read([picked('notion/Notion.Test.Export.zip')]);
    const habit = items.filter((i) => i.title!.startsWith('@'));
    expect(habit).toHaveLength(270);
    expect(habit.every((i) => !i.undated && i.createdAt! >= new Date(2024, 10, 1).getTime() && i.createdAt! < EXPORTED)).toBe(true);
    // "@December 1, 2024": "Full date: December 4, 2024 8:45 AM".
    expect(items.find((i) => i.id === 'notion:152bb52ee2b5811d92b1e629b25d0c0a#0')!.createdAt).toBe(new Date(2024, 11, 4, 8, 45).getTime());
    const rest = items.filter((i) => !i.title!.startsWith('@'));
    expect(new Set(rest.map((i) => i.thread!.id)).size).toBe(8);
    expect(rest.every((i) => i.undated === true && i.createdAt === undefined)).toBe(true);
  });

  it('titles and text carry no Markdown emphasis or HTML', async () => {
    const items = await read([picked('notion/Notion.Test.Export.zip')]);
    expect(items.filter((i) => i.thread!.id === 'notion:152bb52ee2b580f1bc1bd5ac36d7f9e3').map((i) => i.title)).toEqual([
      'Project Planner › 📝 Publish my first book',
      'Project Planner › 🏡 Home renovation',
      'Project Planner › 🏅 Organize a charity event',
    ]);
    expect(items.filter((i) => /\*\*|__|~~/.test(i.title!))).toEqual([]);
    expect(items.flatMap((i) => tagsOutsideCode(i.text))).toEqual([]);
    expect(items.filter((i) => /^---$/m.test(i.text))).toEqual([]);
  });
});

describe("Notion's HTML export (obsidianmd/obsidian-importer)", () => {
  it('is refused, named for what it is, with what to export instead', async () => {
    const err = await read([picked('notion/notion-testspace.zip')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportFileError);
    expect((err as Error).message).toBe(
      'notion-testspace.zip: this is a Notion export in HTML, which Backstory does not read. In Notion, export again choosing "Markdown & CSV" and import that zip.',
    );
  });
});

describe('an Obsidian vault picked as a folder (kepano/kepano-obsidian)', () => {
  it('reads the 7 notes that have text as one thread each, dated by front matter or the daily note\'s name', async () => {
    const items = await read(folder('obsidian/kepano-obsidian'));
    const byThread = threads(items);
    // 8 files; "References/Out of Control.md" is front matter only.
    expect([...byThread.keys()].sort()).toEqual([
      'note:kepano-obsidian/Clippings/In good hands.md',
      'note:kepano-obsidian/Daily/2023-09-12.md',
      'note:kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md',
      'note:kepano-obsidian/Notes/Evergreen notes turn ideas into objects that you can manipulate.md',
      'note:kepano-obsidian/Readme.md',
      'note:kepano-obsidian/References/Brown butter nectarine tart.md',
      'note:kepano-obsidian/References/The Machine Stops.md',
    ]);
    const dated = items.filter((i) => !i.thread!.id.endsWith('Readme.md'));
    expect(dated.every((i) => i.createdAt! >= Date.parse('2023-09-12') && i.createdAt! <= Date.parse('2023-09-14') && !i.undated)).toBe(true);
    expect(items.filter((i) => i.thread!.id.endsWith('Readme.md')).every((i) => i.undated === true)).toBe(true);
    expect(byThread.get('note:kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md')!.map((i) => i.text)).toEqual([
      '- Discussed the book Out of Control on the topic of Emergence',
    ]);
    expect(items.filter((i) => /\[\[|!\[/.test(i.text))).toEqual([]);
  });
});

describe('an Obsidian vault with code, callouts and HTML (obsidian-tasks-group/obsidian-tasks docs)', () => {
  it('keeps every code block byte for byte in one part, turns HTML outside code into text, one thread per note', async () => {
    const files = folder('obsidian/obsidian-tasks-docs');
    const items = await read(files);
    const byThread = threads(items);
    expect(byThread.size).toBe(8);
    let blocks = 0;
    for (const f of files) {
      const parts = byThread.get(`note:${f.path}`)!;
      expect(parts, f.path).toBeDefined();
      for (const block of fences(new TextDecoder().decode(bytes(join('obsidian', f.path!))))) {
        blocks++;
        expect(parts.some((p) => p.text.includes(block)), `${f.path}: ${block.slice(0, 60)}`).toBe(true);
      }
      expect(parts.flatMap((p) => tagsOutsideCode(p.text)), f.path).toEqual([]);
    }
    // grep -c '^```' over the eight notes, halved: 30 blocks.
    expect(blocks).toBe(30);
    expect(items.every((i) => i.undated === true)).toBe(true);
    expect(items.filter((i) => /\*\*|__|~~/.test(i.title!))).toEqual([]);
  });
});
