// A WebDAV folder as a sync place (Nextcloud, ownCloud, Synology, rclone, a home server): Basic auth with an app
// password, PROPFIND Depth 1 folder by folder (Depth infinity is often disabled), GET, PUT with If-None-Match: *
// (which not every server honours; nothing relies on it), MKCOL of missing folders, DELETE. Redirects are followed
// only within the same origin, so credentials never go to another site.
import { concatBytes } from '../core/concat-bytes';
import { SEAL_LIMITS } from './seal';
import { parseMultistatus } from './webdav-listing';
import { SyncPlaceError, type SyncFileEntry, type SyncStorage } from './types';

export interface WebDavOptions {
  /** The folder's URL. */
  url: string;
  user: string;
  /** An app password, not the account's. */
  password: string;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
  /** The largest file read; by default the largest sealed file. */
  maxFileBytes?: number;
  /** How long a request may go without an answer or a piece of its body (`STALL_MS` unless given; tests wait less). */
  stallMs?: number;
}

/**
 * A server that accepts a request and then sends nothing for this long (no answer, or a body that stopped) is given
 * up on: a pass waiting on it held every later pass back, and the status said "Syncing…" until the browser restarted.
 */
export const STALL_MS = 60_000;
/** On top, for a request that sends a file: its bytes at 8 KB/s (a slow uplink), since nothing answers before they are up. */
const UPLOAD_BYTES_PER_MS = 8;

const MAX_REDIRECTS = 5;
const MAX_DEPTH = 8;
/** The largest sealed file (a snapshot, lib/sync/seal.ts) and its prefix. */
const MAX_FILE_BYTES = SEAL_LIMITS.snapshot.sealed + 1024;

function basic(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return `Basic ${btoa(s)}`;
}

export class WebDavStorage implements SyncStorage {
  private readonly root: URL;
  private readonly auth: string;
  private readonly fetcher: typeof fetch;
  private readonly maxFile: number;
  private readonly stallMs: number;
  private dated?: { place: number; local: number };

