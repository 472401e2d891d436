/**
 * Real mail nobody on this project wrote (test/fixtures/real/SOURCES.md), read through readImport and checked
 * against what each file holds, counted by hand: how many mails, how many threads, the dates the file itself gives,
 * words in their own script, people with their names, and no markup, MIME residue or mojibake.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAll } from './import-fixtures';

const REAL = join(__dirname, '../fixtures/real/mail');

interface Expected {
  file: string;
  mails: number;
  threads: number;
  /** The span of dates the file's own headers give (Date, From line, Received), or 'undated' when it has none. */
  dates: [string, string] | 'undated';
  phrases: string[];
  /** People as "Name <address>" that must be there. */
  people?: string[];
  /** Text that must not come through: attachments, signatures. */
  absent?: string[];
  titles?: string[];
  /** When the content says otherwise than the name (an .eml that starts with an mbox "From " line is an mbox of one). */
  format?: 'mbox' | 'eml';
}

const CORPUS: Expected[] = [
  { file: 'mail-gem-japanese-shift-jis.eml', mails: 1, threads: 1, dates: ['2014-05-28T08:00:00Z', '2014-05-28T09:00:00Z'], phrases: ['あいうえお', 'このメールはテスト用のメールです。', '今後ともよろしくお願い申し上げます！'] },
  { file: 'mail-gem-japanese-iso-2022.eml', mails: 1, threads: 1, dates: 'undated', phrases: ['すみません。'], titles: ['まみむめも'], people: ['Mikel Lindsaar <raasdnil@gmail.com>', 'みける <raasdnil@gmail.com>'] },
  { file: 'mail-gem-ks-c-5601-1987.eml', mails: 1, threads: 1, dates: ['2014-05-28T08:00:00Z', '2014-05-28T09:00:00Z'], phrases: ['스티해'] },
  {
    file: 'mail-gem-raw-email-bad-time.eml',
    mails: 1,
    threads: 1,
    dates: ['2008-06-09T00:00:00Z', '2008-07-01T00:00:00Z'],
    phrases: ['believed to be clean'],
    people: ['Атиковa <yusuf75thu@auracom.net>'],
    absent: ['MailScanner (http', 'DOCTYPE'],
  },
  { file: 'mail-gem-raw-email-with-bad-date.eml', mails: 1, threads: 1, dates: ['2007-11-05T00:00:00Z', '2007-11-06T00:00:00Z'], phrases: ['hotnewsoft . com'], people: ['Darrell Shaw <subventive@vodtravel.com>'] },
  { file: 'mail-gem-trademark-character-in-subject.eml', mails: 1, threads: 1, dates: ['2010-10-12T00:00:00Z', '2010-10-13T00:00:00Z'], phrases: ['Body Text - not important'] },
  {
    file: 'mail-gem-raw-email2.eml',
    format: 'mbox',
    mails: 1,
    threads: 1,
    dates: ['2005-05-08T00:00:00Z', '2005-05-09T00:00:00Z'],
    phrases: ['We should not include these files or vcards as attachments.', 'Is there any way these kind of files could be ignored'],
    absent: ['MIAGCSqGSIb3', 'ggI2oAMCAQICAw5c'],
  },
  {
    file: 'mail-gem-sig-only-email.eml',
    mails: 1,
    threads: 1,
    dates: ['2007-06-04T00:00:00Z', '2007-06-05T00:00:00Z'],
    phrases: ['This is random text, not what has been signed below'],
    people: ['Test <test@test.lindsaar.net>', 'Mikel <mikel@test.lindsaar.net>'],
    absent: ['PGP SIGNATURE', 'iD8DB1111'],
  },
  { file: 'mail-gem-raw-email7.eml', mails: 1, threads: 1, dates: ['2005-06-06T00:00:00Z', '2005-06-07T00:00:00Z'], phrases: ['This is the first part.'], absent: ['puts "testing', 'YmxhaCBibGFoIGJsYWg='] },
  {
    file: 'mail-gem-invalid-subject-characters.eml',
    mails: 1,
    threads: 1,
    dates: 'undated',
    phrases: ['TEST'],
    titles: ['Formação FrenetikPolis: Mega Campanha Final Verão | Cursos de Setembro'],
    people: ['Formação Frenetikpolis <info@formacaofrenetik.info>'],
  },
  { file: 'mail-gem-bad-encoded-subject.eml', mails: 1, threads: 1, dates: 'undated', phrases: ['TEST'], titles: ['TEST'] },
  {
    file: 'mail-gem-header-fields-with-empty-values.eml',
    mails: 1,
    threads: 1,
    dates: ['2009-10-30T19:07:00Z', '2009-10-30T19:08:00Z'],
    phrases: ['Jørn Støylen -- http://www.prikkprikkprikk.no'],
    people: ['Jørn Støylen <jorn@prikkprikkprikk.no>', 'AF Test <aftest@adfontesmedier.no>'],
  },
  // A multipart mail whose parts never come: nothing to remember, so nothing lands (no empty memory).
  { file: 'mail-gem-missing-body.eml', mails: 0, threads: 0, dates: 'undated', phrases: [] },
  { file: 'php-mime-failure-gb2312.eml', mails: 1, threads: 1, dates: 'undated', phrases: ['次の受信者またはグループへの配信に失敗しました'] },
  {
    file: 'patchwork-base-deep-threaded.mbox',
    mails: 3,
    threads: 1,
    dates: ['2016-09-11T22:22:00Z', '2016-09-11T22:23:00Z'],
    phrases: ['This is a sample cover letter.'],
    titles: ['[PATCH 0/2] A sample series', '[PATCH 1/2] test: Add some lorem ipsum', '[PATCH 2/2] test: Convert to Markdown'],
    people: ['Stephen Finucane <stephenfinucane@gmail.com>'],
  },
  {
    file: 'patchwork-base-out-of-order.mbox',
    mails: 3,
    threads: 1,
    dates: ['2016-09-11T22:22:00Z', '2016-09-11T22:23:00Z'],
    phrases: ['This is a sample cover letter.'],
    titles: ['[PATCH 2/2] test: Convert to Markdown', '[PATCH 1/2] test: Add some lorem ipsum', '[PATCH 0/2] A sample series'],
  },
  {
    file: 'patchwork-bugs-multiple-references.mbox',
    mails: 5,
    threads: 1,
    dates: ['2017-05-23T04:01:00Z', '2017-05-23T04:03:00Z'],
    phrases: ['Here are few cleanup patches for the OPP core.'],
    people: ['Viresh Kumar <viresh.kumar@linaro.org>', 'Rafael Wysocki <rjw@rjwysocki.net>'],
  },
  {
    file: 'perceval-pipermail-2015-november.mbox',
    mails: 4,
    // The archive as published changed the domain of the ids the replies name ("…@example.com") but not the first
    // message's own ("…@mail.gmail.com"): the three replies answer a mail that is not in the file.
    threads: 2,
    dates: ['2015-11-14T20:29:00Z', '2015-11-28T20:26:00Z'],
    phrases: ['you might have heard of Docker [1].', 'This is cool, Andy.', 'I thought: Just do it.'],
    people: ['Andy Grunwald <andy@example.com>', 'Jesus M. Gonzalez-Barahona <jgb@gsyc.es>'],
    absent: ['next part', 'An HTML attachment was scrubbed', 'GMT+01:00'],
  },
  {
    file: 'perceval-pipermail-2016-april.mbox',
    mails: 3,
    threads: 1,
    dates: ['2016-04-14T09:06:00Z', '2016-04-25T22:01:00Z'],
    phrases: ['This is to present GrimoreLab [1] to this mailing list.', 'Thank you Jesus.', 'Saludos,'],
    people: ['Andy Grunwald <andy@example.com>', 'Jesus M. Gonzalez-Barahona <jgb@example.com>'],
    absent: ['next part', 'scrubbed'],
  },
  {
    file: 'perceval-mbox-complex.mbox',
    mails: 2,
    threads: 2,
    dates: ['2004-09-22T09:03:00Z', '2008-03-17T09:36:00Z'],
    phrases: ['I am not handling Ubuntu packaging stuff—it'],
    people: ['Eugenia Loli-Queru <eloli@hotmail.com>', 'Danilo Šegan <danilo@gnome.org>'],
  },
  { file: 'perceval-mbox-iso8859-encoding.mbox', mails: 1, threads: 1, dates: ['2016-11-07T18:44:00Z', '2016-11-07T18:45:00Z'], phrases: ['payment has now been processed'], people: ['Lucía Charlie <lucíacharlie@wellsfargo.com>'] },
  {
    file: 'perceval-mbox-unixfrom-encoding.mbox',
    mails: 1,
    threads: 1,
    dates: ['2015-01-15T13:22:00Z', '2015-01-15T13:23:00Z'],
    phrases: ['central pillar in QA is “software getting tested”'],
    people: ['Christian Aistleitner <christian@example.org>'],
  },
];

