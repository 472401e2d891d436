import { browser } from 'wxt/browser';
import type { BackstoryDB } from '../memory/db';
import type { MemoryStore } from '../memory/store';
import type { PanelPush, SyncConnectPlace, SyncStatus } from '../messaging/protocol';
import { forgetDevice, readDevice, writeDevice, type DeviceState, type SyncPlace } from '../sync/device';
import { connectVault, syncPass, type SyncDeps } from '../sync/engine';
import { folderPermission, forgetFolder, keptFolder } from '../sync/folder-pick';
import { dismissRevisions, revisionsOf } from '../sync/revisions';
import { FolderStorage } from '../sync/storage-folder';
import { WebDavStorage } from '../sync/storage-webdav';
import { SyncPlaceError, type SyncStorage } from '../sync/types';
import { heldSyncOrigins, setSyncOrigins } from '../sites/sync-host';
import { webdavOrigin } from '../sync/webdav-origin';
import type { SettingsCache } from './settings-cache';
import { syncedSettingsIO, type SyncedParts } from './synced-settings';

/** The alarm that syncs while the browser runs, and its period. */
export const SYNC_ALARM = 'backstory-sync';
const PERIOD_MINUTES = 5;
/** A change is synced this long after the last one of a burst (an import, typing in the editor). */
const DEBOUNCE_MS = 4_000;

export interface SyncServiceDeps {
  db: BackstoryDB;
  store: MemoryStore;
  settings: SettingsCache;
  broadcast: (push: PanelPush) => void;
  /** Panels rank again (memory changed). */
  refresh: () => void;
  /** Background embedding of what arrived. */
  index: () => void;
  /** Learning's synced value, and what other devices' merged to (feedback events as a union). */
  learning: SyncedParts['learning'];
  /** The sites allowed here, suggested on the other devices. */
  sites: SyncedParts['sites'];
  /** The content script follows a change of the sites it may read. */
  sitesChanged: (change: { added?: string[]; removed?: string[] }) => Promise<void>;
}

/**
 * Sync in the service worker: connect, passes on change (debounced), on an alarm and on demand, one at a time, and
 * the status in words. A pass keeps every step in IndexedDB (lib/sync/engine.ts), so MV3 stopping the worker mid-pass
 * loses nothing: the next start's pass goes on from there.
 */
export class SyncService {
  private running?: Promise<SyncStatus>;
  private again = false;
  private timer?: ReturnType<typeof setTimeout>;
  private progress?: { done: number; total: number };
  private syncing = false;

  constructor(private readonly s: SyncServiceDeps) {}

  private deps(): SyncDeps {
    return {
      db: this.s.db,
      store: this.s.store,
      open: (place) => openPlace(place),
      settings: syncedSettingsIO({ settings: this.s.settings, learning: this.s.learning, sites: this.s.sites }),
      onProgress: (done, total) => {
        this.progress = { done, total };
        void this.push();
      },
    };
  }

  async status(): Promise<SyncStatus> {
    const dev = await readDevice(this.s.db);
    if (!dev) return { state: 'off' };
    return statusOf(dev, this.syncing, this.progress);
  }

  /**
   * `readsHost`: the user let Backstory read the WebDAV server's site before connecting (the options page asks before
   * the browser's grant). Otherwise its origin is granted for sync alone: its pages are not read, and Disconnect gives
   * the grant back. Reading it stays the user's choice: connecting neither starts nor stops it.
   */
  async connect(place: SyncConnectPlace, passphrase: string, readsHost = false): Promise<{ status: SyncStatus; recoveryKey?: string }> {
    const full = await placeOf(place);
    if (full.kind === 'webdav') {
      const o = webdavOrigin(full.url);
      if (o.ok && !readsHost) {
        await setSyncOrigins([o.pattern]);
        // The grant may have reached the content script's registration before this call: taken out again.
        await this.s.sitesChanged({ removed: [o.pattern] });
      }
    }
    const { recoveryKey } = await connectVault({ db: this.s.db, open: openPlace }, {
      place: full, passphrase, deviceName: deviceName(),
    });
    await this.schedule();
    return { status: await this.now(), recoveryKey };
  }

  /**
   * Another user name or app password for this device's WebDAV server, kept once the server lists the folder with it:
   * the same device goes on (disconnecting and connecting again would make a new one, and send the whole memory).
   */
  async login(user: string, password: string): Promise<SyncStatus> {
    const dev = await readDevice(this.s.db);
    if (dev?.place.kind !== 'webdav') throw new Error('Sync on this device does not go through a WebDAV server.');
    const place: SyncPlace = { ...dev.place, user, password };
    // Throws in words: refused again, the folder gone, the server down.
    await openPlace(place).then((storage) => storage.list());
    await this.running?.catch(() => {});
    const now = await readDevice(this.s.db);
    if (!now) return this.status();
    await writeDevice(this.s.db, { ...now, place, failure: undefined, reconnect: undefined });
    return this.now();
  }

