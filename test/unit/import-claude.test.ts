import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bytesFile, byId, fixtureBytes, fixtureFile, readAll } from './import-fixtures';

const C1 = 'claude:c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8';
const C2 = 'claude:e9f8a7b6-c5d4-4e3f-a2b1-c0d9e8f7a6b5';
const exportZip = () =>
  zipSync({
    'conversations.json': fixtureBytes('claude/conversations.json'),
    'users.json': fixtureBytes('claude/users.json'),
    'projects.json': fixtureBytes('claude/projects.json'),
  });

describe('Claude data export', () => {
  it('keeps the text blocks of each message and leaves out thinking, tool use and tool results', async () => {
    const { items } = await readAll([fixtureFile('claude/conversations.json')]);
    const answer = byId(items).get(`${C1}:m-2`)!;
    expect(answer.text).toBe(
      'A five-part outline works well: the need, the project, the team, the budget (18,000 euros, broken down by quarter), and how you will measure success.\n\nSend the draft to the council\'s officer two weeks before April 30.',
    );
    expect(items.map((i) => i.text).join('\n')).not.toMatch(/funders usually ask|web_search|Search results about/);
  });

  it('reads messages that have only "text" (older exports) and gives one thread per conversation, in order', async () => {
    const { items } = await readAll([fixtureFile('claude/conversations.json')]);
    expect(items.map((i) => [i.id, i.thread!.id, i.thread!.seq])).toEqual([
      [`${C1}:m-1`, C1, 0],
      [`${C1}:m-2`, C1, 1],
      [`${C1}:m-3`, C1, 2],
      [`${C1}:m-4`, C1, 3],
      [`${C2}:n-1`, C2, 0],
      [`${C2}:n-2`, C2, 1],
    ]);
    const m4 = byId(items).get(`${C1}:m-4`)!;
    expect(m4).toMatchObject({
      text: 'Whoever owns the studio\'s accounts: Rui, from what you said earlier.',
      title: 'Grant proposal outline · Claude',
      kind: 'evidence',
      createdAt: Date.parse('2026-02-10T09:40:12Z'),
      source: { format: 'claude', title: 'Grant proposal outline', url: 'https://claude.ai/chat/c1a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8' },
    });
    // A conversation Claude never named still has a title.
    expect(byId(items).get(`${C2}:n-1`)!.title).toBe('Claude conversation · You');
  });

  it('reads the zip (with users.json and projects.json beside it) the same as the bare conversations.json', async () => {
    const bare = await readAll([fixtureFile('claude/conversations.json')]);
    const zipped = await readAll([bytesFile('data-2026-03-14.zip', exportZip())]);
    expect(zipped.items).toEqual(bare.items);
    expect(zipped.batches.every((b) => b.format === 'claude')).toBe(true);
  });

  it('follows the current branch when the export names its leaf', async () => {
    const convs = JSON.parse(new TextDecoder().decode(fixtureBytes('claude/conversations.json')));
    const c = convs[1];
    // The user retried the answer: n-2 and n-2b both answer n-1; the retry n-2b is the one on screen.
    c.chat_messages[1].parent_message_uuid = 'n-1';
    c.chat_messages.push({ ...c.chat_messages[1], uuid: 'n-2b', text: 'Plain yoghurt thinned with milk.', content: [{ type: 'text', text: 'Plain yoghurt thinned with milk.' }] });
    c.chat_messages[0].parent_message_uuid = '00000000-0000-4000-8000-000000000000';
    c.current_leaf_message_uuid = 'n-2b';
    const { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify(convs)))]);
    expect(items.filter((i) => i.thread!.id === C2).map((i) => i.id)).toEqual([`${C2}:n-1`, `${C2}:n-2b`]);
  });

  it('keeps the text of a pasted or uploaded file after the message it came with', async () => {
    const convs = JSON.parse(new TextDecoder().decode(fixtureBytes('claude/conversations.json')));
    convs[0].chat_messages[2].attachments = [{ file_name: 'budget.csv', file_size: 120, file_type: 'text/csv', extracted_content: 'line,amount\nkiln,2300\nglaze,450' }, { file_name: 'empty.txt', extracted_content: '' }];
    const { items } = await readAll([bytesFile('conversations.json', strToU8(JSON.stringify(convs)))]);
    const c1 = items.filter((i) => i.thread!.id === C1);
    expect(c1.map((i) => i.id)).toEqual([`${C1}:m-1`, `${C1}:m-2`, `${C1}:m-3`, `${C1}:m-3:attachment-0`, `${C1}:m-4`]);
    expect(c1[3]).toMatchObject({ text: 'line,amount\nkiln,2300\nglaze,450', title: 'budget.csv · attached in Grant proposal outline', thread: { seq: 3 } });
    expect(c1[4].thread!.seq).toBe(4);
  });

  it('gives the same ids when read twice', async () => {
    const a = await readAll([bytesFile('x.zip', exportZip())]);
    const b = await readAll([fixtureFile('claude/conversations.json')]);
    expect(b.items.map((i) => i.id)).toEqual(a.items.map((i) => i.id));
  });
});

describe("Claude's markers in older exports", () => {
  it('leaves out <antThinking> reasoning and keeps an artifact under its title, without the tags', async () => {
    const text =
      "I'll build it.\n\n<antThinking>A new artifact is warranted here.</antThinking>\n\n<antArtifact identifier=\"plan\" type=\"text/markdown\" title=\"Kiln plan\">\n# Kiln\nFire on Tuesday.\n</antArtifact>\n\nTell me if the day works.";
    const conv = { uuid: 'c-9', name: 'Kiln', created_at: '2024-10-29T15:59:18Z', chat_messages: [{ uuid: 'm-1', sender: 'assistant', created_at: '2024-10-29T15:59:38Z', text: '', content: [{ type: 'text', text }] }] };
    const { items } = await readAll([bytesFile('conversations.json', JSON.stringify([conv]))]);
    expect(items.map((i) => i.text)).toEqual(["I'll build it.\n\nKiln plan:\n# Kiln\nFire on Tuesday.\n\nTell me if the day works."]);
  });
});