// What must never reach memory from mail: encoded words, tags, MIME headers, replacement characters, C1 controls.
const RESIDUE = /=\?[\w-]+\?[bq]\?|<br\b|<\/?(html|body|div|span|p|table)\b|Content-Type:|Content-Transfer-Encoding:|\ufffd|[\u0080-\u009f]/i;

describe('real mail files', () => {
  it.each(CORPUS)('$file', async (want) => {
    const { items, batches } = await readAll([{ name: want.file, blob: new Blob([readFileSync(join(REAL, want.file))]) }]);
    const mails = new Set(items.map((i) => i.id!.replace(/#\d+$/, '')));
    expect(mails.size).toBe(want.mails);
    expect(batches.every((b) => b.file === want.file && b.format === (want.format ?? (want.file.endsWith('.mbox') ? 'mbox' : 'eml')))).toBe(true);
    expect(new Set(items.map((i) => i.thread?.id)).size).toBe(want.threads);
    expect(items.every((i) => i.thread?.id.startsWith('mail-thread:'))).toBe(true);
    // Places in a thread are distinct.
    expect(new Set(items.map((i) => `${i.thread!.id}#${i.thread!.seq}`)).size).toBe(items.length);
    for (const item of items) {
      if (want.dates === 'undated') {
        expect(item.undated).toBe(true);
        expect(item.createdAt).toBeUndefined();
      } else {
        expect(item.undated).toBeUndefined();
        expect(item.createdAt).toBeGreaterThanOrEqual(Date.parse(want.dates[0]));
        expect(item.createdAt).toBeLessThanOrEqual(Date.parse(want.dates[1]));
      }
      for (const field of [item.text, item.title!, ...item.people!]) expect(field).not.toMatch(RESIDUE);
    }
    const text = items.map((i) => i.text).join('\n');
    for (const phrase of want.phrases) expect(text + items.map((i) => i.title).join('\n')).toContain(phrase);
    for (const gone of want.absent ?? []) expect(text).not.toContain(gone);
    if (want.titles) expect(items.map((i) => i.title)).toEqual(want.titles);
    const people = new Set(items.flatMap((i) => i.people!));
    for (const person of want.people ?? []) expect(people).toContain(person);
  });

  it('reads a patch series as one thread whichever order it comes in', async () => {
    const read = async (file: string) => (await readAll([{ name: file, blob: new Blob([readFileSync(join(REAL, file))]) }])).items;
    const inOrder = await read('patchwork-base-deep-threaded.mbox');
    const outOfOrder = await read('patchwork-base-out-of-order.mbox');
    expect(new Set(outOfOrder.map((i) => i.thread!.id))).toEqual(new Set(inOrder.map((i) => i.thread!.id)));
    const order = (items: typeof inOrder) => [...items].sort((a, b) => a.thread!.seq - b.thread!.seq).map((i) => i.title);
    expect(order(outOfOrder)).toEqual(['[PATCH 0/2] A sample series', '[PATCH 1/2] test: Add some lorem ipsum', '[PATCH 2/2] test: Convert to Markdown']);
    expect(order(inOrder)).toEqual(order(outOfOrder));
  });

  it('reads the whole corpus in one import: a mail in two files is one mail in one place, no thread split across files', async () => {
    const files = CORPUS.map((c) => ({ name: c.file, path: `mail/${c.file}`, blob: new Blob([readFileSync(join(REAL, c.file))]) }));
    const { items } = await readAll(files);
    // The two patchwork series files hold the same three mails: one mail each (the same id and the same place in one
    // thread, so the store keeps one copy), one thread between them.
    const byId = new Map<string, string>();
    for (const item of items) {
      const place = `${item.thread!.id}#${item.thread!.seq}`;
      expect(byId.get(item.id!) ?? place).toBe(place);
      byId.set(item.id!, place);
    }
    expect(byId.size).toBe(CORPUS.reduce((n, c) => n + c.mails, 0) - 3);
    expect(new Set(byId.values()).size).toBe(byId.size);
    expect(new Set(items.map((i) => i.thread!.id)).size).toBe(CORPUS.reduce((n, c) => n + c.threads, 0) - 1);
  });
});
