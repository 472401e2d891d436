import type { GpuEngine } from './engine-choice';

/** The WASM-only build's stand-in for gpu-engine-start.ts (wxt.config.ts): there is no WebGPU runtime to start. */
export function startGpuEngine(): GpuEngine {
  throw new Error('this build has no WebGPU runtime');
}
