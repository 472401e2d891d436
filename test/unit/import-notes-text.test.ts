import { describe, expect, it } from 'vitest';
import { markdownToText, paragraphs } from '../../lib/import/note-text';
import { noteItems } from '../../lib/import/notes';

const note = (md: string, path = 'n.md') => noteItems(md, path, { format: path.match(/[0-9a-f]{32}\.md$/) ? 'notion' : 'markdown' });
const allText = (md: string, path?: string) => note(md, path).map((i) => i.text).join('\n\n');

describe('code in notes comes through byte for byte', () => {
  it('a TOML [[redirects]] header and embeds inside a code fence are not rewritten as links', () => {
    const fence = '```toml\n[[redirects]]\n  from = "/old"\n  to = "/new"\n\n![[diagram.png]]   %% not a comment %%\n<!-- kept -->\n<br>\n```';
    expect(markdownToText(`Deploy settings:\n\n${fence}\n\nSee [[Hosting|the hosting note]].`)).toBe(`Deploy settings:\n\n${fence}\n\nSee the hosting note.`);
  });

  it('inline code and ~~~ fences keep links, embeds and HTML as written', () => {
    const md = 'Write `[[Target|words]]` or ``![[image.png]]`` for an embed, and `<br>` for a break.\n\n~~~\n[a](b.md) **x**\n```\n[[Inside]]\n~~~';
    expect(markdownToText(md)).toBe(md);
  });

  it('a fence inside a callout or list is code too', () => {
    const md = '> [!example]\n> ```md\n> ![[Engelbart.jpg]]\n> ```\n\n- step\n    ```\n    [[x]]\n    ```';
    expect(markdownToText(md)).toBe(md);
  });

  it('a note whose code block has blank lines keeps the block whole in one part', () => {
    const code = '```python\n' + Array.from({ length: 60 }, (_, i) => `def f${i}():\n    return ${i}\n`).join('\n') + '```';
    const prose = Array.from({ length: 6 }, (_, i) => `Paragraph ${i}. ` + 'Words about the build. '.repeat(20)).join('\n\n');
    const text = note(`# Build\n\n${prose}\n\n${code}\n\n${prose}\n`).map((i) => i.text);
    expect(text.length).toBeGreaterThan(1);
    expect(text.filter((t) => t.includes(code))).toHaveLength(1);
    expect(paragraphs(`${prose}\n\n${code}`).some((p) => p.includes(code))).toBe(true);
  });

  it('a heading inside a ~~~ fence that holds ``` does not split the note', () => {
    const items = note('Intro.\n\n~~~\n```\n# not a heading\n~~~\n\n# Real heading\n\nBody.\n');
    expect(items.map((i) => i.title)).toEqual(['n', 'n › Real heading']);
  });
});

describe('HTML inside Markdown becomes text', () => {
  it('<br>, <span …>, <div style…> and entities outside code turn into text', () => {
    const text = allText('<div style="color: red; padding: 4px">Call <span class="name">Dana</span> first.<br>Then the venue.</div>\n\nPrices&nbsp;in &euro; &amp; <b>net</b>.\n\n<details><summary>More</summary>Hidden text</details>\n');
    expect(text).not.toMatch(/<|>|&nbsp;|&amp;/);
    expect(text).toContain('Call Dana first.\nThen the venue.');
    expect(text).toContain('Prices in € & net.');
    expect(text).toContain('More');
    expect(text).toContain('Hidden text');
  });

  it('Notion <aside> callouts become their words; autolinks and comparisons stay', () => {
    const text = allText('<aside>\n💡 Book the room early.\n</aside>\n\nSee <https://example.com/a> when x < y and y > z.\n');
    expect(text).toBe('💡 Book the room early.\n\nSee <https://example.com/a> when x < y and y > z.');
  });
});

describe('titles are plain words', () => {
  it('Notion section titles lose their **bold**, _italics_, ~~strikes~~ and `code` marks', () => {
    const items = note('# Plan\n\n## **Budget** and _plans_\n\nQ3 is frozen.\n\n## ~~Old~~ `new` ==venue==\n\nMarvila.\n', 'Plan 0123456789abcdef0123456789abcdef.md');
    expect(items.map((i) => i.title)).toEqual(['Plan › Budget and plans', 'Plan › Old new venue']);
  });

  it('a title of snake_case words or 2*3*4 keeps its characters', () => {
    const items = note('# Notes\n\n## run_daily_job and 2*3*4\n\nText.\n');
    expect(items[0].title).toBe('Notes › run_daily_job and 2*3*4');
  });

  it('a note titled by its first heading in bold is titled by the words', () => {
    expect(note('# **Kiln** log\n\nCone 6.\n')[0].title).toBe('Kiln log');
  });
});

describe('layout without words', () => {
  it('a line that is only a thematic break (---, ***) is left out of the text, not out of code', () => {
    expect(markdownToText('Mon\n\n---\n\n- [x] Call Mom\n\n* * *\n\n```\n---\n```')).toBe('Mon\n\n- [x] Call Mom\n\n```\n---\n```');
  });
});
