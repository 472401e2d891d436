// A real WebDAV server for tests and benches: rclone's (`rclone serve webdav`, Debian package rclone; .ci/run
// installs it), serving a new temporary folder on 127.0.0.1.
import { spawn, type ChildProcess } from 'node:child_process';
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
  /** The same folder at the same address with another password (as a user changes an app password): the old one is refused. */
  changePassword(password: string): Promise<void>;
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
  let child: ChildProcess | undefined;
  const kill = () => {
    if (child?.pid && child.exitCode === null) child.kill();
  };
  const launch = async (pass: string) => {
    // --dir-cache-time 0s: rclone otherwise keeps a folder's listing, and a file written beside it stays unseen.
    const started = spawn('rclone', ['serve', 'webdav', dir, '--addr', `127.0.0.1:${port}`, '--user', user, '--pass', pass, '--dir-cache-time', '0s'], {
      stdio: 'ignore',
    });
    child = started;
    const spawnError = new Promise<never>((_, fail) =>
      started.once('error', (e: NodeJS.ErrnoException) =>
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
    await Promise.race([answering, spawnError]);
  };
  const server: WebdavServer = {
    base, user, password, dir,
    stop: () => {
      kill();
      rmSync(dir, { recursive: true, force: true });
    },
    async changePassword(next) {
      const old = child;
      kill();
      if (old && old.exitCode === null) await new Promise((ok) => old.once('exit', ok));
      await launch(next);
      server.password = next;
    },
  };
  try {
    await launch(password);
  } catch (e) {
    server.stop();
    throw e;
  }
  return server;
}
