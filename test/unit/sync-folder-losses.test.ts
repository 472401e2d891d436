import { describe, expect, it } from 'vitest';
import type { DeviceState } from '../../lib/sync/device';
import type { FolderPlan } from '../../lib/sync/folder-reader';
import { LOST_AFTER_MS, lookPast, noteWaiting } from '../../lib/sync/folder-losses';

const plan = (over: Partial<FolderPlan>): FolderPlan => ({ segments: [], heads: {}, devices: {}, problems: [], gaps: [], past: [], rewritten: [], ...over });
const noLosses = { own: [], damaged: [], held: [] };

describe('what a device waits for, by its clock', () => {
  it('a gap noted while the clock ran a year ahead is said a day after the clock is set right, not a year later', () => {
    const dev = { waiting: {} } as unknown as DeviceState;
    const said: string[] = [];
    const say = (_: string, words: string) => void said.push(words);
    const right = Date.UTC(2026, 11, 1);
    const read = plan({ gaps: [{ device: 'aaaa', from: 2, to: 3 }], past: [{ device: 'bbbb', seq: 4 }] });
    noteWaiting(dev, read, noLosses, right + 365 * 86_400_000, say);
    noteWaiting(dev, read, noLosses, right, say);
    expect(said).toEqual([]);
    noteWaiting(dev, read, noLosses, right + LOST_AFTER_MS, say);
    expect(said).toEqual([expect.stringMatching(/segment 2, missing from the folder for 1 day/)]);
    expect(lookPast(dev, right + LOST_AFTER_MS)).toEqual(['bbbb']);
  });
});
