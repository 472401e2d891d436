import { describe, expect, it } from 'vitest';
import { syncStatusText } from '../../lib/ui/options/sync-status-text';
import { webdavOrigin } from '../../lib/sync/webdav-origin';

const NOW = 1_780_000_000_000;

describe('the sync status line', () => {
  it('says when it last synced and with how many devices, or that it is off', () => {
    expect(syncStatusText(undefined)).toBe('Sync is off: this memory is only on this device.');
    expect(syncStatusText({ state: 'synced', lastSyncedAt: NOW - 2 * 60_000, devices: 3 }, NOW)).toBe('Synced 2 minutes ago · 3 devices');
    expect(syncStatusText({ state: 'synced', lastSyncedAt: NOW, devices: 1 }, NOW)).toBe('Synced just now · only this device so far');
  });

  it('puts the problem and what to do first when sync stopped, and counts memories with two versions', () => {
    expect(syncStatusText({ state: 'error', problem: 'cloud.example.com refused the user or app password: enter the right one under "Change the app password".' }, NOW))
      .toBe('cloud.example.com refused the user or app password: enter the right one under "Change the app password".');
    expect(syncStatusText({ state: 'synced', lastSyncedAt: NOW, devices: 2, revisions: 2 }, NOW)).toContain('2 memories have two versions');
    expect(syncStatusText({ state: 'syncing', progress: { done: 2000, total: 10000 } }, NOW)).toBe('Syncing… 2,000 of 10,000 memories');
  });
});

describe('the WebDAV address', () => {
  it('asks permission for that one origin and keeps the folder with a trailing slash', () => {
    expect(webdavOrigin(' https://cloud.example.com/remote.php/dav/files/me/Backstory ')).toEqual({
      ok: true, url: 'https://cloud.example.com/remote.php/dav/files/me/Backstory/', host: 'cloud.example.com', pattern: 'https://cloud.example.com/*',
    });
  });

  it('refuses a password in the address, plain http to another machine, and what is no web address', () => {
    expect(webdavOrigin('https://me:secret@cloud.example.com/dav/')).toMatchObject({ ok: false, error: expect.stringContaining('own fields') });
    expect(webdavOrigin('http://cloud.example.com/dav/')).toMatchObject({ ok: false, error: expect.stringContaining('https://') });
    expect(webdavOrigin('http://127.0.0.1:8080/dav/')).toMatchObject({ ok: true, pattern: 'http://127.0.0.1/*' });
    expect(webdavOrigin('ftp://cloud.example.com/')).toMatchObject({ ok: false });
    expect(webdavOrigin('cloud dot example')).toMatchObject({ ok: false });
  });
});
