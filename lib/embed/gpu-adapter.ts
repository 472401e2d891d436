/**
 * Which backend indexes: `auto` uses WebGPU only on a hardware adapter, `wasm` never uses it, `webgpu` also takes a
 * software adapter (SwiftShader: correct but slower than WASM; for checking the path on machines without a GPU).
 */
export type EmbedBackendChoice = 'auto' | 'wasm' | 'webgpu';
export const EMBED_BACKEND_CHOICES: readonly EmbedBackendChoice[] = ['auto', 'wasm', 'webgpu'];

/** How long the WebGPU engine's start (runtime, model, shader compilation) may take: minutes on a software adapter. */
export const GPU_FIRST_MS = { hardware: 60_000, software: 240_000 };
/**
 * How long a later batch may take before the device counts as hung. A software adapter computes on the same busy
 * processor as everything else, so it gets the longer limit.
 */
export const GPU_BATCH_MS = { hardware: 30_000, software: 120_000 };

/** The parts of WebGPU this needs (lib.dom has no WebGPU types). */
export interface GpuAdapterLike {
  readonly info?: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean };
  /** Where `info` has no isFallbackAdapter yet (Chrome before 136). */
  readonly isFallbackAdapter?: boolean;
  requestDevice(): Promise<GpuDeviceLike>;
}
export interface GpuDeviceLike {
  readonly lost: Promise<{ reason?: string; message?: string }>;
}
export interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'low-power' | 'high-performance' }): Promise<GpuAdapterLike | null>;
}

export type GpuVerdict = { use: true; adapter: GpuAdapterLike; name: string; reason: string } | { use: false; reason: string };

/** The browser's WebGPU entry point, in a page or a worker. */
export function browserGpu(): GpuLike | undefined {
  return (globalThis.navigator as (Navigator & { gpu?: GpuLike }) | undefined)?.gpu;
}

/** The WebGPU runtime Backstory ships suspends WebAssembly on promises (JSPI): Chrome 137 and later. */
export function hasJspi(): boolean {
  return typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === 'function';
}

export function adapterName(a: GpuAdapterLike): string {
  const i = a.info ?? {};
  return [i.vendor, i.architecture, i.description].filter((s) => s?.trim()).join(' ') || 'unnamed adapter';
}

/**
 * Whether indexing may use WebGPU here, and why (the options page and the panel say it). Asks the browser for an
 * adapter; a fallback (software) adapter counts only when the user chose `webgpu`.
 */
export async function chooseGpuAdapter(gpu: GpuLike | undefined, choice: EmbedBackendChoice, jspi = hasJspi()): Promise<GpuVerdict> {
  if (choice === 'wasm') return { use: false, reason: 'WASM chosen in the options' };
  if (!gpu) return { use: false, reason: 'this browser offers no WebGPU here' };
  if (!jspi) return { use: false, reason: 'this browser is too old for the WebGPU runtime (no JSPI)' };
  let adapter: GpuAdapterLike | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { use: false, reason: `the browser refused a GPU adapter (${e instanceof Error ? e.message : String(e)})` };
  }
  if (!adapter) return { use: false, reason: 'no GPU adapter' };
  const name = adapterName(adapter);
  const software = adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false;
  if (software && choice !== 'webgpu') return { use: false, reason: `only a software adapter (${name}), slower than WASM` };
  return { use: true, adapter, name, reason: software ? `software adapter ${name}, chosen in the options` : `GPU ${name}` };
}
