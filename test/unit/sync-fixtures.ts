import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import type { Embedder } from '../../lib/embed/embedder';
import { openMemoryDB, type BackstoryDB } from '../../lib/memory/db';
import { MemoryStore } from '../../lib/memory/store';
import type { SyncPlace } from '../../lib/sync/device';
import { connectVault, syncPass, type SyncDeps } from '../../lib/sync/engine';
import { SyncPlaceError, type SyncStorage } from '../../lib/sync/types';

/** A cheap key derivation for tests' vaults (the real cost is the bench's `sync_unlock_ms`). */
export const FAST_KDF = { memoryKiB: 8192, iterations: 1, parallelism: 1 };
export const TEST_PASSPHRASE = 'correct horse battery staple';
/** The place profiles say they sync to; tests hand them the storage itself. */
export const TEST_PLACE: SyncPlace = { kind: 'webdav', url: 'http://127.0.0.1:1/dav/', user: 'u', password: 'p' };

/** Sync tests' embedder: the vector is a hash of the text, enough to see what was embedded and when. */
export const textHashEmbedder: Embedder = {
  modelId: 'test',
  dim: 4,
  backend: 'test',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(4);
      for (let i = 0; i < t.length; i++) v[i % 4] += t.charCodeAt(i);
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

/** The `SyncPlaceError` problem a place's call ends in ('none' when it succeeds); any other error is thrown on. */
export async function placeProblem(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof SyncPlaceError) return e.problem;
    throw e;
  }
  return 'none';
}

/**
 * A browser profile in Node: its memory in a fake-indexeddb of its own, syncing through `storage` (the folder as its
 * sync client shows it). Tests add what their profile also syncs (settings, learning) through `moreDeps`.
 */
export class SyncProfile {
  readonly db: BackstoryDB = openMemoryDB('memory', { indexedDB: new IDBFactory(), IDBKeyRange });
  readonly store: MemoryStore;
  constructor(
    readonly name: string,
    public storage: SyncStorage,
    embedder: Embedder | null = textHashEmbedder,
  ) {
    this.store = new MemoryStore(this.db, async () => embedder);
  }
  protected moreDeps(): Partial<SyncDeps> {
    return {};
  }
  get deps(): SyncDeps {
    return { db: this.db, store: this.store, open: async () => this.storage, ...this.moreDeps() };
  }
  connect(passphrase = TEST_PASSPHRASE) {
    return connectVault(this.deps, { place: TEST_PLACE, passphrase, deviceName: this.name, kdf: FAST_KDF });
  }
  pass() {
    return syncPass(this.deps);
  }
  async texts(): Promise<Record<string, string>> {
    return Object.fromEntries((await this.store.all()).map((it) => [it.id, it.text]));
  }
}