  constructor(options: WebDavOptions) {
    const url = new URL(options.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SyncPlaceError('refused', 'A WebDAV address starts with https://.');
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    url.hash = '';
    url.search = '';
    this.root = url;
    this.auth = basic(options.user, options.password);
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
    this.maxFile = options.maxFileBytes ?? MAX_FILE_BYTES;
    this.stallMs = options.stallMs ?? STALL_MS;
  }

  placeTime(): { place: number; local: number } | undefined {
    return this.dated;
  }

  private urlOf(path: string): URL {
    if (path.split('/').some((p) => p === '..' || p === '.' || p === '')) throw new SyncPlaceError('refused', `Not a path in the folder: ${path}`);
    return new URL(path.split('/').map(encodeURIComponent).join('/'), this.root);
  }

  private folderUrl(path: string): URL {
    return new URL(`${this.urlOf(path).href}/`);
  }

  /** One request, following same-origin redirects only; network failure and the server's refusals in words. */
  private async send(url: URL, init: RequestInit & { headers?: Record<string, string> }): Promise<Response> {
    let at = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const ctl = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => ctl.abort(), ms);
      };
      const sending = init.body instanceof Uint8Array ? init.body.length : 0;
      arm(this.stallMs + sending / UPLOAD_BYTES_PER_MS);
      let res: Response;
      try {
        res = await this.fetcher(at, {
          ...init,
          headers: { ...init.headers, Authorization: this.auth },
          redirect: 'manual',
          credentials: 'omit',
          cache: 'no-store',
          signal: ctl.signal,
        });
      } catch {
        clearTimeout(timer);
        throw ctl.signal.aborted ? this.stalled() : new SyncPlaceError('offline', `The WebDAV server at ${this.root.host} cannot be reached; Backstory tries again later.`);
      }
      res = this.watched(res, ctl, arm, () => clearTimeout(timer));
      const date = Date.parse(res.headers.get('date') ?? '');
      if (Number.isFinite(date)) this.dated = { place: date, local: Date.now() };
      if (res.type === 'opaqueredirect') {
        throw new SyncPlaceError('refused', `The WebDAV server at ${this.root.host} sent Backstory elsewhere; sync does not follow it.`);
      }
      if (res.status < 300 || res.status >= 400 || res.status === 304) return res;
      const location = res.headers.get('location');
      const next = location ? new URL(location, at) : undefined;
      await res.body?.cancel();
      if (!next || next.origin !== this.root.origin) {
        throw new SyncPlaceError(
          'refused',
          `The WebDAV server at ${this.root.host} sent Backstory to ${next?.host ?? 'another address'}; sync does not follow it there.`,
        );
      }
      at = next;
    }
    throw new SyncPlaceError('refused', `The WebDAV server at ${this.root.host} redirects in circles.`);
  }

  private stalled(): SyncPlaceError {
    return new SyncPlaceError('offline', `The WebDAV server at ${this.root.host} did not answer for a while; Backstory tries again later.`);
  }

  /**
   * The answer with its body watched: each piece that arrives gives the server `stallMs` more, and a body that stops
   * ends in the same words as no answer at all.
   */
  private watched(res: Response, ctl: AbortController, arm: (ms: number) => void, disarm: () => void): Response {
    if (!res.body || res.type === 'opaqueredirect' || [101, 204, 205, 304].includes(res.status)) {
      disarm();
      return res;
    }
    arm(this.stallMs);
    const source = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (out) => {
        try {
          const { done, value } = await source.read();
          if (done) {
            disarm();
            out.close();
          } else {
            arm(this.stallMs);
            out.enqueue(value);
          }
        } catch (e) {
          disarm();
          out.error(ctl.signal.aborted ? this.stalled() : e);
        }
      },
      cancel: (reason) => {
        disarm();
        return source.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /** Throws the SyncPlaceError a failed answer means. `what` names the file or folder. */
  private async fail(res: Response, what: string): Promise<never> {
    await res.body?.cancel();
    const host = this.root.host;
    switch (res.status) {
      case 401:
        throw new SyncPlaceError('auth', `The WebDAV server at ${host} did not accept the user name and app password.`);
      case 403:
        throw new SyncPlaceError('auth', `The WebDAV server at ${host} does not let this user change ${what}.`);
      case 404:
      case 410:
        throw new SyncPlaceError('gone', `${what} is not on the WebDAV server at ${host}.`);
      case 412:
        throw new SyncPlaceError('exists', `${what} is already on the WebDAV server.`);
      case 507:
        throw new SyncPlaceError('full', `The WebDAV server at ${host} is out of space.`);
      default:
        throw new SyncPlaceError('refused', `The WebDAV server at ${host} refused ${what} (HTTP ${res.status}).`);
    }
  }

  async list(): Promise<SyncFileEntry[]> {
    const out: SyncFileEntry[] = [];
    const rootPath = decodeURIComponent(this.root.pathname);
    const walk = async (url: URL, depth: number): Promise<void> => {
      const res = await this.send(url, {
        method: 'PROPFIND',
        headers: { Depth: '1', 'Content-Type': 'application/xml; charset=utf-8' },
        body: '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getetag/><d:getlastmodified/></d:prop></d:propfind>',
      });
      if (res.status !== 207) {
        if (res.status === 404 && url.href === this.root.href) {
          await res.body?.cancel();
          throw new SyncPlaceError('gone', `The folder ${rootPath} is no longer on the WebDAV server at ${this.root.host}.`);
        }
        if (res.status === 404) return void (await res.body?.cancel());
        await this.fail(res, 'the sync folder');
      }
      const here = decodeURIComponent(url.pathname);
      let entries;
      try {
        entries = parseMultistatus(await res.text(), url.href);
      } catch (e) {
        throw new SyncPlaceError('refused', e instanceof Error ? e.message : String(e));
      }
      for (const e of entries) {
        const p = e.path.endsWith('/') ? e.path : e.folder ? `${e.path}/` : e.path;
        // The folder itself, and anything outside it a server might list, are skipped.
        if (p === here || !p.startsWith(here) || !p.startsWith(rootPath)) continue;
        const rel = p.slice(rootPath.length);
        if (e.folder) {
          if (depth < MAX_DEPTH) await walk(this.folderUrl(rel.slice(0, -1)), depth + 1);
        } else {
          out.push({ path: rel, size: e.size, ...(e.stamp ? { stamp: e.stamp } : {}) });
        }
      }
    };
    await walk(this.root, 0);
    return out;
  }

  async read(path: string): Promise<Uint8Array> {
    const res = await this.send(this.urlOf(path), { method: 'GET' });
    if (!res.ok) await this.fail(res, path);
    // The server is not trusted with sizes either: a body past the largest sealed file is cut off, unread.
    const tooLarge = () => new SyncPlaceError('refused', `${path} on the WebDAV server is larger than any file of Backstory's.`);
    if (Number(res.headers.get('content-length') ?? 0) > this.maxFile) {
      await res.body?.cancel();
      throw tooLarge();
    }
    if (!res.body) return new Uint8Array(0);
    const parts: Uint8Array[] = [];
    let total = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > this.maxFile) {
        await reader.cancel();
        throw tooLarge();
      }
      parts.push(value);
    }
    return concatBytes(parts, total);
  }

  /**
   * Makes the folder itself if it is not there, when the user connects to it (afterwards a missing folder is
   * reported as gone, never made again). Its parent must exist.
   */
  async makeFolder(): Promise<void> {
    const res = await this.send(this.root, { method: 'MKCOL' });
    await res.body?.cancel();
    if (res.ok || res.status === 405) return;
    if (res.status === 409) {
      throw new SyncPlaceError('gone', `The folder that should hold ${decodeURIComponent(this.root.pathname)} is not on the WebDAV server at ${this.root.host}.`);
    }
    await this.fail(res, 'the sync folder');
  }

  async create(path: string, bytes: Uint8Array): Promise<void> {
    const put = () =>
      this.send(this.urlOf(path), {
        method: 'PUT',
        headers: { 'If-None-Match': '*', 'Content-Type': 'application/octet-stream' },
        body: bytes as Uint8Array<ArrayBuffer>,
      });
    let res = await put();
    // A missing parent folder: 409 by RFC 4918, 404 from some servers (rclone).
    if (res.status === 409 || res.status === 404) {
      await res.body?.cancel();
      await this.makeFolders(path);
      res = await put();
    }
    if (!res.ok) await this.fail(res, path);
    await res.body?.cancel();
  }

  /** MKCOL of each folder on a file's path, from the top; one that exists already (405) is fine. */
  private async makeFolders(path: string): Promise<void> {
    const parts = path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const res = await this.send(this.folderUrl(parts.slice(0, i).join('/')), { method: 'MKCOL' });
      await res.body?.cancel();
      if (res.ok || res.status === 405) continue;
      if (res.status === 404 || res.status === 409) {
        throw new SyncPlaceError('gone', `The folder ${decodeURIComponent(this.root.pathname)} is no longer on the WebDAV server at ${this.root.host}.`);
      }
      await this.fail(res, parts.slice(0, i).join('/'));
    }
  }

  async remove(path: string): Promise<void> {
    const res = await this.send(this.urlOf(path), { method: 'DELETE' });
    if (res.ok || res.status === 404) return void (await res.body?.cancel());
    await this.fail(res, path);
  }
}
