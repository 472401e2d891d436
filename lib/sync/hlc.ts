// The hybrid logical clock of docs/sync.md, "Clocks". Pure: the wall time is always passed in.
import type { Stamp } from './types';

/** A stamp further ahead of this device's wall time than this does not move its clock. */
export const MAX_DRIFT = 5 * 60_000;

/** Hex digits of the wall time (ms): 12 reach the year 10889. */
const WALL_DIGITS = 12;
/** Hex digits of the counter: 16.7 million stamps within one millisecond before the wall part is carried. */
const COUNTER_DIGITS = 6;
const COUNTER_MAX = 16 ** COUNTER_DIGITS - 1;
/** Device ids are random lowercase base32 or hex (128 bits); shorter ones are accepted for tests. */
const DEVICE_ID = /^[a-z0-9]{1,64}$/;
const STAMP = /^([0-9a-f]{12})-([0-9a-f]{6})-([a-z0-9]{1,64})$/;

export interface StampParts {
  wall: number;
  counter: number;
  device: string;
}

export function isDeviceId(s: string): boolean {
  return DEVICE_ID.test(s);
}

export function isStamp(s: unknown): s is Stamp {
  return typeof s === 'string' && STAMP.test(s);
}

/** `wall-counter-device`, fixed width, so that comparing strings compares clocks (then devices, to break ties). */
export function formatStamp({ wall, counter, device }: StampParts): Stamp {
  return `${wall.toString(16).padStart(WALL_DIGITS, '0')}-${counter.toString(16).padStart(COUNTER_DIGITS, '0')}-${device}`;
}

export function parseStamp(stamp: Stamp): StampParts {
  const m = STAMP.exec(stamp);
  if (!m) throw new Error(`"${String(stamp).slice(0, 80)}" is not a sync stamp.`);
  return { wall: parseInt(m[1], 16), counter: parseInt(m[2], 16), device: m[3] };
}

/** What `receive` noticed: a device whose clock is far ahead of this one's (its stamps did not move this clock). */
export interface ClockAhead {
  device: string;
  /** How far ahead of this device's wall time its stamp was, in ms. */
  aheadMs: number;
}

/**
 * One device's clock. `last` is the greatest stamp it issued or accepted: keep it (the ledger does) so that a restart
 * never issues a stamp below one already given out.
 */
export class HybridClock {
  private wall: number;
  private counter: number;

  constructor(
    readonly device: string,
    last?: Stamp,
  ) {
    if (!isDeviceId(device)) throw new Error(`"${device.slice(0, 80)}" is not a device id.`);
    const p = last ? parseStamp(last) : { wall: 0, counter: 0 };
    this.wall = p.wall;
    this.counter = p.counter;
  }

  /** The greatest stamp issued or accepted so far (the clock's state, to persist). */
  get last(): Stamp {
    return formatStamp({ wall: this.wall, counter: this.counter, device: this.device });
  }

  /** A new stamp, greater than every stamp issued or accepted before. */
  next(now: number): Stamp {
    if (now > this.wall) {
      this.wall = now;
      this.counter = 0;
    } else if (this.counter < COUNTER_MAX) this.counter++;
    else {
      // Counter exhausted within one millisecond: carry into the wall part, which stays ordered.
      this.wall++;
      this.counter = 0;
    }
    return this.last;
  }

  /**
   * Takes in a stamp another device issued: later stamps of this device will be greater than it, unless it is more
   * than MAX_DRIFT ahead of `now`; then the clock stays where it was and the drift is returned for the status.
   */
  receive(stamp: Stamp, now: number): ClockAhead | undefined {
    const p = parseStamp(stamp);
    if (p.wall > now + MAX_DRIFT) return { device: p.device, aheadMs: p.wall - now };
    if (p.wall > this.wall || (p.wall === this.wall && p.counter > this.counter)) {
      this.wall = p.wall;
      this.counter = p.counter;
    }
    return undefined;
  }
}

/** Receives the stamps of a segment's operations; returns each device found far ahead once, with its largest drift. */
export function receiveAll(clock: HybridClock, stamps: Iterable<Stamp>, now: number): ClockAhead[] {
  const ahead = new Map<string, number>();
  for (const s of stamps) {
    const a = clock.receive(s, now);
    if (a && a.aheadMs > (ahead.get(a.device) ?? 0)) ahead.set(a.device, a.aheadMs);
  }
  return [...ahead].map(([device, aheadMs]) => ({ device, aheadMs }));
}

/** "3 days", "2 hours", "6 minutes": how far a clock is ahead, or how long a gap has lasted, for the status line. */
export function durationInWords(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return 'less than a minute';
}
