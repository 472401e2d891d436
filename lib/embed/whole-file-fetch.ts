/**
 * A fetch whose responses always say how long they are. Firefox serves moz-extension:// files without a
 * Content-Length, and transformers.js then grows its buffer to each chunk's end, copying everything read so far every
 * time, which makes reading the model slow (docs/benchmarks.md). Such a response is read whole here and handed on with its length.
 */
type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export function lengthKnownFetch(inner: Fetch): Fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.ok || !res.body || res.headers.has('content-length')) return res;
    const body = await res.arrayBuffer();
    const headers = new Headers(res.headers);
    headers.set('content-length', String(body.byteLength));
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
