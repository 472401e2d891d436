/**
 * Mail as people's real files have it: threads chained by In-Reply-To in any order, headers in legacy charsets,
 * dates that lie, pipermail senders, and a plain body that is really HTML. Each case is one way real mail went wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportFileError, type ImportFile } from '../../lib/import/types';
import type { MemoryInput } from '../../lib/memory/types';
import { bytesFile, readAll } from './import-fixtures';

const REAL = join(__dirname, '../fixtures/real/mail');
const realFile = (name: string): ImportFile => ({ name, blob: new Blob([readFileSync(join(REAL, name))]) });
const hex = (h: string) => Uint8Array.from(h.match(/../g)!, (b) => parseInt(b, 16));
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const join8 = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const threadsOf = (items: MemoryInput[]) => new Set(items.map((i) => i.thread?.id));

/** A list-archive style message: In-Reply-To only, as pipermail and many clients keep it. */
function listMail(id: string, inReplyTo: string | undefined, day: number, text: string): string {
  return [
    `From dana at example.org  Mon Mar  ${day} 10:00:00 2026`,
    'From: dana at example.org (Dana Ortiz)',
    `Date: Mon, ${day} Mar 2026 10:00:00 +0000`,
    `Subject: Re: Kiln schedule`,
    ...(inReplyTo ? [`In-Reply-To: <${inReplyTo}>`] : []),
    `Message-ID: <${id}>`,
    '',
    text,
    '',
    '',
  ].join('\n');
}

describe('threads: one per mail thread, never two', () => {
  it('keeps a patch series whose References name only the previous patch in one thread (patchwork, real)', async () => {
    const { items } = await readAll([realFile('patchwork-base-deep-threaded.mbox')]);
    expect(items.map((i) => i.title)).toEqual(['[PATCH 0/2] A sample series', '[PATCH 1/2] test: Add some lorem ipsum', '[PATCH 2/2] test: Convert to Markdown']);
    expect(threadsOf(items)).toEqual(new Set(['mail-thread:1473632524-8585-1-git-send-email-stephenfinucane@gmail.com']));
  });

  it('joins a chain of In-Reply-To replies whatever order the file has them in', async () => {
    const a = listMail('a@example.org', undefined, 2, 'The kiln is booked for Friday.');
    const b = listMail('b@example.org', 'a@example.org', 3, 'Can we move it to Saturday?');
    const c = listMail('c@example.org', 'b@example.org', 4, 'Saturday works, moved.');
    for (const order of [[a, b, c], [c, b, a], [c, a, b], [b, c, a]]) {
      const { items } = await readAll([bytesFile('list.mbox', order.join(''))]);
      expect(items).toHaveLength(3);
      expect(threadsOf(items)).toEqual(new Set(['mail-thread:a@example.org']));
      const bySeq = [...items].sort((x, y) => x.thread!.seq - y.thread!.seq).map((i) => i.id);
      expect(bySeq).toEqual(['mail:a@example.org', 'mail:b@example.org', 'mail:c@example.org']);
    }
  });

  it('joins replies across the .eml files of a folder, the replies picked first', async () => {
    const eml = (...args: Parameters<typeof listMail>) => listMail(...args).split('\n').slice(1).join('\n');
    const { items } = await readAll([
      { name: 'a-second-reply.eml', path: 'mail/a-second-reply.eml', blob: new Blob([eml('re2@example.org', 're@example.org', 4, 'Booked for the 18th.')]) },
      { name: 'b-reply.eml', path: 'mail/b-reply.eml', blob: new Blob([eml('re@example.org', 'root@example.org', 3, 'Book it.')]) },
      { name: 'c-original.eml', path: 'mail/c-original.eml', blob: new Blob([eml('root@example.org', undefined, 2, 'Quote for the kiln repair: 2,300 euros.')]) },
    ]);
    expect(items).toHaveLength(3);
    expect(threadsOf(items)).toEqual(new Set(['mail-thread:root@example.org']));
  });

  it('gives a mail without a Message-ID a thread, and a reply without one joins what it answers', async () => {
    const lone = await readAll([realFile('php-mime-failure-gb2312.eml')]);
    expect(lone.items).toHaveLength(1);
    expect(lone.items[0].thread?.id).toMatch(/^mail-thread:[0-9a-f]{16}$/);
    const a = listMail('a@example.org', undefined, 2, 'The kiln is booked for Friday.');
    const b = listMail('unused', 'a@example.org', 3, 'Friday is fine.').replace(/^Message-ID: .*\n/m, '');
    const { items } = await readAll([bytesFile('list.mbox', b + a)]);
    expect(items).toHaveLength(2);
    expect(threadsOf(items)).toEqual(new Set(['mail-thread:a@example.org']));
  });
});

