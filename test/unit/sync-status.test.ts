import { describe, expect, it } from 'vitest';
import { SyncService, type SyncServiceDeps } from '../../lib/service/sync-service';
import { MemoryStorage } from '../../lib/sync/storage-memory';
import { SyncProfile } from './sync-fixtures';

describe('the sync status the options page and the panel show', () => {
  it('says "syncing", not "synced", between connecting and the end of the first pass', async () => {
    const p = new SyncProfile('Laptop', new MemoryStorage());
    await p.store.add([{ id: 'x', text: 'Nothing of this is in the folder yet.' }], { from: 'user' });
    // Only the status is asked of the service here: it reads this device's part from the database.
    const service = new SyncService({ db: p.db } as SyncServiceDeps);
    await p.connect();
    expect((await service.status()).state).toBe('syncing');
    await p.pass();
    expect((await service.status()).state).toBe('synced');
  });
});