  /** A pass now (or right after the one running). */
  now(): Promise<SyncStatus> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.now();
      }
    });
    return this.running;
  }

  private async run(): Promise<SyncStatus> {
    const dev = await readDevice(this.s.db);
    if (!dev) return { state: 'off' };
    this.syncing = true;
    this.progress = undefined;
    await this.push();
    try {
      const report = await syncPass(this.deps());
      if (report?.written) {
        this.s.refresh();
        this.s.index();
      }
    } catch (e) {
      const now = await readDevice(this.s.db);
      if (now) {
        now.failure = problemWords(e, now.place);
        now.reconnect = e instanceof SyncPlaceError && e.problem === 'permission';
        await writeDevice(this.s.db, now);
      }
    } finally {
      this.syncing = false;
      this.progress = undefined;
    }
    return this.push();
  }

  private async push(): Promise<SyncStatus> {
    const status = await this.status();
    this.s.broadcast({ type: 'sync', status });
    return status;
  }

  /** Memory or settings changed: sync soon, once the burst is over. */
  changed(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void readDevice(this.s.db).then((dev) => dev && this.now());
    }, DEBOUNCE_MS);
  }

  /** On worker start: the alarm, and a pass to finish what a stopped worker left. */
  async start(): Promise<void> {
    if (!(await readDevice(this.s.db))) return;
    await this.schedule();
    void this.now();
  }

  private async schedule(): Promise<void> {
    await browser.alarms.create(SYNC_ALARM, { periodInMinutes: PERIOD_MINUTES });
  }

  async revisions(id: string): Promise<{ texts: string[] }> {
    return { texts: (await readDevice(this.s.db)) ? await revisionsOf(this.s.db, id) : [] };
  }

  async dismissRevisions(id: string): Promise<SyncStatus> {
    await dismissRevisions(this.s.db, id);
    return this.now();
  }

  /** Stops syncing here: the memory stays, the files at the place stay, this device's sync records go. */
  async disconnect(): Promise<SyncStatus> {
    const dev = await readDevice(this.s.db);
    await this.running?.catch(() => {});
    await forgetDevice(this.s.db);
    await browser.alarms.clear(SYNC_ALARM);
    if (dev?.place.kind === 'folder') await forgetFolder();
    if (dev?.place.kind === 'webdav') {
      // Given back only when it was granted for sync alone: a site the user reads stays read.
      const o = webdavOrigin(dev.place.url);
      if (o.ok && (await heldSyncOrigins()).includes(o.pattern)) await browser.permissions.remove({ origins: [o.pattern] }).catch(() => false);
    }
    await setSyncOrigins([]);
    return this.push();
  }
}

/** The name other devices see for this one ("Chrome on Linux"), kept sealed in its device file. */
function deviceName(): string {
  const ua = navigator.userAgent;
  const browserName = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : 'Chrome';
  const os = /Windows/.test(ua) ? 'Windows' : /Mac OS X/.test(ua) ? 'macOS' : /CrOS/.test(ua) ? 'ChromeOS' : /Linux/.test(ua) ? 'Linux' : 'this computer';
  return `${browserName} on ${os}`;
}

async function placeOf(place: SyncConnectPlace): Promise<SyncPlace> {
  if (place.kind === 'webdav') {
    const o = webdavOrigin(place.url);
    if (!o.ok) throw new Error(o.error);
    if (!place.user || !place.password) throw new Error('Enter the WebDAV user and app password.');
    return { kind: 'webdav', url: o.url, user: place.user, password: place.password };
  }
  const handle = await keptFolder();
  if (!handle) throw new Error('Choose the folder first.');
  return { kind: 'folder', name: handle.name };
}

async function openPlace(place: SyncPlace): Promise<SyncStorage> {
  if (place.kind === 'webdav') return new WebDavStorage({ url: place.url, user: place.user, password: place.password });
  const handle = await keptFolder();
  if (!handle) throw new SyncPlaceError('gone', `The folder “${place.name}” is no longer known to this browser: disconnect and choose it again.`);
  if ((await folderPermission(handle)) !== 'granted') {
    throw new SyncPlaceError('permission', `The browser asks again before Backstory may use the folder “${place.name}”: click Reconnect folder.`);
  }
  return new FolderStorage(handle);
}

function statusOf(dev: DeviceState, syncing: boolean, progress?: { done: number; total: number }): SyncStatus {
  const place: SyncStatus['place'] = dev.place.kind === 'webdav' ? { kind: 'webdav', url: dev.place.url, user: dev.place.user } : { kind: 'folder', name: dev.place.name };
  const reconnect = !!dev.failure && !!dev.reconnect;
  return {
    // Connected but no pass finished yet (the first is about to run): not "synced", nothing was.
    state: syncing ? 'syncing' : dev.failure ? 'error' : dev.lastSyncedAt ? 'synced' : 'syncing',
    place,
    lastSyncedAt: dev.lastSyncedAt,
    devices: dev.devices,
    problem: dev.failure ?? dev.notice,
    reconnect,
    progress,
    revisions: dev.revisions?.length || undefined,
  };
}

/** A failed pass in the user's words: what is wrong and what to do. */
function problemWords(e: unknown, place: SyncPlace): string {
  const where = place.kind === 'webdav' ? new URL(place.url).host : `the folder “${place.name}”`;
  if (e instanceof SyncPlaceError) {
    switch (e.problem) {
      case 'auth':
        return `${where} refused the user or app password: enter the right one under "Change the app password".`;
      case 'offline':
        return `${where} cannot be reached: sync goes on when it can be.`;
      case 'full':
        return `${where} is full: make room there, and sync goes on.`;
      default:
        return e.message;
    }
  }
  return `Sync stopped: ${e instanceof Error ? e.message : String(e)}`;
}
