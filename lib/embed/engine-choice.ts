import type { EmbedBackendChoice, GpuVerdict } from './gpu-adapter';
import { agreement, PROBE_TEXTS, wellFormedVectors } from './vector-agreement';
import { MODEL_DIM } from './embedder';

export interface ChoiceEngine {
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Which runtime answered last, e.g. 'webgpu/q8' or 'wasm/q8x2'. */
  backend: string;
}
export interface GpuEngine extends ChoiceEngine {
  /** Stops it for good (its Worker, its device). */
  close(): void;
}

export interface EngineChoiceParts {
  /** The WASM engines: always there, the fallback for everything. */
  wasm: ChoiceEngine;
  /** Whether WebGPU may be used, asked once per choice (lib/embed/gpu-adapter.ts). */
  verdict(choice: EmbedBackendChoice): Promise<GpuVerdict>;
  /** Starts the WebGPU engine (its runtime is only loaded then). */
  startGpu(choice: EmbedBackendChoice): GpuEngine;
}

export interface ChoiceResult {
  vectors: Float32Array[];
  backend: string;
  /** Why this backend (and, after a fallback, what went wrong with WebGPU). */
  reason: string;
}

/**
 * Under `auto`, runs of fewer texts than this stay on WASM: starting WebGPU (a 17 MB runtime that V8 compiles in the
 * background, the model's float graph, the check against WASM) costs more than WASM spends on them, and a capture or a small
 * import should not make the extension's process busy. An engine already running takes every batch.
 */
export const GPU_MIN_RUN = 400;

/**
 * Picks the engine for each indexing batch: WebGPU where the verdict allows it and its vectors agree with the WASM
 * engines' on the probe texts, else WASM. When WebGPU fails at any point (start, a batch, a device lost, vectors that
 * are not unit length) that batch and every later one go to WASM: each batch's vectors come back exactly once, from
 * one engine, so nothing is lost or stored twice.
 */
export class EngineChoice {
  private gpu?: GpuEngine;
  private verdict?: Promise<GpuVerdict>;
  private started?: Promise<void>;
  private choice?: EmbedBackendChoice;
  reason = 'not decided yet';

  constructor(private readonly parts: EngineChoiceParts) {}

  async embed(texts: string[], choice: EmbedBackendChoice, run = texts.length): Promise<ChoiceResult> {
    if (choice !== this.choice) {
      this.stopGpu();
      this.choice = choice;
      this.verdict = this.parts.verdict(choice).catch((e: unknown): GpuVerdict => ({ use: false, reason: message(e) }));
      this.started = undefined;
    }
    const verdict = await this.verdict!;
    if (!verdict.use) this.reason = verdict.reason;
    else if (!this.started && choice === 'auto' && run < GPU_MIN_RUN) {
      this.reason = `${verdict.reason}, but a run of ${run} is too small to start WebGPU for (it starts at ${GPU_MIN_RUN})`;
    } else {
      if (!this.started) {
        this.reason = `${verdict.reason}; starting WebGPU, WASM meanwhile`;
        this.started = this.start(verdict.reason, choice);
      }
      // Chosen by the user, WebGPU is waited for; under `auto` indexing goes on with WASM until WebGPU is ready.
      if (choice === 'webgpu') await this.started;
    }
    const gpu = this.gpu;
    if (gpu) {
      try {
        const vectors = await gpu.embed(texts);
        if (!wellFormedVectors(vectors, texts.length, MODEL_DIM)) throw new Error('it returned malformed vectors');
        return { vectors, backend: gpu.backend, reason: this.reason };
      } catch (e) {
        if (this.gpu === gpu) {
          this.stopGpu();
          this.reason = `WebGPU failed (${message(e)}); indexing went on with WASM`;
        }
      }
    }
    return { vectors: await this.parts.wasm.embed(texts), backend: this.parts.wasm.backend, reason: this.reason };
  }

  /** Starts the WebGPU engine and lets it index only if its vectors agree with WASM's on the probe texts. */
  private async start(why: string, choice: EmbedBackendChoice): Promise<void> {
    let gpu: GpuEngine | undefined;
    try {
      gpu = this.parts.startGpu(choice);
      const [g, w] = await Promise.all([gpu.embed(PROBE_TEXTS), this.parts.wasm.embed(PROBE_TEXTS)]);
      const a = agreement(g, w);
      if (!a.ok) throw new Error(`its vectors differ from WASM's (cosine ${a.min.toFixed(3)} at worst)`);
      if (this.choice !== choice) throw new Error('the choice changed');
      this.gpu = gpu;
      this.reason = `${why}; vectors checked against WASM (cosine ${a.mean.toFixed(3)} on average)`;
    } catch (e) {
      gpu?.close();
      this.reason = `WebGPU could not start (${message(e)}); indexing with WASM`;
    }
  }

  private stopGpu(): void {
    this.gpu?.close();
    this.gpu = undefined;
  }

  /** Resolves once a WebGPU start under way has ended, either way. */
  async settled(): Promise<void> {
    await this.started;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
