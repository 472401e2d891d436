import { browser } from 'wxt/browser';
import { ORT_WEBGPU_WASM_PATH } from './embedder';
import { GPU_BATCH_MS, GPU_FIRST_MS } from './gpu-adapter';
import type { GpuEngine } from './engine-choice';
import type { GpuReply, GpuRequest } from './gpu-worker';
import { WorkerChannel } from './worker-channel';

const url = (p: string) => (browser.runtime.getURL as (p: string) => string)(p);

/**
 * Starts the WebGPU engine's Worker (lib/embed/gpu-worker.ts), which loads the WebGPU runtime. The WASM-only build
 * replaces this module with gpu-engine-none.ts (wxt.config.ts), so that build carries no WebGPU code at all.
 */
export function startGpuEngine(allowSoftware: boolean): GpuEngine {
  const channel = new WorkerChannel<GpuRequest, GpuReply>(new Worker(new URL('./gpu-worker.ts', import.meta.url), { type: 'module' }));
  let calls = 0;
  const engine: GpuEngine = {
    backend: 'webgpu/q8',
    async embed(texts) {
      // A batch that takes longer counts as failed (a hung device); the first one includes the engine's start.
      const ms = (calls++ === 0 ? GPU_FIRST_MS : GPU_BATCH_MS)[allowSoftware ? 'software' : 'hardware'];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no answer from the GPU within ${ms / 1000} s`)), ms)));
      try {
        const r = await Promise.race([channel.call((id) => ({ id, texts, modelRoot: url('/models/'), wasmUrl: url(ORT_WEBGPU_WASM_PATH), allowSoftware })), late]);
        engine.backend = r.backend;
        return r.vectors;
      } catch (e) {
        channel.terminate(e instanceof Error ? e.message : String(e));
        throw e;
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => channel.terminate(),
  };
  return engine;
}
