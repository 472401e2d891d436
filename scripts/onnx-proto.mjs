// A minimal protobuf codec for the parts of ONNX the int8 rewrite touches (scripts/quantize-int8.mjs).
// Messages decode to a list of fields kept in order; fields this code does not know pass through unchanged, so a
// decode followed by an encode reproduces the input. Field numbers follow onnx/onnx.proto (IR version 10).

/** @typedef {{ no: number, wt: number, v: bigint | Uint8Array }} Field  wt: 0 varint, 1 fixed64, 2 bytes, 5 fixed32 */

export function readVarint(buf, pos) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [result, pos];
    shift += 7n;
  }
}

/** Decodes one message level into fields. Length-delimited values are views into `buf` (no copy). */
export function decode(buf) {
  /** @type {Field[]} */
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const no = Number(key >> 3n);
    const wt = Number(key & 7n);
    if (wt === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      out.push({ no, wt, v });
    } else if (wt === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      const n = Number(len);
      out.push({ no, wt, v: buf.subarray(pos, pos + n) });
      pos += n;
    } else if (wt === 1) {
      out.push({ no, wt, v: buf.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wt === 5) {
      out.push({ no, wt, v: buf.subarray(pos, pos + 4) });
      pos += 4;
    } else throw new Error(`protobuf: unsupported wire type ${wt} at ${pos}`);
  }
  return out;
}

function varintBytes(v) {
  let x = BigInt.asUintN(64, BigInt(v));
  const bytes = [];
  while (x >= 0x80n) {
    bytes.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  bytes.push(Number(x));
  return Uint8Array.from(bytes);
}

/** Encodes fields (values may be bigint/number for varints, Uint8Array for the rest) into one buffer. */
export function encode(fields) {
  const parts = [];
  let size = 0;
  for (const f of fields) {
    const key = varintBytes((BigInt(f.no) << 3n) | BigInt(f.wt));
    parts.push(key);
    size += key.length;
    if (f.wt === 0) {
      const b = varintBytes(f.v);
      parts.push(b);
      size += b.length;
    } else {
      const v = /** @type {Uint8Array} */ (f.v);
      if (f.wt === 2) {
        const len = varintBytes(v.length);
        parts.push(len);
        size += len.length;
      }
      parts.push(v);
      size += v.length;
    }
  }
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const te = new TextEncoder();
const td = new TextDecoder();
export const str = (f) => td.decode(/** @type {Uint8Array} */ (f.v));
export const strField = (no, s) => ({ no, wt: 2, v: te.encode(s) });
export const intField = (no, n) => ({ no, wt: 0, v: BigInt(n) });
export const msgField = (no, fields) => ({ no, wt: 2, v: encode(fields) });
export const bytesField = (no, bytes) => ({ no, wt: 2, v: bytes });

export const all = (fields, no) => fields.filter((f) => f.no === no);
export const first = (fields, no) => fields.find((f) => f.no === no);

/** Repeated int64 that may be packed (wire type 2) or not. */
export function ints(fields, no) {
  const out = [];
  for (const f of all(fields, no)) {
    if (f.wt === 0) out.push(f.v);
    else {
      const b = /** @type {Uint8Array} */ (f.v);
      for (let p = 0; p < b.length; ) {
        let v;
        [v, p] = readVarint(b, p);
        out.push(v);
      }
    }
  }
  return out.map((v) => Number(BigInt.asIntN(64, v)));
}

// --- ONNX field numbers -------------------------------------------------------------------------------------
export const Model = { irVersion: 1, opsetImport: 8, graph: 7 };
export const OpsetId = { domain: 1, version: 2 };
export const Graph = { node: 1, name: 2, initializer: 5, input: 11, output: 12, valueInfo: 13 };
export const Node = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, docString: 6, domain: 7 };
export const Attr = { name: 1, f: 2, i: 3, s: 4, t: 5, ints: 8, type: 20 };
export const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, INTS: 7 };
export const Tensor = { dims: 1, dataType: 2, floatData: 4, int32Data: 5, int64Data: 7, name: 8, rawData: 9, externalData: 13, dataLocation: 14 };
export const DType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 };

/** A node's readable parts, with its attributes by name (the raw fields stay available). */
export function readNode(fields) {
  const attrs = new Map();
  for (const a of all(fields, Node.attribute)) {
    const af = decode(/** @type {Uint8Array} */ (a.v));
    const name = str(first(af, Attr.name));
    const i = first(af, Attr.i);
    const f = first(af, Attr.f);
    const fv = f ? new DataView(f.v.buffer, f.v.byteOffset, 4).getFloat32(0, true) : undefined;
    attrs.set(name, i ? Number(BigInt.asIntN(64, i.v)) : fv !== undefined ? fv : af);
  }
  return {
    opType: str(first(fields, Node.opType)),
    domain: first(fields, Node.domain) ? str(first(fields, Node.domain)) : '',
    name: first(fields, Node.name) ? str(first(fields, Node.name)) : '',
    inputs: all(fields, Node.input).map(str),
    outputs: all(fields, Node.output).map(str),
    attrs,
  };
}

export function makeNode(opType, inputs, outputs, name, attrs = [], domain = '') {
  const f = [];
  for (const i of inputs) f.push(strField(Node.input, i));
  for (const o of outputs) f.push(strField(Node.output, o));
  f.push(strField(Node.name, name));
  f.push(strField(Node.opType, opType));
  for (const a of attrs) f.push(msgField(Node.attribute, a));
  if (domain) f.push(strField(Node.domain, domain));
  return f;
}

export const intAttr = (name, v) => [strField(Attr.name, name), intField(Attr.i, v), intField(Attr.type, AttrType.INT)];

/** A tensor initializer with its bytes inline. */
export function makeTensor(name, dataType, dims, raw) {
  const f = dims.map((d) => intField(Tensor.dims, d));
  f.push(intField(Tensor.dataType, dataType));
  f.push(strField(Tensor.name, name));
  f.push(bytesField(Tensor.rawData, new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)));
  return f;
}

/** A tensor's name, type, dims and bytes (inline or from the external data file). */
export function readTensor(fields, external) {
  const name = str(first(fields, Tensor.name));
  const dataType = Number(first(fields, Tensor.dataType)?.v ?? 0n);
  const dims = ints(fields, Tensor.dims);
  let raw = first(fields, Tensor.rawData)?.v;
  if (Number(first(fields, Tensor.dataLocation)?.v ?? 0n) === 1) {
    const kv = new Map(
      all(fields, Tensor.externalData).map((e) => {
        const ef = decode(e.v);
        return [str(first(ef, 1)), str(first(ef, 2))];
      }),
    );
    const offset = Number(kv.get('offset') ?? 0);
    const length = Number(kv.get('length'));
    if (!external) throw new Error(`tensor ${name} needs external data`);
    raw = external.subarray(offset, offset + length);
  }
  if (!raw) {
    // Typed fields instead of raw_data (small constants): only float and int64 are needed here.
    if (dataType === DType.FLOAT) {
      const fd = first(fields, Tensor.floatData);
      raw = fd ? fd.v : new Uint8Array(0);
    } else if (dataType === DType.INT64) {
      const v = BigInt64Array.from(ints(fields, Tensor.int64Data).map(BigInt));
      raw = new Uint8Array(v.buffer);
    } else raw = new Uint8Array(0);
  }
  return { name, dataType, dims, raw };
}
