import { describe, expect, it } from 'vitest';
import { lengthKnownFetch } from '../../lib/embed/whole-file-fetch';

/** A file served the way Firefox serves moz-extension:// files: streamed in chunks, no Content-Length. */
function streamed(bytes: Uint8Array, chunk = 1000): Response {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, (at += chunk)));
    },
  });
  return new Response(body, { status: 200 });
}

describe('model files fetched for transformers.js', () => {
  const bytes = Uint8Array.from({ length: 25_000 }, (_, i) => (i * 7) % 256);

  it('say how long they are when the browser did not, with every byte intact', async () => {
    expect(streamed(bytes).headers.get('content-length')).toBeNull();
    const res = await lengthKnownFetch(async () => streamed(bytes))('moz-extension://x/models/model.onnx');
    expect(res.headers.get('content-length')).toBe('25000');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it('pass through untouched when the length is known or the file is missing', async () => {
    const known = new Response(bytes, { headers: { 'content-length': '25000' } });
    expect(await lengthKnownFetch(async () => known)('x')).toBe(known);
    const missing = new Response('not found', { status: 404 });
    expect(await lengthKnownFetch(async () => missing)('x')).toBe(missing);
  });
});
