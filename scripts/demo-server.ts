import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves folders on 127.0.0.1 only: `/demo/...` from roots.demo, and so on for each named root. */
export async function serveStatic(roots: Record<string, string>, port = 0): Promise<{ server: Server; origin: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, mount, ...rest] = url.pathname.split('/');
    const root = roots[mount];
    const file = root ? normalize(join(root, decodeURIComponent(rest.join('/')) || 'index.html')) : '';
    if (!root || !file.startsWith(resolve(root))) {
      res.writeHead(404).end('not found');
      return;
    }
    try {
      const s = await stat(file);
      const path = s.isDirectory() ? join(file, 'index.html') : file;
      const body = await readFile(path);
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const addr = server.address();
  const origin = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : port}`;
  return { server, origin, close: () => new Promise((ok) => server.close(() => ok())) };
}
