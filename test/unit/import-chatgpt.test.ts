import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { ImportFileError } from '../../lib/import/types';
import { bytesFile, byId, fixtureBytes, fixtureFile, readAll } from './import-fixtures';

const A = 'chatgpt:6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const B = 'chatgpt:0b2c4d6e-8f01-4a23-b456-789abcdef012';
const conversations = () => JSON.parse(new TextDecoder().decode(fixtureBytes('chatgpt/conversations.json')));
const exportZip = (convs: unknown = conversations()) =>
  zipSync({ 'user.json': fixtureBytes('chatgpt/user.json'), 'conversations.json': strToU8(JSON.stringify(convs)), 'chat.html': strToU8('<html></html>') });

describe('ChatGPT data export', () => {
  it('keeps the conversation as shown: the regenerated answer and the edited question, not the versions they replaced', async () => {
    const { items } = await readAll([fixtureFile('chatgpt/conversations.json')]);
    const ids = items.map((i) => i.id);
    expect(ids).toContain(`${A}:a-x2`);
    expect(ids).not.toContain(`${A}:a-x1`); // replaced by the regeneration
    expect(ids).toContain(`${B}:b-u1`);
    expect(ids).not.toContain(`${B}:b-u1old`); // the question before it was edited
    expect(ids).not.toContain(`${B}:b-x1old`);
  });

  it('leaves out system, tool, hidden, reasoning and memory messages, and tool calls; keeps the text of a message with an image', async () => {
    const { items } = await readAll([fixtureFile('chatgpt/conversations.json')]);
    expect(items.map((i) => i.id)).toEqual([`${A}:a-u1`, `${A}:a-x2`, `${A}:a-u2`, `${A}:a-x3`, `${B}:b-u1`, `${B}:b-x1`]);
    const multimodal = byId(items).get(`${A}:a-u2`)!;
    expect(multimodal.text).toBe('Here is the floor plan Dana sent. Does the main hall fit a U-shaped table for 40?');
    const all = items.map((i) => i.text).join('\n');
    expect(all).not.toMatch(/print\(|308\n|search\(|internal note|User works on|Checking table sizes|design studio in Porto/);
  });

  it('gives each conversation one thread in order, its title, times from create_time and a link back', async () => {
    const { items, batches } = await readAll([fixtureFile('chatgpt/conversations.json')]);
    const a = items.filter((i) => i.thread?.id === A);
    expect(a.map((i) => i.thread!.seq)).toEqual([0, 1, 2, 3]);
    expect(a.map((i) => i.title)).toEqual(['Lisbon offsite venue · You', 'Lisbon offsite venue · ChatGPT', 'Lisbon offsite venue · You', 'Lisbon offsite venue · ChatGPT']);
    expect(a[0].createdAt).toBe(Date.parse('2026-03-03T10:00:00Z'));
    expect(a[0].source).toEqual({ format: 'chatgpt', title: 'Lisbon offsite venue', url: 'https://chatgpt.com/c/6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' });
    expect(a.every((i) => i.kind === 'evidence' && i.people!.length === 0)).toBe(true);
    expect(items.filter((i) => i.thread?.id === B).map((i) => i.thread!.seq)).toEqual([0, 1]);
    expect(batches.map((b) => [b.file, b.format])).toEqual([['conversations.json', 'chatgpt']]);
  });

  it('offers the custom instructions once (they sit in every conversation) and never saves them as items', async () => {
    const { items, offers } = await readAll([fixtureFile('chatgpt/conversations.json')]);
    expect(offers).toEqual([
      { text: 'I run operations for a 40-person design studio in Porto.', title: 'About me (ChatGPT custom instructions)', from: 'ChatGPT custom instructions' },
      { text: 'Answer in short paragraphs. Put numbers in a table when there are more than three.', title: 'How to respond (ChatGPT custom instructions)', from: 'ChatGPT custom instructions' },
    ]);
    expect(items.some((i) => /Porto|short paragraphs/.test(i.text))).toBe(false);
  });

  it('reads the zip as mailed the same as its conversations.json, whatever the files are called', async () => {
    const bare = await readAll([fixtureFile('chatgpt/conversations.json')]);
    const zipped = await readAll([bytesFile('c0ffee-2026-03-14-10-00-00.zip', exportZip())]);
    const renamed = await readAll([bytesFile('download', fixtureBytes('chatgpt/conversations.json'))]);
    expect(zipped.items).toEqual(bare.items);
    expect(renamed.items).toEqual(bare.items);
    expect(zipped.batches[0]).toMatchObject({ file: 'c0ffee-2026-03-14-10-00-00.zip', format: 'chatgpt' });
  });

  it('keys items to the same ids when the same export, or a later one that contains it, is read again', async () => {
    const first = await readAll([bytesFile('export.zip', exportZip())]);
    const again = await readAll([bytesFile('export.zip', exportZip())]);
    expect(again.items).toEqual(first.items);

    // A month later: the Lisbon conversation went on, and there is a new conversation.
    const later = conversations();
    const a = later[0];
    a.mapping['a-u3'] = { id: 'a-u3', parent: 'a-x3', children: [], message: { id: 'a-u3', author: { role: 'user' }, create_time: 1772600000, content: { content_type: 'text', parts: ['Book it for the 11th.'] }, weight: 1, metadata: {}, recipient: 'all' } };
    a.mapping['a-x3'].children.push('a-u3');
    a.current_node = 'a-u3';
    later.unshift({ ...later[1], id: 'new-conv', conversation_id: 'new-conv', title: 'Something new' });
    const next = await readAll([bytesFile('export-april.zip', exportZip(later))]);
    const nextById = byId(next.items);
    for (const item of first.items) expect(nextById.get(item.id!)).toEqual(item);
    expect(nextById.get(`${A}:a-u3`)).toMatchObject({ text: 'Book it for the 11th.', thread: { id: A, seq: 4 } });
    expect(next.items.length).toBe(first.items.length + 1 + 2);
  });

  it('drops the citation markers ChatGPT puts in answers that searched the web', async () => {
    const convs = conversations();
    convs[1].mapping['b-x1'].message.content.parts = ['Use full jitter \ue200cite\ue202turn0search1\ue201 and honour Retry-After.【3†source】'];
    const { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify(convs)))]);
    expect(byId(items).get(`${B}:b-x1`)!.text).toBe('Use full jitter  and honour Retry-After.');
  });

  it('splits a very long message (a pasted document) into parts of its thread, so no item is too big to store', async () => {
    const convs = conversations();
    const doc = Array.from({ length: 300 }, (_, i) => `Section ${i}. ${'The lease runs for two years and the deposit is three months of rent. '.repeat(4)}`).join('\n\n');
    convs[1].mapping['b-u1'].message.content.parts = [doc];
    const { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify(convs)))]);
    const b = items.filter((i) => i.thread!.id === B);
    expect(b.length).toBeGreaterThan(3);
    expect(b[0].id).toBe(`${B}:b-u1`);
    expect(b[1].id).toBe(`${B}:b-u1#1`);
    expect(b.map((i) => i.thread!.seq)).toEqual(b.map((_, i) => i));
    expect(b.at(-1)!.id).toBe(`${B}:b-x1`);
    expect(b.slice(0, -1).map((i) => i.text).join('\n\n')).toBe(doc.trim());
    expect(Math.max(...b.map((i) => i.text.length))).toBeLessThan(45_000);
  });

  it('reads one conversation saved on its own', async () => {
    const { items } = await readAll([bytesFile('conversation.json', strToU8(JSON.stringify(conversations()[1])))]);
    expect(items.map((i) => i.id)).toEqual([`${B}:b-u1`, `${B}:b-x1`]);
  });

  describe('broken files name the file and the problem', () => {
    const raw = fixtureBytes('chatgpt/conversations.json');

    it('a conversations.json cut off in the second conversation', async () => {
      const cut = raw.subarray(0, Math.floor(raw.length * 0.8));
      const err = await readAll([bytesFile('conversations.json', cut)]).catch((e) => e);
      expect(err).toBeInstanceOf(ImportFileError);
      expect(err.file).toBe('conversations.json');
      expect(err.message).toMatch(/^conversations\.json: .*ends in the middle of conversation 2/);
    });

    it('a zip cut off in the middle of conversations.json', async () => {
      const zip = exportZip();
      const err = await readAll([bytesFile('export.zip', zip.subarray(0, Math.floor(zip.length / 2)))]).catch((e) => e);
      expect(err).toBeInstanceOf(ImportFileError);
      expect(err.message).toMatch(/^export\.zip: .*(ends in the middle of|cut off).*conversations\.json/);
    });

    it('a zip without conversations.json', async () => {
      const zip = zipSync({ 'user.json': fixtureBytes('chatgpt/user.json'), 'chat.html': strToU8('<html></html>') });
      const err = await readAll([bytesFile('export.zip', zip)]).catch((e) => e);
      expect(err).toBeInstanceOf(ImportFileError);
      expect(err.message).toMatch(/^export\.zip: the zip holds nothing Backstory reads: no conversations\.json/);
    });

    it('binary junk', async () => {
      const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
      const err = await readAll([bytesFile('conversations.json', junk)]).catch((e) => e);
      expect(err).toBeInstanceOf(ImportFileError);
      expect(err.message).toMatch(/^conversations\.json: not a file Backstory can read/);
    });

    it('JSON that is not a chat export', async () => {
      const err = await readAll([bytesFile('conversations.json', '[{"hello": 1}, {"world": 2}]')]).catch((e) => e);
      expect(err).toBeInstanceOf(ImportFileError);
      expect(err.message).toMatch(/holds no ChatGPT or Claude conversations/);
    });
  });
});