describe('headers in legacy charsets', () => {
  it('reads raw 8-bit GB2312 Subject and From in the charset the message declares', async () => {
    const mail = join8(
      ascii('From: '),
      hex('d5c5ceb0'),
      ascii(' <wei@example.cn>\r\nTo: team@example.cn\r\nSubject: '),
      hex('bbe1d2e9b8c4b5bdd6dccee5cfc2cee7c8fdb5e3'),
      ascii('\r\nDate: Tue, 2 Mar 2010 09:00:00 +0800\r\nMessage-ID: <gb@example.cn>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=gb2312\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'),
      hex('c7ebb4f3bcd2d7bccab1b2cebcd3a1a3'),
      ascii('\r\n'),
    );
    const { items } = await readAll([bytesFile('meeting.eml', mail)]);
    expect(items[0].title).toBe('会议改到周五下午三点');
    expect(items[0].people).toEqual(['张伟 <wei@example.cn>', 'team@example.cn']);
    expect(items[0].text).toBe('请大家准时参加。');
    expect(JSON.stringify(items[0])).not.toMatch(/\ufffd/);
  });

  it('reads a raw ISO-2022-JP Subject', async () => {
    const mail = join8(
      ascii('From: taro@example.jp\nSubject: '),
      ascii('\x1b$B2q5D$N$*CN$i$;\x1b(B'),
      ascii('\nDate: Wed, 28 May 2014 17:18:19 +0900\nMessage-ID: <jp@example.jp>\nContent-Type: text/plain; charset=iso-2022-jp\n\nOK\n'),
    );
    const { items } = await readAll([bytesFile('jp.eml', mail)]);
    expect(items[0].title).toBe('会議のお知らせ');
  });

  it('reads a mail with no MIME headers and Latin-1 bytes as windows-1252, never U+FFFD', async () => {
    const mail = join8(
      ascii('From: jose@example.es\nSubject: Horno\nDate: Mon, 7 Nov 2016 19:44:27 +0100\nMessage-ID: <horno@example.es>\n\nEl horno est'),
      hex('e1'),
      ascii(' listo. Jos'),
      hex('e9'),
      ascii('\n'),
    );
    const { items } = await readAll([bytesFile('horno.eml', mail)]);
    expect(items[0].text).toBe('El horno está listo. José');
  });

  it('reads a pipermail sender whose name is an encoded word labelled UTF-8 that holds Latin-1 (perceval, real)', async () => {
    const { items } = await readAll([realFile('perceval-mbox-iso8859-encoding.mbox')]);
    expect(items[0].people).toEqual(['Lucía Charlie <lucíacharlie@wellsfargo.com>']);
  });
});

describe('dates that lie', () => {
  it('an unparseable Date ("… H0500") takes the Received date, not the import time (mail gem, real)', async () => {
    const { items } = await readAll([realFile('mail-gem-trademark-character-in-subject.eml')]);
    expect(items[0].undated).toBeUndefined();
    expect(items[0].createdAt).toBe(Date.parse('Tue, 12 Oct 2010 13:20:24 -0700'));
  });

  it('a Date in the year 3609 is refused for the Received date (mail gem, real)', async () => {
    const { items } = await readAll([realFile('mail-gem-raw-email-bad-time.eml')]);
    expect(new Date(items[0].createdAt!).getUTCFullYear()).toBe(2008);
    expect(items[0].createdAt).toBe(Date.parse('Mon, 30 Jun 2008 02:34:00 -0700'));
  });

  it('an mbox message with a broken Date takes its "From " line date', async () => {
    const mbox = listMail('a@example.org', undefined, 2, 'Kiln booked.').replace(/^Date: .*$/m, 'Date: Mon, 2 Mar 2026 10:00:00 H0500');
    const { items } = await readAll([bytesFile('list.mbox', mbox)]);
    expect(items[0].createdAt).toBe(Date.UTC(2026, 2, 2, 10, 0, 0));
  });

  it('a mail with no date anywhere says it is undated instead of taking the import time (real)', async () => {
    const { items } = await readAll([realFile('mail-gem-japanese-iso-2022.eml')]);
    expect(items[0]).toMatchObject({ undated: true, text: 'すみません。' });
    expect(items[0].createdAt).toBeUndefined();
  });
});

