// Against a real WebDAV server: rclone's (`rclone serve webdav`, Debian package rclone), started here.
import { mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderReader } from '../../lib/sync/folder-reader';
import { LogForkError, LogWriter } from '../../lib/sync/log-writer';
import { WebDavStorage } from '../../lib/sync/storage-webdav';
import { createVault } from '../../lib/sync/vault';
import { freePort, startWebdav, type WebdavServer } from '../webdav-server';
import type { AddressInfo } from 'node:net';
import { placeProblem } from './sync-fixtures';

let server: WebdavServer;
let dir: string;
let base: string;
const USER = 'u';
const PASS = 'app-password';

beforeAll(async () => {
  server = await startWebdav(USER, PASS);
  ({ dir, base } = server);
}, 20_000);

afterAll(() => server?.stop());

/** The user's folder on the server; it must exist (the user picks or makes it), so a removed one is noticed. */
function place(folder: string, password = PASS): WebDavStorage {
  mkdirSync(join(dir, folder), { recursive: true });
  return new WebDavStorage({ url: `${base}/${folder}`, user: USER, password });
}
const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

const problem = placeProblem;

describe('a WebDAV folder (rclone serve webdav)', () => {
  it('creates files in nested folders, lists, reads and removes them', async () => {
    const s = place('sync one');
    await s.create('backstory-vault-x.json', bytes('{"h":1}'));
    await s.create('backstory/v/log/dev/00000001.bin', bytes('first'));
    await s.create("backstory/v/log/dev/00000001 (Jo's conflicted copy 2026-12-06).bin", bytes('copy'));
    await s.create('backstory/v/snap/dev/00000001.bin', bytes('snapshot!'));
    const listed = (await s.list()).sort((a, b) => (a.path < b.path ? -1 : 1));
    const stamp = expect.any(String);
    expect(listed).toEqual([
      { path: 'backstory-vault-x.json', size: 7, stamp },
      { path: "backstory/v/log/dev/00000001 (Jo's conflicted copy 2026-12-06).bin", size: 4, stamp },
      { path: 'backstory/v/log/dev/00000001.bin', size: 5, stamp },
      { path: 'backstory/v/snap/dev/00000001.bin', size: 9, stamp },
    ]);
    // The server's mark of each file stays the same from one listing to the next.
    expect((await s.list()).sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual(listed);
    expect(text(await s.read('backstory/v/log/dev/00000001.bin'))).toBe('first');
    await s.remove('backstory/v/log/dev/00000001.bin');
    await s.remove('backstory/v/log/dev/00000001.bin'); // already gone: not an error
    expect(await problem(s.read('backstory/v/log/dev/00000001.bin'))).toBe('gone');
    expect((await s.list()).map((e) => e.path)).not.toContain('backstory/v/log/dev/00000001.bin');
    // Written again at the same size, it is listed with another mark.
    await s.create('backstory/v/log/dev/00000001.bin', bytes('other'));
    expect((await s.list()).find((e) => e.path === 'backstory/v/log/dev/00000001.bin')?.stamp).not.toBe(listed[2].stamp);
    // A folder the user names when connecting is made if it is not there (once; later a missing one is gone).
    const fresh = new WebDavStorage({ url: `${base}/made on connect`, user: USER, password: PASS });
    expect(await problem(fresh.list())).toBe('gone');
    await fresh.makeFolder();
    await fresh.makeFolder();
    await fresh.create('x/y.bin', bytes('y'));
    expect(await fresh.list()).toEqual([{ path: 'x/y.bin', size: 1, stamp }]);
    // A path that climbs out of the folder is refused before any request.
    expect(await problem(s.read('../secret'))).toBe('refused');
  });

  it('says a wrong app password, a removed folder, a dead server and a redirect to another site in words', async () => {
    const wrong = place('sync two', 'not-it');
    await expect(wrong.list()).rejects.toThrow('did not accept the user name and app password');
    expect(await problem(wrong.create('a.bin', bytes('x')))).toBe('auth');

    const s = place('sync two');
    await s.create('a/b.bin', bytes('x'));
    rmSync(join(dir, 'sync two'), { recursive: true });
    await expect(s.list()).rejects.toThrow(/no longer on the WebDAV server/);
    expect(await problem(s.list())).toBe('gone');
    await expect(s.create('a/c.bin', bytes('x'))).rejects.toThrow(/no longer on the WebDAV server/);

    const dead = new WebDavStorage({ url: `http://127.0.0.1:${await freePort()}/x`, user: USER, password: PASS });
    await expect(dead.list()).rejects.toThrow(/cannot be reached/);
    expect(await problem(dead.read('a.bin'))).toBe('offline');

    // A server that sends every request to another origin: the credentials are not taken there.
    let followed = 0;
    const target = http.createServer((_, res) => {
      followed++;
      res.end();
    });
    await new Promise<void>((ok) => target.listen(0, '127.0.0.1', ok));
    const elsewhere = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    const redirector = http.createServer((_, res) => res.writeHead(307, { Location: elsewhere }).end());
    await new Promise<void>((ok) => redirector.listen(0, '127.0.0.1', ok));
    const r = new WebDavStorage({ url: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/dav`, user: USER, password: PASS });
    await expect(r.list()).rejects.toThrow(/sync does not follow it there/);
    expect(await problem(r.create('a.bin', bytes('x')))).toBe('refused');
    expect(followed).toBe(0);
    redirector.close();
    target.close();

    // A server that answers a read with more than any sealed file, with or without saying so beforehand.
    const flood = http.createServer((req, res) => {
      if (req.url?.includes('declared')) res.writeHead(200, { 'Content-Length': '4096' });
      else res.writeHead(200);
      res.end(Buffer.alloc(4096, 1));
    });
    await new Promise<void>((ok) => flood.listen(0, '127.0.0.1', ok));
    const f = new WebDavStorage({ url: `http://127.0.0.1:${(flood.address() as AddressInfo).port}/`, user: USER, password: PASS, maxFileBytes: 1024 });
    await expect(f.read('declared.bin')).rejects.toThrow(/larger than any file of Backstory's/);
    await expect(f.read('chunked.bin')).rejects.toThrow(/larger than any file of Backstory's/);
    const roomy = new WebDavStorage({ url: `http://127.0.0.1:${(flood.address() as AddressInfo).port}/`, user: USER, password: PASS, maxFileBytes: 8192 });
    expect((await roomy.read('chunked.bin')).length).toBe(4096);
    flood.close();
  });

  it('gives up on a server that stops answering, in words, and waits for one that is slow but sending', async () => {
    // Accepts every request; then never answers, stops halfway through a file, or sends it a piece at a time.
    const held: http.ServerResponse[] = [];
    const stalling = http.createServer((req, res) => {
      held.push(res);
      if (req.url?.includes('silent')) return;
      res.writeHead(200);
      if (req.url?.includes('halfway')) return void res.write(Buffer.alloc(10, 1));
      let sent = 0;
      const tick = setInterval(() => {
        res.write(Buffer.alloc(10, 2));
        if (++sent === 6) {
          clearInterval(tick);
          res.end();
        }
      }, 100);
    });
    await new Promise<void>((ok) => stalling.listen(0, '127.0.0.1', ok));
    const at = (path: string) => new WebDavStorage({ url: `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/${path}`, user: USER, password: PASS, stallMs: 300 });
    await expect(at('silent/').list()).rejects.toThrow(/did not answer for a while; Backstory tries again later/);
    const s = at('');
    expect(await problem(s.read('silent.bin'))).toBe('offline');
    expect(await problem(s.create('silent.bin', bytes('x')))).toBe('offline');
    expect(await problem(s.read('halfway.bin'))).toBe('offline');
    // 600 ms in all, never 300 ms without a piece.
    expect((await s.read('slow.bin')).length).toBe(60);
    for (const r of held) r.destroy();
    stalling.close();
  });

  it('If-None-Match: * on create: rclone replaces the file anyway, so the log writer reads before it writes', async () => {
    const s = place('sync three');
    await s.create('f.bin', bytes('one'));
    const second = await problem(s.create('f.bin', bytes('two')));
    const now = text(await s.read('f.bin'));
    // rclone 1.60 (Debian 12) ignores the header: no error and the file replaced. A server that honours it keeps 'one'.
    expect([[second, now]]).toContainEqual(second === 'exists' ? ['exists', 'one'] : ['none', 'two']);
    expect(second).toBe('none');

    const { vault } = await createVault('a passphrase', { memoryKiB: 8192, iterations: 1, parallelism: 1 });
    const device = 'dddddddddddddddddddddddddd';
    const writer = new LogWriter(s, vault, device);
    await writer.join('Laptop');
    const first = await writer.prepare(undefined, {}, [{ id: 'i', field: 'text', value: 'v', stamp: 's', base: [] }]);
    await writer.write(first);
    await writer.write(first); // a retry of a write that landed
    const other = await writer.prepare(undefined, {}, []);
    await expect(writer.write(other)).rejects.toBeInstanceOf(LogForkError);
    const read = await new FolderReader(s, vault).read({});
    expect(read.segments.map((x) => x.hash)).toEqual([first.hash]);
    expect(read.devices[device].name).toBe('Laptop');
    expect(read.problems).toEqual([]);
  });
});
