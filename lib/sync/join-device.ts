// Joining a synced memory under a new device id: on connecting, and again when another profile turns out to write as
// this device (a copied profile, or one restored from a backup; docs/sync.md, "The folder").
import type { BackstoryDB } from '../memory/db';
import type { MemoryStore } from '../memory/store';
import { randomId } from './bytes';
import { forgetDevice, readOutbox, writeDevice, type DeviceState } from './device';
import { DELETED } from './fields';
import { SyncLedger } from './ledger';
import { LogWriter } from './log-writer';
import { goneSinceSync } from './replica';
import type { SyncStorage } from './types';

/**
 * Joins under a new device id with an empty ledger and state (its first pass is a union with the folder): the device
 * file goes into the folder first, then this device's part in one transaction.
 */
export async function joinAsDevice(
  db: BackstoryDB,
  storage: SyncStorage,
  vault: Pick<DeviceState, 'vaultId' | 'header' | 'digest' | 'vaultKey' | 'place' | 'deviceName'>,
  now: number,
  redelete: string[] = [],
): Promise<void> {
  const deviceId = randomId();
  await new LogWriter(storage, { key: vault.vaultKey, digest: vault.digest, vaultId: vault.vaultId }, deviceId).join(vault.deviceName, now);
  await db.transaction('rw', [db.syncDevice, db.syncLedger, db.syncMeta, db.syncState], async () => {
    await forgetDevice(db);
    // Named one by one: a caller passing its old device row must not hand the new device its progress.
    const { vaultId, header, digest, vaultKey, place, deviceName } = vault;
    await writeDevice(db, {
      key: 'device', deviceId, deviceName, joinedAt: now, vaultId, header, digest, vaultKey, place, applied: {}, seen: {}, wrote: {}, snapshotSeq: 0,
      opsSinceSnapshot: 0, devices: 1, said: [], ...(redelete.length ? { redelete } : {}),
    });
  });
}

export const COPIED_PROFILE =
  "This browser's sync data is also in use elsewhere (a copied profile, or one restored from a backup): it now syncs as a device of its own, and its memory joined the synced one again.";

/** Memories deleted here that the folder does not know of yet: since the last pass, or sealed and not written. */
export async function unsentDeletes(db: BackstoryDB, store: MemoryStore): Promise<string[]> {
  await store.load();
  const since = goneSinceSync(await new SyncLedger(db).brief(), store);
  const sealed = (await readOutbox(db)).flatMap((row) => row.ops.filter((o) => o.field === DELETED).map((o) => o.id));
  return [...new Set([...since, ...sealed])];
}

