import { describe, expect, it } from 'vitest';
import { durationInWords, formatStamp, HybridClock, MAX_DRIFT, parseStamp, receiveAll } from '../../lib/sync/hlc';

const T0 = 1_780_000_000_000;

describe('hybrid logical clock', () => {
  it('issues stamps that sort as strings in the order they were issued, even when the wall clock steps back', () => {
    const c = new HybridClock('a');
    const stamps = [c.next(T0), c.next(T0), c.next(T0 - 60_000), c.next(T0 + 1), c.next(T0 + 1)];
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps).size).toBe(stamps.length);
    expect(parseStamp(stamps[2])).toEqual({ wall: T0, counter: 2, device: 'a' });
  });

  it('stays ahead of every stamp it accepted, and after a restart of every stamp it gave out', () => {
    const a = new HybridClock('a');
    const b = new HybridClock('b');
    const far = b.next(T0 + 60_000); // b's clock a minute ahead: within the drift allowed
    expect(a.receive(far, T0)).toBeUndefined();
    expect(a.next(T0) > far).toBe(true);
    const restarted = new HybridClock('a', a.last);
    expect(restarted.next(T0 - 5) > a.last).toBe(true);
  });

  it('is not dragged by a clock more than five minutes ahead, and says how far ahead it is', () => {
    const a = new HybridClock('a');
    const laptop = new HybridClock('laptop');
    const stamps = [laptop.next(T0 + 3 * 86_400_000), laptop.next(T0 + 3 * 86_400_000 + 5)];
    expect(receiveAll(a, stamps, T0)).toEqual([{ device: 'laptop', aheadMs: 3 * 86_400_000 + 5 }]);
    expect(parseStamp(a.next(T0)).wall).toBe(T0);
    expect(durationInWords(3 * 86_400_000 + 5)).toBe('3 days');
    expect(a.receive(new HybridClock('phone').next(T0 + MAX_DRIFT), T0)).toBeUndefined(); // at the limit: accepted
  });

  it('carries a full counter into the wall part, still in order', () => {
    const c = new HybridClock('a', formatStamp({ wall: T0, counter: 0xffffff, device: 'a' }));
    const s = c.next(T0);
    expect(parseStamp(s)).toEqual({ wall: T0 + 1, counter: 0, device: 'a' });
    expect(s > formatStamp({ wall: T0, counter: 0xffffff, device: 'z' })).toBe(true);
  });

  it('refuses a device id or stamp that is not one', () => {
    expect(() => new HybridClock('A B')).toThrow(/not a device id/);
    expect(() => parseStamp('yesterday')).toThrow(/not a sync stamp/);
  });
});
