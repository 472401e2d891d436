import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type Node = onnxProto.onnx.INodeProto;
type Tensor = onnxProto.onnx.ITensorProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT8 = onnx.TensorProto.DataType.INT8;

/** The name the float weights go by: the session is handed them as external data under this path. */
export const FLOAT_WEIGHTS_PATH = 'weights_f32.bin';

export interface FloatGraph {
  /** The graph, with every large weight a reference into `weights`. */
  model: Uint8Array;
  weights: Uint8Array;
  /** How many int8 matrix products became float ones (the word-embedding table is one more). */
  rewritten: number;
}

const num = (v: number | { toString(): string } | null | undefined): number => (typeof v === 'number' ? v : Number(v?.toString() ?? 0));

/** A tensor's bytes as the type it holds (copied, so alignment does not matter). */
function values<T extends Int8Array | Float32Array>(t: Tensor, Kind: { new (b: ArrayBuffer): T; BYTES_PER_ELEMENT: number }): T {
  const raw = t.rawData;
  if (!raw?.length) {
    if (Kind === (Float32Array as unknown) && t.floatData?.length) return Float32Array.from(t.floatData) as T;
    throw new Error(`tensor ${t.name}: no inline data`);
  }
  return new Kind(raw.slice().buffer as ArrayBuffer);
}

/**
 * The int8 model (scripts/quantize-int8.mjs) as a float graph the WebGPU runtime can run: onnxruntime's WebGPU
 * kernels include no MatMulInteger or DynamicQuantizeLinear, so each quantised product
 *   DynamicQuantizeLinear(A) -> MatMulInteger(A_u8, W_i8, A_zp) -> Cast -> Mul(A_scale * W_scale)
 * becomes MatMul(A, W) over W = W_i8 * W_scale, and the int8 word-embedding lookup
 *   Gather(T_i8, ids) -> Cast -> Mul(Gather(row_scale, ids))
 * becomes Gather(T, ids) over T = T_i8 * row_scale. The weights are those of the file the WASM engines run, so the
 * extension ships them once; the float copy exists only in memory, on a machine with a GPU to run it. Anything that
 * does not have exactly these shapes is refused: a half-rewritten graph would compute something else.
 */
export function int8ToFloatGraph(int8Model: Uint8Array): FloatGraph {
  const model = onnx.ModelProto.decode(int8Model);
  const graph = model.graph;
  if (!graph?.node || !graph.initializer) throw new Error('not an ONNX model with a graph');
  const inits = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const producer = new Map<string, Node>();
  const consumers = new Map<string, Node[]>();
  for (const n of graph.node) {
    for (const o of n.output ?? []) producer.set(o, n);
    for (const i of n.input ?? []) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  }
  const only = (name: string, op: string): Node => {
    const c = consumers.get(name) ?? [];
    if (c.length !== 1 || c[0].opType !== op) throw new Error(`${name}: expected one ${op} after it`);
    return c[0];
  };
  const init = (name: string | undefined, type: number): Tensor => {
    const t = inits.get(name ?? '');
    if (!t || t.dataType !== type) throw new Error(`${name}: expected a weight of type ${type}`);
    return t;
  };

  const removed = new Set<Node>();
  const replacement = new Map<Node, Node>();
  const parts: { name: string; dims: number[]; data: Float32Array }[] = [];
  let rewritten = 0;

  for (const mm of graph.node) {
    if (mm.opType === 'MatMulInteger') {
      const [aU8, wName] = mm.input ?? [];
      const quantize = producer.get(aU8);
      if (quantize?.opType !== 'DynamicQuantizeLinear') throw new Error(`${mm.name}: its input is not dynamically quantised`);
      const cast = only(mm.output![0], 'Cast');
      const mul = only(cast.output![0], 'Mul');
      const scaleName = mul.input!.find((i) => i !== cast.output![0])!;
      const scaleMul = producer.get(scaleName);
      if (scaleMul?.opType !== 'Mul' || !scaleMul.input!.includes(quantize.output![1])) throw new Error(`${mm.name}: its scale is not the input's times the weight's`);
      const W = init(wName, INT8);
      const [K, N] = (W.dims ?? []).map(num);
      const s = values(init(scaleMul.input!.find((i) => i !== quantize.output![1]), FLOAT), Float32Array);
      if (s.length !== N) throw new Error(`${mm.name}: ${s.length} scales for ${N} columns`);
      const q = values(W, Int8Array);
      const w = new Float32Array(K * N);
      for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) w[k * N + n] = q[k * N + n] * s[n];
      parts.push({ name: `${wName}_f32`, dims: [K, N], data: w });
      replacement.set(mm, onnx.NodeProto.create({ opType: 'MatMul', name: `${mm.name}_Float`, input: [quantize.input![0], `${wName}_f32`], output: mul.output }));
      for (const n of [cast, mul, scaleMul]) removed.add(n);
      rewritten++;
    } else if (mm.opType === 'Gather' && inits.get(mm.input![0])?.dataType === INT8) {
      const [tName, ids] = mm.input!;
      const cast = only(mm.output![0], 'Cast');
      const mul = only(cast.output![0], 'Mul');
      const scaleGather = producer.get(mul.input!.find((i) => i !== cast.output![0])!);
      if (scaleGather?.opType !== 'Gather' || scaleGather.input![1] !== ids) throw new Error(`${mm.name}: its row scales are not looked up by the same ids`);
      const T = init(tName, INT8);
      const [rows, cols] = (T.dims ?? []).map(num);
      const s = values(init(scaleGather.input![0], FLOAT), Float32Array);
      if (s.length !== rows) throw new Error(`${mm.name}: ${s.length} scales for ${rows} rows`);
      const q = values(T, Int8Array);
      const t = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[r * cols + c] = q[r * cols + c] * s[r];
      parts.push({ name: `${tName}_f32`, dims: [rows, cols], data: t });
      replacement.set(mm, onnx.NodeProto.create({ opType: 'Gather', name: `${mm.name}_Float`, input: [`${tName}_f32`, ids], output: mul.output }));
      for (const n of [cast, mul, scaleGather]) removed.add(n);
    }
  }
  if (!rewritten) throw new Error('no MatMulInteger found: not the int8 model');

  const nodes = graph.node.filter((n) => !removed.has(n)).map((n) => replacement.get(n) ?? n);
  // The input quantisers are used by nothing now (their products are gone).
  const read = new Set(nodes.flatMap((n) => n.input ?? []));
  graph.node = nodes.filter((n) => n.opType !== 'DynamicQuantizeLinear' || n.output!.some((o) => read.has(o)));
  const stillRead = new Set([...graph.node.flatMap((n) => n.input ?? []), ...(graph.output ?? []).map((o) => o.name ?? '')]);

  const weights = new Uint8Array(parts.reduce((s, p) => s + p.data.byteLength, 0));
  let offset = 0;
  const external = parts.map((p) => {
    weights.set(new Uint8Array(p.data.buffer), offset);
    const t = onnx.TensorProto.create({
      name: p.name,
      dataType: FLOAT,
      dims: p.dims,
      dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
      externalData: [
        { key: 'location', value: FLOAT_WEIGHTS_PATH },
        { key: 'offset', value: String(offset) },
        { key: 'length', value: String(p.data.byteLength) },
      ],
    });
    offset += p.data.byteLength;
    return t;
  });
  graph.initializer = [...graph.initializer.filter((t) => stillRead.has(t.name ?? '')), ...external];
  return { model: onnx.ModelProto.encode(model).finish(), weights, rewritten };
}
