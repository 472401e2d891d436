// The parts of ONNX the int8 rewrite (scripts/quantize-int8.mjs) reads and writes, over the onnx-proto package's
// protobufjs codec: messages decode to plain objects (int64 values as Long) and encode back.
import onnxProto from 'onnx-proto';

export const { onnx } = onnxProto;
export const DType = onnx.TensorProto.DataType; // FLOAT 1, UINT8 2, INT8 3, INT32 6, INT64 7
const AttrType = onnx.AttributeProto.AttributeType;

/** An int64 as protobufjs gives it (a number, or a Long) as a number. */
export const num = (v) => (typeof v === 'number' ? v : Number(BigInt(v.toString())));

export const decodeModel = (bytes) => onnx.ModelProto.decode(bytes);
export const encodeModel = (model) => onnx.ModelProto.encode(model).finish();

/** A node's attributes by name: ints and floats as numbers, anything else as the attribute itself. */
export function attrs(node) {
  const out = new Map();
  for (const a of node.attribute) out.set(a.name, a.type === AttrType.INT ? num(a.i) : a.type === AttrType.FLOAT ? a.f : a);
  return out;
}

export function makeNode(opType, input, output, name, attribute = [], domain = '') {
  return onnx.NodeProto.create({ input, output, name, opType, attribute, ...(domain ? { domain } : {}) });
}

export const intAttr = (name, i) => onnx.AttributeProto.create({ name, i, type: AttrType.INT });

/** A tensor initializer with its bytes inline. */
export function makeTensor(name, dataType, dims, raw) {
  return onnx.TensorProto.create({ dims, dataType, name, rawData: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength) });
}

/** A tensor's name, type, dims and bytes (inline or from the external data file). */
export function readTensor(t, external) {
  const dims = t.dims.map(num);
  let raw = t.rawData?.length ? t.rawData : undefined;
  if (t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL) {
    const kv = new Map(t.externalData.map((e) => [e.key, e.value]));
    if (!external) throw new Error(`tensor ${t.name} needs external data`);
    const offset = Number(kv.get('offset') ?? 0);
    raw = external.subarray(offset, offset + Number(kv.get('length')));
  }
  // Typed fields instead of raw_data (small constants): only float and int64 are needed here.
  if (!raw && t.dataType === DType.FLOAT) raw = new Uint8Array(Float32Array.from(t.floatData).buffer);
  if (!raw && t.dataType === DType.INT64) raw = new Uint8Array(BigInt64Array.from(t.int64Data.map((v) => BigInt(num(v)))).buffer);
  return { name: t.name, dataType: t.dataType, dims, raw: raw ?? new Uint8Array(0) };
}
