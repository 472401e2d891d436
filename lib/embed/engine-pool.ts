import { modelTag } from './model-tag';
import { MODEL_DIM, type Embedder } from './embedder';

/** One model on a thread of its own (a Worker): it takes one request at a time and queues the rest. */
export interface Engine {
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Engines to run: one per core, at least two, at most four. */
export function engineCount(cores = (globalThis.navigator as Navigator | undefined)?.hardwareConcurrency || 2): number {
  return Math.min(4, Math.max(2, cores - 1));
}

/**
 * The runtime's WebAssembly with a custom section naming the engine, so that each engine compiles a module of its own.
 * V8 shares compiled code between modules of identical bytes in one process; with the offscreen engines (and the
 * service worker's own session) on one shared module, the extension process kept recompiling it in the background,
 * and two engines indexed slower than one. With bytes that differ by this section that work stops once each copy is
 * optimised. Custom sections do not change what the module does.
 */
export function engineRuntimeBytes(wasm: Uint8Array, engine: number): Uint8Array<ArrayBuffer> {
  const name = new TextEncoder().encode('backstory-engine');
  const body = [name.length, ...name, engine & 0xff];
  const out = new Uint8Array(wasm.length + 2 + body.length);
  out.set(wasm);
  out.set([0, body.length, ...body], wasm.length); // section id 0 (custom), size (< 128: one LEB byte), name, payload
  return out;
}

/** Splits `n` items into `parts` contiguous runs as even as possible (the batch is sorted by length). */
export function shares(n: number, parts: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0, start = 0; p < parts; p++) {
    const size = Math.floor(n / parts) + (p < n % parts ? 1 : 0);
    if (size) out.push([start, start + size]);
    start += size;
  }
  return out;
}

/**
 * Several single-threaded engines as one Embedder: every batch is split into one contiguous share per engine (each
 * runs its share's texts one at a time: the int8 model's vector of a text must not depend on its neighbours, see
 * batchingFor, so how a batch is split changes no vector), and each share goes to the next engine that is free. Single-threaded engines
 * side by side hold up better than one engine on two WASM threads, whose per-operator synchronisation stalls as soon
 * as the cores are shared, and they need no SharedArrayBuffer, so no cross-origin isolation. Handing shares out as
 * engines free up (rather than share k to engine k) keeps every engine busy when one is slowed, by another program on
 * its core or by always drawing the longer half of a batch sorted by length. `parallel` asks callers to keep two
 * batches outstanding: the engines then have the next shares waiting while the caller stores the last batch.
 */
export class EnginePool implements Embedder {
  readonly dim = MODEL_DIM;
  readonly parallel = 2;
  /** Shares waiting for an engine, oldest first. */
  private waiting: { texts: string[]; done: (v: Float32Array[]) => void; fail: (e: unknown) => void }[] = [];
  private free: Engine[];
  /** How many engines (the shares each batch is split into). */
  private readonly size: number;
  constructor(
    engines: Engine[],
    readonly backend = `pool/${engines.length}`,
    /** The engines' model (they run the int8 file in the extension: offscreen-worker.ts). */
    readonly modelId = modelTag('q8'),
  ) {
    if (!engines.length) throw new Error('an engine pool needs at least one engine');
    this.free = [...engines];
    this.size = engines.length;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const parts = await Promise.all(shares(texts.length, this.size).map(([a, b]) => this.share(texts.slice(a, b))));
    return parts.flat();
  }

  private share(texts: string[]): Promise<Float32Array[]> {
    return new Promise((done, fail) => {
      this.waiting.push({ texts, done, fail });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.free.length && this.waiting.length) {
      const engine = this.free.shift()!;
      const { texts, done, fail } = this.waiting.shift()!;
      engine.embed(texts).then(done, fail).finally(() => {
        this.free.push(engine);
        this.dispatch();
      });
    }
  }
}