describe('pipermail archives', () => {
  it('reads "user at host (Name)" as the named person', async () => {
    const { items } = await readAll([bytesFile('2026-March.txt.mbox', listMail('a@example.org', undefined, 2, 'Kiln booked.'))]);
    expect(items[0].people).toEqual(['Dana Ortiz <dana@example.org>']);
  });

  it('keeps names, threads and words of a real archive, without the scrubbed-attachment notes (perceval, real)', async () => {
    const { items } = await readAll([realFile('perceval-pipermail-2016-april.mbox')]);
    expect(items.map((i) => i.people)).toEqual([
      ['Jesus M. Gonzalez-Barahona <jgb@example.com>'],
      ['Andy Grunwald <andy@example.com>'],
      ['Jesus M. Gonzalez-Barahona <jgb@example.com>'],
    ]);
    expect(threadsOf(items)).toEqual(new Set(['mail-thread:1460624816.5581.114.camel@example.com']));
    expect(items[1].text).toBe(
      'Thank you Jesus.\nFor me it is fine to use this mailinglist.\n\nOne question: The old tools (CVSAnaly, MLStats, ...) are deprecated /\nobsolete and get no further development from your side anymore?\n\nAndy',
    );
  });
});

describe('one body, never markup', () => {
  it('takes one of two text/plain alternatives when the second is really HTML', async () => {
    const mail = [
      'From: Lea Martin <lea@example.org>',
      'To: dana@example.com',
      'Subject: Glaze order',
      'Date: Tue, 3 Mar 2026 10:00:00 +0000',
      'Message-ID: <glaze@example.org>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Order 4 kg of celadon glaze.',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      '<html><body><div style="color:red">Order 4 kg of <b>celadon</b> glaze.<br></div></body></html>',
      '--b1--',
      '',
    ].join('\r\n');
    const { items } = await readAll([bytesFile('glaze.eml', mail)]);
    expect(items.map((i) => i.text)).toEqual(['Order 4 kg of celadon glaze.']);
  });

  it('takes one of two text/plain alternatives when the second is the same words as an HTML fragment', async () => {
    const mail = [
      'From: Lea Martin <lea@example.org>',
      'Subject: Glaze order',
      'Message-ID: <glaze2@example.org>',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'Order 4 kg of celadon glaze.',
      'Thanks, Lea',
      '--b1',
      'Content-Type: text/plain',
      '',
      '<div dir="ltr">Order 4 kg of <b>celadon</b> glaze.<br>Thanks, Lea</div>',
      '--b1--',
      '',
    ].join('\r\n');
    const { items } = await readAll([bytesFile('glaze.eml', mail)]);
    expect(items.map((i) => i.text)).toEqual(['Order 4 kg of celadon glaze.\nThanks, Lea']);
  });

  it('keeps HTML that a plain mail is about', async () => {
    const mail = 'From: dev@example.org\nSubject: Markup\nMessage-ID: <markup@example.org>\n\nThe banner breaks with this:\n<div class="banner">Sale</div>\nAny idea why?\n';
    const { items } = await readAll([bytesFile('markup.eml', mail)]);
    expect(items[0].text).toBe('The banner breaks with this:\n<div class="banner">Sale</div>\nAny idea why?');
  });
});

describe('a mail that cannot be read', () => {
  const nested = (depth: number) => {
    let mail = 'Subject: Deep\nMessage-ID: <deep@example.org>\nContent-Type: multipart/mixed; boundary="b0"\n\n';
    for (let i = 0; i < depth; i++) mail += `--b${i}\nContent-Type: multipart/mixed; boundary="b${i + 1}"\n\n`;
    return `${mail}--b${depth}\nContent-Type: text/plain\n\nhi\n`;
  };

  it('is refused in words, naming the file and the message, not in the parser\'s', async () => {
    const eml = await readAll([bytesFile('deep.eml', nested(300))]).catch((e) => e);
    expect(eml).toBeInstanceOf(ImportFileError);
    expect(eml.message).toBe('deep.eml: the file is not a mail message that can be read: its parts are nested more than 256 levels deep.');
    const mbox = await readAll([bytesFile('list.mbox', listMail('a@example.org', undefined, 2, 'Kiln booked.') + `From x  Mon Mar  3 10:00:00 2026\n${nested(300)}\n`)]).catch((e) => e);
    expect(mbox.message).toBe('list.mbox: message 2 could not be read: its parts are nested more than 256 levels deep.');
  });

  it('a header block too large to be mail is refused the same way', async () => {
    const eml = await readAll([bytesFile('big.eml', `Subject: Big\nX-Junk: ${'a'.repeat(3 * 1024 * 1024)}\n\nhi\n`)]).catch((e) => e);
    expect(eml.message).toBe('big.eml: the file is not a mail message that can be read: its header is larger than 2 MB, more than any real mail has.');
  });
});
