// A device of the sync bench: the product's memory (MemoryStore over fake-indexeddb) and its sync engine, reaching a
// real WebDAV folder through the product's WebDavStorage, each device through its own connection (as two browsers).
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { Embedder } from '../../../lib/embed/embedder';
import { readImport } from '../../../lib/import/index';
import { openMemoryDB, type BackstoryDB } from '../../../lib/memory/db';
import { memoryFileChunks } from '../../../lib/memory/memory-file';
import { createItem } from '../../../lib/memory/normalize';
import { MemoryStore } from '../../../lib/memory/store';
import type { MemoryInput } from '../../../lib/memory/types';
import type { SyncPlace } from '../../../lib/sync/device';
import { connectVault, syncPass, type PassReport, type SyncDeps } from '../../../lib/sync/engine';
import { WebDavStorage } from '../../../lib/sync/storage-webdav';
import { CountingStorage } from './measure';

/** A cheap key derivation for making the bench's vault; the real one is timed apart (sync_unlock_ms). */
export const BENCH_KDF = { memoryKiB: 8192, iterations: 1, parallelism: 1 };
export const BENCH_PASSPHRASE = 'correct horse battery staple';

export class Device {
  db: BackstoryDB;
  store: MemoryStore;
  readonly storage: CountingStorage;
  constructor(
    readonly name: string,
    readonly place: Extract<SyncPlace, { kind: 'webdav' }>,
    private readonly embedder: () => Promise<Embedder | null> = async () => null,
  ) {
    this.db = openMemoryDB(`sync-bench-${name}`, { indexedDB: new IDBFactory(), IDBKeyRange });
    this.store = new MemoryStore(this.db, this.embedder);
    this.storage = new CountingStorage(new WebDavStorage({ url: place.url, user: place.user, password: place.password }));
  }

  deps(onProgress?: SyncDeps['onProgress']): SyncDeps {
    return { db: this.db, store: this.store, open: async () => this.storage, onProgress };
  }

  /** Joins (or makes) the synced memory in the folder; `kdf` only matters when it makes one. */
  connect(): Promise<{ recoveryKey?: string }> {
    return connectVault(this.deps(), { place: this.place, passphrase: BENCH_PASSPHRASE, deviceName: this.name, kdf: BENCH_KDF });
  }

  async pass(onProgress?: SyncDeps['onProgress']): Promise<PassReport> {
    const report = await syncPass(this.deps(onProgress));
    if (!report) throw new Error(`${this.name}: sync is off`);
    return report;
  }

  /**
   * Imports texts as the extension imports a memory file: written as one, read back by the import reader, committed
   * by `MemoryStore.commitImport` (embedding is left for later, as for any import).
   */
  async importTexts(texts: string[], t0 = Date.UTC(2025, 0, 1)): Promise<void> {
    const items = texts.map((text, i) =>
      createItem({ id: `s${i}`, text, title: text.slice(0, 60).replace(/\s+\S*$/, ''), createdAt: t0 + i * 60_000 } as MemoryInput, t0 + i * 60_000),
    );
    const file = { name: 'memory.json', blob: new Blob([...memoryFileChunks(items)], { type: 'application/json' }) };
    const inputs: MemoryInput[] = [];
    for await (const batch of readImport([file])) {
      if (batch.format !== 'memory-file') throw new Error(`the bench's memory file was read as ${batch.format}`);
      inputs.push(...batch.items);
    }
    const counts = await this.store.commitImport(inputs, { importId: 'sync-bench', provenance: { from: 'import', trusted: true } });
    if (counts.added !== texts.length) throw new Error(`${counts.added} of ${texts.length} items imported`);
  }

  /**
   * Lets go of the memory's in-memory index (as a worker stop does); the database stays. `reopen` loads it again.
   */
  dropStore(): void {
    this.store = undefined as unknown as MemoryStore;
  }

  reopen(): void {
    this.store = new MemoryStore(this.db, this.embedder);
  }

  /** Lets go of everything (its database too). */
  close(): void {
    this.db.close();
    this.db = undefined as unknown as BackstoryDB;
    this.store = undefined as unknown as MemoryStore;
  }
}
