import { describe, expect, it } from 'vitest';
import { MODEL_DIM } from '../../lib/embed/embedder';
import { EngineChoice, GPU_MIN_RUN, type GpuEngine } from '../../lib/embed/engine-choice';
import { chooseGpuAdapter, type GpuAdapterLike, type GpuLike, type GpuVerdict } from '../../lib/embed/gpu-adapter';
import { agreement, PROBE_TEXTS } from '../../lib/embed/vector-agreement';

/** A deterministic unit vector per text, with `noise` mixed in (another engine computing the same model, slightly off). */
function vectorOf(text: string, noise = 0): Float32Array {
  const v = new Float32Array(MODEL_DIM);
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  for (let d = 0; d < MODEL_DIM; d++) {
    h = Math.imul(h ^ d, 16777619);
    v[d] = ((h >>> 0) / 2 ** 32 - 0.5) + noise * Math.sin(d * 7.1);
  }
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function wasmEngine() {
  const seen: string[] = [];
  return { seen, backend: 'wasm/q8x2', embed: async (texts: string[]) => (seen.push(...texts), texts.map((t) => vectorOf(t))) };
}

function gpuEngine(opts: { failAfter?: number; noise?: number; failStart?: boolean } = {}) {
  const seen: string[] = [];
  let calls = 0;
  let closed = 0;
  const engine: GpuEngine = {
    backend: 'webgpu/q8',
    async embed(texts) {
      calls++;
      if (opts.failStart) throw new Error('Failed to load model because protobuf parsing failed.');
      if (opts.failAfter !== undefined && calls > opts.failAfter) throw new Error('the GPU device was lost (destroyed)');
      seen.push(...texts);
      return texts.map((t) => vectorOf(t, opts.noise ?? 0.01));
    },
    close: () => void closed++,
  };
  return { engine, seen, closed: () => closed };
}

const allow = async (): Promise<GpuVerdict> => ({ use: true, adapter: {} as GpuAdapterLike, name: 'nvidia ampere', reason: 'GPU nvidia ampere' });
const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

describe('choosing the indexing engine', () => {
  it('indexes on WebGPU once its vectors agree with WASM on the probe texts', async () => {
    const wasm = wasmEngine();
    const gpu = gpuEngine();
    const choice = new EngineChoice({ wasm, verdict: allow, startGpu: () => gpu.engine });
    const first = await choice.embed(texts('note', 16), 'auto', 2000);
    expect(first.backend).toBe('wasm/q8x2'); // indexing does not wait for WebGPU to start
    expect(first.reason).toBe('GPU nvidia ampere; starting WebGPU, WASM meanwhile');
    await choice.settled();
    const r = await choice.embed(texts('more', 16), 'auto', 2000);
    expect(r.backend).toBe('webgpu/q8');
    expect(r.reason).toMatch(/^GPU nvidia ampere; vectors checked against WASM \(cosine \d\.\d{3} on average\)$/);
    expect(wasm.seen.filter((t) => t.startsWith('more'))).toEqual([]);
  });

  it('keeps a small run on WASM under "auto", and starts WebGPU when the user chose it', async () => {
    const wasm = wasmEngine();
    let starts = 0;
    const auto = new EngineChoice({ wasm, verdict: allow, startGpu: () => (starts++, gpuEngine().engine) });
    const small = await auto.embed(texts('capture', 3), 'auto', 3);
    expect(small.backend).toBe('wasm/q8x2');
    expect(small.reason).toContain(`too small to start WebGPU for (it starts at ${GPU_MIN_RUN})`);
    expect(starts).toBe(0);
    const forced = await auto.embed(texts('capture', 3), 'webgpu', 3);
    expect(forced.backend).toBe('webgpu/q8');
    expect(starts).toBe(1);
  });

  it('goes on with WASM when the GPU fails mid-run: every text embedded exactly once, and it says why', async () => {
    const wasm = wasmEngine();
    const gpu = gpuEngine({ failAfter: 3 }); // the probe, then two batches, then the device is lost
    const choice = new EngineChoice({ wasm, verdict: allow, startGpu: () => gpu.engine });
    const batches = Array.from({ length: 6 }, (_, b) => texts(`item${b}`, 16));
    const results = [];
    for (const b of batches) results.push(await choice.embed(b, 'webgpu', 1000));
    expect(results.map((r) => r.backend)).toEqual(['webgpu/q8', 'webgpu/q8', 'wasm/q8x2', 'wasm/q8x2', 'wasm/q8x2', 'wasm/q8x2']);
    results.forEach((r, i) => expect(r.vectors).toHaveLength(batches[i].length));
    const byGpu = gpu.seen.filter((t) => !PROBE_TEXTS.includes(t));
    const byWasm = wasm.seen.filter((t) => !PROBE_TEXTS.includes(t));
    expect([...byGpu, ...byWasm].sort()).toEqual(batches.flat().sort()); // none lost, none twice
    expect(results.at(-1)!.reason).toBe('WebGPU failed (the GPU device was lost (destroyed)); indexing went on with WASM');
    expect(gpu.closed()).toBe(1);
  });

  it('never lets in WebGPU vectors that differ from WASM ones', async () => {
    const wasm = wasmEngine();
    const gpu = gpuEngine({ noise: 0.3 });
    const choice = new EngineChoice({ wasm, verdict: allow, startGpu: () => gpu.engine });
    const r = await choice.embed(texts('note', 8), 'webgpu', 1000);
    expect(r.backend).toBe('wasm/q8x2');
    expect(r.reason).toMatch(/^WebGPU could not start \(its vectors differ from WASM's \(cosine 0\.\d+ at worst\)\); indexing with WASM$/);
    expect(gpu.closed()).toBe(1);
  });

  it('falls back when the engine cannot start, and stops WebGPU when the user forces WASM', async () => {
    const wasm = wasmEngine();
    const broken = new EngineChoice({ wasm, verdict: allow, startGpu: () => gpuEngine({ failStart: true }).engine });
    await broken.embed(texts('a', 4), 'auto', 1000);
    await broken.settled();
    expect((await broken.embed(texts('a', 4), 'auto', 1000)).reason).toMatch(/^WebGPU could not start \(Failed to load model/);

    const gpu = gpuEngine();
    const verdicts: string[] = [];
    const choice = new EngineChoice({
      wasm,
      verdict: (c) => (verdicts.push(c), c === 'wasm' ? Promise.resolve({ use: false, reason: 'WASM chosen in the options' }) : allow()),
      startGpu: () => gpu.engine,
    });
    expect((await choice.embed(texts('b', 4), 'webgpu', 1000)).backend).toBe('webgpu/q8');
    const r = await choice.embed(texts('c', 4), 'wasm', 1000);
    expect(r).toMatchObject({ backend: 'wasm/q8x2', reason: 'WASM chosen in the options' });
    expect(gpu.closed()).toBe(1);
    expect(verdicts).toEqual(['webgpu', 'wasm']);
  });
});

describe('the GPU adapter check', () => {
  const gpuWith = (adapter: Partial<GpuAdapterLike> | null): GpuLike => ({ requestAdapter: async () => adapter as GpuAdapterLike | null });

  it('uses a hardware adapter, and a software one only when the user chose WebGPU', async () => {
    const hw = gpuWith({ info: { vendor: 'nvidia', architecture: 'ampere', isFallbackAdapter: false } });
    expect(await chooseGpuAdapter(hw, 'auto', true)).toMatchObject({ use: true, reason: 'GPU nvidia ampere' });
    const sw = gpuWith({ info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true } });
    expect(await chooseGpuAdapter(sw, 'auto', true)).toEqual({ use: false, reason: 'only a software adapter (google swiftshader), slower than WASM' });
    expect(await chooseGpuAdapter(sw, 'webgpu', true)).toMatchObject({ use: true, reason: 'software adapter google swiftshader, chosen in the options' });
    // Chrome before 136 says it on the adapter itself.
    expect(await chooseGpuAdapter(gpuWith({ isFallbackAdapter: true, info: {} }), 'auto', true)).toMatchObject({ use: false });
  });

  it('says why not: no WebGPU, no adapter, no JSPI, or WASM chosen', async () => {
    expect(await chooseGpuAdapter(undefined, 'auto', true)).toEqual({ use: false, reason: 'this browser offers no WebGPU here' });
    expect(await chooseGpuAdapter(gpuWith(null), 'auto', true)).toEqual({ use: false, reason: 'no GPU adapter' });
    expect((await chooseGpuAdapter(gpuWith({ info: {} }), 'auto', false)).reason).toMatch(/no JSPI/);
    expect(await chooseGpuAdapter(gpuWith({ info: {} }), 'wasm', true)).toEqual({ use: false, reason: 'WASM chosen in the options' });
  });
});

describe('vector agreement', () => {
  it('accepts the same vectors computed slightly differently, and refuses other ones or malformed ones', () => {
    const a = PROBE_TEXTS.map((t) => vectorOf(t));
    expect(agreement(a, PROBE_TEXTS.map((t) => vectorOf(t, 0.01))).ok).toBe(true);
    expect(agreement(a, PROBE_TEXTS.map((t) => vectorOf(t + '!'))).ok).toBe(false);
    expect(agreement(a, a.map((v) => v.map(() => Number.NaN))).ok).toBe(false);
    expect(agreement(a, a.slice(1)).ok).toBe(false);
  });
});
