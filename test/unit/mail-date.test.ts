import { describe, expect, it } from 'vitest';
import { envelopeDate, headerDate, mailDate } from '../../lib/import/mail-date';

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('mail dates', () => {
  it.each([
    ['Tue, 12 Oct 2010 16:21:05 -0400 (EDT)', '2010-10-12T20:21:05Z'],
    ['12 Oct 2010 16:21:05 GMT', '2010-10-12T16:21:05Z'],
    ['Wed,  5 Dec 2001 02:00:07 -0600', '2001-12-05T08:00:07Z'],
  ])('reads %s', (value, iso) => {
    expect(headerDate(value, NOW)).toBe(Date.parse(iso));
  });

  it.each([
    ['an unparseable zone', 'Tue, 12 Oct 2010 16:21:05 H0500'],
    ['a month nobody writes', 'Pn, 29 paX 2007 21:13:00 +0100'],
    ['the year 3609', 'Mon, 30 Jun 3609 15:33:50 +0600'],
    ['before 1970', 'Mon, 1 Jan 1900 00:00:00 +0000'],
    ['tomorrow and a day', 'Thu, 3 Dec 2026 13:00:00 +0000'],
    ['no date at all', 'Wg>'],
    ['an empty header', ''],
  ])('refuses %s', (_name, value) => {
    expect(headerDate(value, NOW)).toBeUndefined();
  });

  it('reads mbox "From " lines: asctime as UTC, and Gmail\'s with a zone', () => {
    expect(envelopeDate('From xxxx@gmail.com Sun May  8 19:07:09 2005', NOW)).toBe(Date.UTC(2005, 4, 8, 19, 7, 9));
    expect(envelopeDate('From andy at example.com  Sat Nov 14 21:29:28 2015', NOW)).toBe(Date.UTC(2015, 10, 14, 21, 29, 28));
    expect(envelopeDate('From 1790000000000000001@xxx Mon Mar 03 10:00:00 +0100 2026', NOW)).toBe(Date.UTC(2026, 2, 3, 9, 0, 0));
    expect(envelopeDate('From MAILER-DAEMON Fri Jul  8 12:08:34 3011', NOW)).toBeUndefined();
    expect(envelopeDate('From nobody', NOW)).toBeUndefined();
  });

  it('takes the Date header, else the "From " line, else the newest Received date; none gives undefined', () => {
    const received = ['from a by b; Mon, 30 Jun 2008 02:34:00 -0700', 'from c by d; Mon,  9 Jun 2008 12:24:02 -0700'];
    expect(mailDate({ date: 'Mon, 30 Jun 3609 15:33:50 +0600', received }, NOW)).toBe(Date.parse('2008-06-30T09:34:00Z'));
    expect(mailDate({ date: 'bad', envelope: 'From x Sun May  8 19:07:09 2005', received }, NOW)).toBe(Date.UTC(2005, 4, 8, 19, 7, 9));
    expect(mailDate({ date: 'Sun, 8 May 2005 12:09:11 -0700', envelope: 'From x Sun May  8 19:07:09 2005', received }, NOW)).toBe(Date.parse('2005-05-08T19:09:11Z'));
    expect(mailDate({ received: ['from a by b (no date)'] }, NOW)).toBeUndefined();
  });
});
