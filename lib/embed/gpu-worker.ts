/// <reference lib="webworker" />
// The WebGPU embedding engine, a dedicated Worker of the offscreen document: the int8 file the WASM engines run,
// turned in memory into a float graph (its MatMulInteger have no WebGPU kernels; int8-to-float.ts), on onnxruntime's
// WebGPU runtime. Only this Worker loads that runtime, and only once the document found an adapter it may use
// (lib/embed/engine-choice.ts).
import * as ort from 'backstory-ort-webgpu';
import { batchingFor, MODEL_ID, type Embedder } from './embedder';
import { browserGpu, chooseGpuAdapter } from './gpu-adapter';
import { useLocalModels } from './local-models';
import { createOrtEmbedder, MODEL_FILES } from './ort-embedder';
import { FLOAT_WEIGHTS_PATH, int8ToFloatGraph } from './int8-to-float';

export type GpuRequest = { id: number; texts: string[]; modelRoot: string; wasmUrl: string; allowSoftware: boolean };
export type GpuReply = { id: number; vectors: Float32Array[]; backend: string } | { id: number; error: string };

let engine: Promise<Embedder> | undefined;
let lost: string | undefined;
let queue: Promise<void> = Promise.resolve();

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.split('/').pop()}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function createEngine({ modelRoot, wasmUrl, allowSoftware }: GpuRequest): Promise<Embedder> {
  const verdict = await chooseGpuAdapter(browserGpu(), allowSoftware ? 'webgpu' : 'auto');
  if (!verdict.use) throw new Error(verdict.reason);
  const device = await verdict.adapter.requestDevice();
  void device.lost.then((info) => (lost = `the GPU device was lost (${info.message || info.reason || 'no reason given'})`));
  ort.env.webgpu.device = device as never;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = { wasm: wasmUrl };
  ort.env.logLevel = 'error';
  useLocalModels(modelRoot);
  const { model, weights } = int8ToFloatGraph(await fetchBytes(`${modelRoot}${MODEL_ID}/onnx/${MODEL_FILES.q8.model}`));
  return createOrtEmbedder({
    ort, model, externalData: [{ path: FLOAT_WEIGHTS_PATH, data: weights }], backend: 'webgpu/q8', dtype: 'q8', executionProviders: ['webgpu'],
    // A float graph: no activation is quantised, so a text's vector does not depend on its batch (batchingFor).
    batching: batchingFor('q8', true), batchSize: 32,
  });
}

async function handle(req: GpuRequest): Promise<void> {
  try {
    if (lost) throw new Error(lost);
    engine ??= createEngine(req);
    const embedder = await engine;
    const vectors = await embedder.embed(req.texts);
    if (lost) throw new Error(lost);
    const reply: GpuReply = { id: req.id, vectors, backend: embedder.backend };
    (self as unknown as Worker).postMessage(reply, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (err) {
    (self as unknown as Worker).postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies GpuReply);
  }
}

self.onmessage = (e: MessageEvent<GpuRequest>) => {
  queue = queue.then(() => handle(e.data));
};
