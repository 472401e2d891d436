// A real WebDAV server for tests and benches: rclone's (`rclone serve webdav`, Debian package rclone; .ci/run
// installs it), serving a new temporary folder on 127.0.0.1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WebdavServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  base: string;
  user: string;
  password: string;
  /** The folder on disk the server serves. */
  dir: string;
  stop(): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}

/** Starts rclone; fails in words when it is not installed (a missing server must not pass for a skipped test). */
export async function startWebdav(user = 'u', password = 'app-password'): Promise<WebdavServer> {
  const dir = mkdtempSync(join(tmpdir(), 'backstory-dav-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // --dir-cache-time 0s: rclone otherwise keeps a folder's listing, and a file written beside it stays unseen.
  const child = spawn('rclone', ['serve', 'webdav', dir, '--addr', `127.0.0.1:${port}`, '--user', user, '--pass', password, '--dir-cache-time', '0s'], {
    stdio: 'ignore',
  });
  const stop = () => {
    if (child.pid && child.exitCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  const spawnError = new Promise<never>((_, fail) =>
    child.once('error', (e: NodeJS.ErrnoException) =>
      fail(new Error(e.code === 'ENOENT'
        ? 'rclone is not installed: this test needs a real WebDAV server. Install it (Debian: apt-get install rclone).'
        : `rclone did not start: ${e.message}`)),
    ),
  );
  const answering = (async () => {
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(base, { method: 'OPTIONS' });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`rclone serve webdav did not answer on ${base} within 10 s`);
  })();
  try {
    await Promise.race([answering, spawnError]);
  } catch (e) {
    stop();
    throw e;
  }
  return { base, user, password, dir, stop };
}
