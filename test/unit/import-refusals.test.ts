import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ImportFileError } from '../../lib/import/types';
import { bytesFile, fixtureBytes, fixtureFolder, readAll } from './import-fixtures';

// Words of the JSON parser, fflate or the code: never shown to the person who picked the file.
const PARSER_WORDS = /Unexpected|state [A-Z_]|chunk|position|token|"mapping"|"chat_messages"|undefined|\bnull\b/;

const refusal = async (files: Parameters<typeof readAll>[0]) => {
  const err = await readAll(files).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ImportFileError);
  return err as ImportFileError;
};

describe('refusals name the file and the problem in the words of the person who picked it', () => {
  it('a ChatGPT export damaged after its first conversation', async () => {
    const text = new TextDecoder().decode(fixtureBytes('chatgpt/conversations.json'));
    const convs = JSON.parse(text);
    const broken = `[${JSON.stringify(convs[0])},\nExport failed: please try again]`;
    const err = await refusal([bytesFile('conversations.json', broken)]);
    expect(err.message).toBe('conversations.json: the file is damaged after the first conversation (it is no longer valid JSON there). Export your data from ChatGPT again.');
    expect(err.message).not.toMatch(PARSER_WORDS);
  });

  it('a Claude export damaged inside its first conversation, in the zip as mailed', async () => {
    const raw = new TextDecoder().decode(fixtureBytes('claude/conversations.json'));
    const zip = zipSync({ 'conversations.json': strToU8(raw.replace('"name":', '"name" @@:')) });
    const err = await refusal([bytesFile('data-2026.zip', zip)]);
    expect(err.message).toMatch(/^data-2026\.zip: conversations\.json is damaged in the first conversation/);
    expect(err.message).toMatch(/Export your data from Claude again/);
    expect(err.message).not.toMatch(PARSER_WORDS);
  });

  it('JSON that holds no conversations', async () => {
    const err = await refusal([bytesFile('conversations.json', '[{"hello": 1}, {"world": 2}]')]);
    expect(err.message).toBe('conversations.json: the file holds no ChatGPT or Claude conversations: it is JSON, but not a chat export.');
  });

  it("Notion's HTML export is named as such, with what to export instead", async () => {
    const page = '<!DOCTYPE html><html><head><title>Plan</title></head><body><article id="0123"><h1>Plan</h1><p>Q3</p></article></body></html>';
    const inner = zipSync({ 'Export-8e3a/Plan 0123456789abcdef0123456789abcdef.html': strToU8(page), 'Export-8e3a/index.html': strToU8('<html></html>') });
    const err = await refusal([bytesFile('67e39a7b_Export.zip', zipSync({ 'Export-8e3a-Part-1.zip': inner }))]);
    expect(err.message).toBe('67e39a7b_Export.zip: this is a Notion export in HTML, which Backstory does not read. In Notion, export again choosing "Markdown & CSV" and import that zip.');
    const single = await refusal([bytesFile('Plan 0123456789abcdef0123456789abcdef.html', page)]);
    expect(single.message).toMatch(/^Plan 0123456789abcdef0123456789abcdef\.html: this is a web page \(HTML\), which Backstory does not read/);
  });
});

describe('a broken file is refused, never kept as a note', () => {
  it('backstory-memory.json holding "not json{" is refused and nothing is read', async () => {
    const err = await refusal([bytesFile('backstory-memory.json', 'not json{')]);
    expect(err.message).toBe('backstory-memory.json: the file is not valid JSON, so it is neither a Backstory memory file nor a ChatGPT or Claude export.');
  });

  it.each([
    ['notes.json', '"just a string"'],
    ['numbers.json', '42'],
    ['empty.json', ''],
  ])('%s (%s) that no reader recognises is refused', async (name, content) => {
    const err = await refusal([bytesFile(name, content)]);
    expect(err.message).toMatch(new RegExp(`^${name.replace('.', '\\.')}: `));
    expect(err.message).toMatch(/not valid JSON|is empty|neither a Backstory memory file/);
  });

  it('in a folder, a .json no reader recognises is passed over, not kept as text', async () => {
    const files = [...fixtureFolder('vault'), { name: 'broken.json', path: 'vault/broken.json', blob: new Blob(['not json{ but words']) }];
    const { items } = await readAll(files);
    expect(items.some((i) => /not json/.test(i.text))).toBe(false);
    expect(new Set(items.map((i) => i.thread!.id)).size).toBe(3);
  });
});

describe('a damaged memory file', () => {
  it('is refused by where it breaks, not in the parser\'s words', async () => {
    const good = { format: 'backstory-memory', version: 1, items: [{ text: 'a' }, { text: 'b' }] };
    const broken = JSON.stringify(good).replace('{"text":"b"}', '{"text":"b" oops}');
    const err = await refusal([bytesFile('backstory-memory.json', broken)]);
    expect(err.message).toBe('backstory-memory.json: The file is damaged after item 0: it is no longer valid JSON there.');
    expect((await refusal([bytesFile('backstory-memory.json', '{ "format": oops')])).message).toBe('backstory-memory.json: The file is not valid JSON.');
  });
});
