import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The project's root (this file is bench/lib/perf/build-parts.ts): where `wxt build` runs and `.output` is. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** Where `BACKSTORY_WASM_ONLY=1 wxt build` writes (wxt.config.ts). */
export const WASM_ONLY_BUILD_DIR = join(PROJECT_ROOT, '.output', 'wasm-only', 'chrome-mv3');

/** Builds the WASM-only extension (no WebGPU engine, no WebGPU runtime), the cold-start baseline. */
export function buildWasmOnly(): string {
  execFileSync('npx', ['wxt', 'build'], { cwd: PROJECT_ROOT, env: { ...process.env, BACKSTORY_WASM_ONLY: '1' }, stdio: 'ignore' });
  return WASM_ONLY_BUILD_DIR;
}

function files(dir: string): { path: string; bytes: number }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [{ path: p, bytes: statSync(p).size }];
  });
}

/** Megabytes of each part of a build: model files, each onnxruntime .wasm, the WebGPU engine's code, the rest. */
export function buildParts(dir: string): Record<string, number> {
  const parts: Record<string, number> = { model: 0, runtime_wasm: 0, runtime_webgpu: 0, webgpu_engine_js: 0, other: 0, total: 0 };
  for (const f of files(dir)) {
    const rel = relative(dir, f.path).replaceAll('\\', '/');
    const part = rel.startsWith('models/')
      ? 'model'
      : rel === 'ort/ort-wasm-simd-threaded.wasm'
        ? 'runtime_wasm'
        : rel === 'ort/ort-wasm-simd-threaded.jspi.wasm'
          ? 'runtime_webgpu'
          : /^assets\/gpu-worker-.*\.js$/.test(rel)
            ? 'webgpu_engine_js'
            : 'other';
    parts[part] += f.bytes;
    parts.total += f.bytes;
  }
  return Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, Math.round((v / 1e6) * 100) / 100]));
}

/** Where `npm run zip` writes the store packages (`<name>-<version>-<browser>.zip`). */
export const ZIP_DIR = join(PROJECT_ROOT, '.output');

/**
 * Megabytes of the store zips `npm run zip` built in `dir`, what every install and update downloads: the newest
 * `*-chrome.zip` and `*-firefox.zip`, null for one that is missing. A file that is not a zip is refused.
 */
export function builtZipMegabytes(dir = ZIP_DIR): { chrome: number | null; firefox: number | null } {
  const newest = (browser: string): number | null => {
    const zips = (existsSync(dir) ? readdirSync(dir) : [])
      .filter((f) => f.endsWith(`-${browser}.zip`))
      .map((f) => ({ path: join(dir, f), stat: statSync(join(dir, f)) }))
      .sort((a, b) => b.stat.mtimeMs - a.stat.mtimeMs);
    if (!zips.length) return null;
    const head = readFileSync(zips[0].path).subarray(0, 4);
    if (head.readUInt32LE(0) !== 0x04034b50) throw new Error(`${zips[0].path} is not a zip`);
    return Math.round((zips[0].stat.size / 1e6) * 100) / 100;
  };
  return { chrome: newest('chrome'), firefox: newest('firefox') };
}
