import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORT_WASM_PATH, ORT_WEBGPU_WASM_PATH } from '../../lib/embed/embedder';

// The onnxruntime builds the extension ships. The asyncify WebGPU build carries all static constructors in one
// function of 0.96-1.26 MB; V8 tiers it up to TurboFan after its one run, which took a core for about a minute and
// 700 MB, and kept the extension process's thread pool so busy that the side panel (same process) stayed blank for
// 15-45 s. The WASM-only build runs everywhere; the JSPI WebGPU build only in the offscreen WebGPU engine.
const ROOT = resolve(import.meta.dirname, '..', '..');
const ORT_DIST = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');
const shipped = basename(ORT_WASM_PATH);
const webgpu = basename(ORT_WEBGPU_WASM_PATH);

/** The export the runtime's glue calls right after instantiating (Emscripten's initRuntime). */
function constructorExport(glueFile: string): string {
  const glue = readFileSync(join(ORT_DIST, glueFile), 'utf8');
  const call = /function \w+\(\)\{\w+=!0;\w+\?\w+\(\):\w+\.(\w+)\(\)\}/.exec(glue);
  if (!call) throw new Error(`initRuntime not found in ${glueFile}: re-check this test against the new onnxruntime-web`);
  return call[1];
}

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
        if (kind === 0) {
          u(); // function: type index
          imports++;
        } else if (kind === 1) {
          p++; // table: element type, limits
          limits();
        } else if (kind === 2) limits(); // memory
        else if (kind === 3) p += 2; // global: value type, mutability
        else if (kind === 4) {
          p++; // tag: attribute, type index
          u();
        }
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

describe('the onnxruntime builds the extension ships', () => {
  it('are the WASM-only build and the JSPI WebGPU build, the only .wasm files copied for the extension', () => {
    expect(shipped).toBe('ort-wasm-simd-threaded.wasm');
    expect(webgpu).toBe('ort-wasm-simd-threaded.jspi.wasm');
    const dir = join(ROOT, 'public', 'ort');
    expect(existsSync(dir), 'public/ort is made by `npm install` (scripts/install-assets.mjs)').toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.wasm')).sort()).toEqual([shipped, webgpu].sort());
  });

  it('run the worker, panel and WASM engines on a runtime whose static constructors V8 does not spend a minute optimising', () => {
    const ctor = constructorExport(shipped.replace(/\.wasm$/, '.mjs'));
    expect(exportedFunctionSize(readFileSync(join(ORT_DIST, shipped)), ctor)).toBeLessThan(64 * 1024);
    // The check itself can fail: both WebGPU builds have the big function (asyncify 1.26 MB, JSPI 0.96 MB).
    for (const wasm of ['ort-wasm-simd-threaded.asyncify.wasm', webgpu]) {
      expect(exportedFunctionSize(readFileSync(join(ORT_DIST, wasm)), constructorExport(wasm.replace(/\.wasm$/, '.mjs'))), wasm).toBeGreaterThan(900_000);
    }
  });

  it('loads the WebGPU runtime in the WebGPU engine alone (the offscreen document starts it only on an adapter it may use)', () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|tsx)$/.test(e.name) ? [join(dir, e.name)] : [],
      );
    const importers = [...sources('lib'), ...sources('entrypoints')].filter((f) => /from '(backstory-ort-webgpu|onnxruntime-web\/(webgpu|jspi|all))'/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(importers).toEqual([join('lib', 'embed', 'gpu-worker.ts')]);
    const starters = [...sources('lib'), ...sources('entrypoints')].filter((f) => /gpu-worker\.ts/.test(readFileSync(join(ROOT, f), 'utf8')) && !f.endsWith('gpu-worker.ts'));
    expect(starters).toEqual([join('lib', 'embed', 'gpu-engine-start.ts')]);
  });
});
