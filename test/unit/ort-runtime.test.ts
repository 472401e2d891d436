import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORT_WASM_PATH } from '../../lib/embed/embedder';

// The onnxruntime build the extension ships. The WebGPU-capable builds carry all static constructors in one function
// of 0.96-1.26 MB; V8 tiers it up to TurboFan after its one run, which took a core for about a minute and 700 MB, and
// kept the extension process's thread pool so busy that the side panel (same process) stayed blank for 15-45 s.
const ROOT = resolve(import.meta.dirname, '..', '..');
const ORT_DIST = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');
const shipped = basename(ORT_WASM_PATH);

/** Body size in bytes of the function a module exports under `name` (imports counted in the function index space). */
function exportedFunctionSize(wasm: Buffer, name: string): number {
  let p = 8;
  const u = () => {
    let r = 0;
    let s = 0;
    let x: number;
    do {
      x = wasm[p++];
      r += (x & 0x7f) * 2 ** s;
      s += 7;
    } while (x & 0x80);
    return r;
  };
  const skip = () => {
    const len = u();
    p += len;
  };
  let imports = 0;
  let index = -1;
  const sizes: number[] = [];
  while (p < wasm.length) {
    const id = wasm[p++];
    const end = u() + p;
    if (id === 2) {
      for (let n = u(); n > 0; n--) {
        skip();
        skip();
        const kind = wasm[p++];
        const limits = () => (wasm[p++] & 1 ? (u(), u()) : u()); // flags, minimum, maximum if flagged
        if (kind === 0) (u(), imports++); // function: type index
        else if (kind === 1) (p++, limits()); // table: element type, limits
        else if (kind === 2) limits(); // memory
        else if (kind === 3) p += 2; // global: value type, mutability
        else if (kind === 4) (p++, u()); // tag: attribute, type index
      }
    } else if (id === 7) {
      for (let n = u(); n > 0; n--) {
        const len = u();
        const exported = wasm.subarray(p, p + len).toString();
        p += len;
        const kind = wasm[p++];
        const i = u();
        if (kind === 0 && exported === name) index = i;
      }
    } else if (id === 10) {
      for (let n = u(); n > 0; n--) {
        const size = u();
        sizes.push(size);
        p += size;
      }
    }
    p = end;
  }
  if (index < imports) throw new Error(`${name} is not a function defined in the module`);
  return sizes[index - imports];
}

describe('the onnxruntime build the extension ships', () => {
  it('is the WASM-only build, the only .wasm copied for the extension', () => {
    expect(shipped).toBe('ort-wasm-simd-threaded.wasm');
    const dir = join(ROOT, 'public', 'ort');
    expect(existsSync(dir), 'public/ort is made by `npm install` (scripts/install-assets.mjs)').toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.wasm'))).toEqual([shipped]);
  });

  it('runs its static constructors in a small function, not one V8 spends a minute optimising', () => {
    // The runtime's glue starts it with `<exports>.<name>()` right after instantiating (Emscripten's initRuntime).
    const glue = readFileSync(join(ORT_DIST, shipped.replace(/\.wasm$/, '.mjs')), 'utf8');
    const call = /function \w+\(\)\{\w+=!0;\w+\?\w+\(\):\w+\.(\w+)\(\)\}/.exec(glue);
    expect(call, 'initRuntime not found in the glue: re-check this test against the new onnxruntime-web').not.toBeNull();
    const ctorBytes = exportedFunctionSize(readFileSync(join(ORT_DIST, shipped)), call![1]);
    expect(ctorBytes).toBeLessThan(64 * 1024);
    // The check itself can fail: the WebGPU build's constructor function is the 1.26 MB one.
    const webgpuGlue = readFileSync(join(ORT_DIST, 'ort-wasm-simd-threaded.asyncify.mjs'), 'utf8');
    const webgpuCtor = /function \w+\(\)\{\w+=!0;\w+\?\w+\(\):\w+\.(\w+)\(\)\}/.exec(webgpuGlue)![1];
    expect(exportedFunctionSize(readFileSync(join(ORT_DIST, 'ort-wasm-simd-threaded.asyncify.wasm')), webgpuCtor)).toBeGreaterThan(1_000_000);
  });
});
