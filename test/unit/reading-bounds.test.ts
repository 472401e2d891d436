// @vitest-environment happy-dom
/**
 * A page writes every string of a reading, and readings come every 50 ms: the content script cuts them to sensible
 * lengths before sending, and the worker cuts them again on arrival (a page is not trusted to have run the first).
 */
import { describe, expect, it } from 'vitest';
import { READING_LIMITS, boundReading } from '../../lib/rank/reading-bounds';
import type { TaskReading } from '../../lib/rank/types';
import { ReadingUpdates } from '../../lib/service/reading-updates';
import type { ContentRegistration } from '../../lib/service/content-registration';
import type { PanelHub } from '../../lib/service/panel-hub';
import type { TabReadingStore } from '../../lib/service/tab-reading-store';
import { readTask } from '../../lib/sites/index';

const long = (n: number, c = 'a') => c.repeat(n);

function hostileReading(): TaskReading {
  return {
    url: `https://mail.example.test/${long(10_000)}`,
  destination: 'email',
    title: long(50_000),
    site: 'mail.example.test',
    adapter: 'generic',
    at: 1,
    field: { text: long(100_000), kind: 'textarea', label: long(5_000) },
    selection: long(50_000),
    subject: long(80_000),
    people: [long(80_000), ...Array.from({ length: 500 }, (_, i) => `p${i}@x.test`)],
    turns: Array.from({ length: 50 }, (_, i) => `turn ${i} ${long(10_000)}`),
    headings: Array.from({ length: 50 }, () => long(5_000)),
    thread: { id: long(10_000) },
  };
}

function expectWithinLimits(r: TaskReading): void {
  const L = READING_LIMITS;
  expect(r.url.length).toBeLessThanOrEqual(L.url);
  expect(r.title.length).toBe(L.title);
  expect(r.field?.text.length).toBe(L.field);
  expect(r.field?.label?.length).toBe(L.label);
  expect(r.selection?.length).toBe(L.selection);
  expect(r.subject?.length).toBe(L.subject);
  expect(r.people).toHaveLength(L.people);
  expect(r.people?.[0].length).toBe(L.person);
  expect(r.turns).toHaveLength(L.turns);
  expect(r.turns?.every((t) => t.length <= L.turn)).toBe(true);
  expect(r.headings).toHaveLength(L.headings);
  expect(r.thread?.id.length).toBe(L.thread);
}

describe('a reading is cut to sensible lengths', () => {
  it('the worker cuts what it receives before the ranker sees it, keeping the latest turns', async () => {
    const stored: TaskReading[] = [];
    const tasks = { set: async (_tab: number, r: TaskReading) => void stored.push(r), setFrame: () => {} } as unknown as TabReadingStore;
    const access = { allows: async () => true } as unknown as ContentRegistration;
    const hub = { refreshTab: () => {} } as unknown as PanelHub;
    await new ReadingUpdates(tasks, access, hub).update(hostileReading(), { tab: { id: 7 } as never, frameId: 0, url: 'https://mail.example.test/' });
    expect(stored).toHaveLength(1);
    expectWithinLimits(stored[0]);
    expect(stored[0].turns?.at(-1)).toMatch(/^turn 49 /);
  });

  it('keeps an ordinary reading as it is, and drops fields of the wrong type', () => {
    const ordinary: TaskReading = {
      url: 'https://mail.example.test/compose',
      destination: 'email',
      title: 'Compose',
      site: 'mail.example.test',
      adapter: 'gmail',
      at: 5,
      field: { text: 'Hi Dana,', kind: 'contenteditable' },
      subject: 'Offsite',
      people: ['Dana Ortiz <dana@x.test>'],
    };
    expect(boundReading(ordinary)).toEqual(ordinary);
    const odd = { ...ordinary, people: [42, 'dana@x.test'], subject: { toString: () => 'x' } } as unknown as TaskReading;
    expect(boundReading(odd)).toEqual({ ...ordinary, people: ['dana@x.test'], subject: undefined });
  });

  it('the content script cuts a page\'s 80,000-character "To" and title before sending', () => {
    document.title = long(50_000, 't');
    document.body.innerHTML = `<form><input name="to" value="dana@x.test, ${long(80_000, 'b')}@x.test"><input name="subject" value="${long(5_000, 's')}"><textarea></textarea></form>`;
    const field = document.querySelector('textarea') as HTMLTextAreaElement;
    field.value = long(30_000, 'c');
    field.focus();
    const r = readTask(document, field);
    expect(r.title.length).toBe(READING_LIMITS.title);
    expect(r.field?.text.length).toBeLessThanOrEqual(READING_LIMITS.field);
    expect(r.subject?.length).toBe(READING_LIMITS.subject);
    expect(r.people?.[0]).toBe('dana@x.test');
    for (const p of r.people ?? []) expect(p.length).toBeLessThanOrEqual(READING_LIMITS.person);
  });

  it('takes only a destination it knows from a page: anything else is read as a document, never as chat or email', () => {
    const r = boundReading({ ...hostileReading(), destination: 'email-everywhere' as never });
    expect(r.destination).toBe('documents');
    expect(boundReading({ ...hostileReading(), destination: 'chat' }).destination).toBe('chat');
  });
});

describe('the landmarks a reading reports', () => {
  it('are cut like the rest: a page cannot send long names or many of them, and only lists of names pass', () => {
    const r = boundReading({
      url: 'https://www.notion.so/x', title: '', site: 'www.notion.so', adapter: 'generic', destination: 'documents', at: 1,
      landmarks: { adapter: long(500), label: long(500), found: Array.from({ length: 500 }, () => long(500)), missing: 'x' as unknown as string[] },
    });
    expect(r.landmarks?.adapter).toHaveLength(READING_LIMITS.adapter);
    expect(r.landmarks?.label).toHaveLength(READING_LIMITS.landmark);
    expect(r.landmarks?.found).toHaveLength(READING_LIMITS.landmarks);
    expect(r.landmarks?.found.every((n) => n.length === READING_LIMITS.landmark)).toBe(true);
    expect(r.landmarks?.missing).toEqual([]);
  });
});
