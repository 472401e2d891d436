// Which segments a reader opens against what this device applied, and what the opened ones say of a log written by two
// profiles at once (docs/sync.md, "How FolderReader reads").
import type { Applied, Opened } from './folder-reader';
import type { Placed } from './folder-layout';

/**
 * The segments worth opening: those past what this device applied of their writer's log (by the seq their name says),
 * and of those it applied only the last of each writer, whose `seen` says how far that writer had applied the others
 * (`FolderPlan.past`), and any seq the folder holds under more than one name (an engine's conflicted copy, which may
 * be another version). A worker stopped between passes starts with nothing opened, and a folder holds up to a
 * snapshot's worth of segments: reading them all again on every pass was most of what a quiet pass downloaded. A file
 * whose name is not what its body says is either never read (it names an applied seq) or read and refused as before.
 */
export function unapplied(segments: Placed[], applied: Readonly<Record<string, Applied>>): Placed[] {
  const last = new Map<string, number>();
  const names = new Map<string, number>();
  for (const f of segments) {
    if (f.seq <= (applied[f.device]?.seq ?? 0) && f.seq > (last.get(f.device) ?? 0)) last.set(f.device, f.seq);
    names.set(`${f.device} ${f.seq}`, (names.get(`${f.device} ${f.seq}`) ?? 0) + 1);
  }
  return segments.filter((f) => f.seq > (applied[f.device]?.seq ?? 0) || f.seq === last.get(f.device) || names.get(`${f.device} ${f.seq}`)! > 1);
}

/**
 * Opened segments of a seq this device applied that are another version of it: not the bytes applied of the last, or
 * two different sealed segments of one device and seq. Only a profile holding that device's part can write either (a
 * copied profile, or one restored from a backup, writing beside the original).
 */
export function rewrittenSegments(segs: readonly (Opened & { path: string })[], applied: Readonly<Record<string, Applied>>): { device: string; path: string }[] {
  const versions = new Map<string, Set<string>>();
  const done = segs.filter((x) => x.seq <= (applied[x.device]?.seq ?? 0));
  for (const x of done) versions.set(`${x.device} ${x.seq}`, (versions.get(`${x.device} ${x.seq}`) ?? new Set()).add(x.hash));
  return done
    .filter((x) => (x.seq === applied[x.device].seq && x.hash !== applied[x.device].hash) || versions.get(`${x.device} ${x.seq}`)!.size > 1)
    .map(({ device, path }) => ({ device, path }));
}
