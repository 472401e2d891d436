/**
 * The dense pass's inner loop as a 248-byte WebAssembly SIMD module: for each of n int8 rows,
 * out[k] = qscale * scales[k] * Σ_i q[i] * codes[k*dim + i], with the query as int16 (i32x4.dot_i16x8_s over
 * 8-byte sign-extending loads, 16 dimensions a turn; dim must be a multiple of 16). Far faster than the same loop in
 * JavaScript, which V8 neither vectorises nor keeps int8 loads cheap in.
 *
 * Built from this text with wabt's wat2wasm (simd enabled); the bytes are inlined so the extension fetches nothing
 * and a service worker can compile them synchronously.
 *
 * (module
 *   (import "env" "mem" (memory 1))
 *   ;; scores[k] = qscale * scales[k] * sum_i q[i] * codes[k*dim + i]
 *   ;; q: dim int16 at $q; codes: int8 rows of dim bytes at $codes; scales/out: f32 per row. dim % 8 == 0.
 *   (func (export "dots") (param $q i32) (param $codes i32) (param $scales i32) (param $out i32) (param $n i32) (param $dim i32) (param $qscale f32)
 *     (local $k i32) (local $i i32) (local $row i32) (local $acc v128) (local $qp i32)
 *     (local.set $row (local.get $codes))
 *     (block $done
 *       (loop $rows
 *         (br_if $done (i32.ge_u (local.get $k) (local.get $n)))
 *         (local.set $acc (v128.const i32x4 0 0 0 0))
 *         (local.set $i (i32.const 0))
 *         (local.set $qp (local.get $q))
 *         (loop $cols
 *           (local.set $acc (i32x4.add (local.get $acc)
 *             (i32x4.dot_i16x8_s (v128.load (local.get $qp)) (v128.load8x8_s (i32.add (local.get $row) (local.get $i))))))
 *           (local.set $acc (i32x4.add (local.get $acc)
 *             (i32x4.dot_i16x8_s (v128.load offset=16 (local.get $qp)) (v128.load8x8_s offset=8 (i32.add (local.get $row) (local.get $i))))))
 *           (local.set $qp (i32.add (local.get $qp) (i32.const 32)))
 *           (local.set $i (i32.add (local.get $i) (i32.const 16)))
 *           (br_if $cols (i32.lt_u (local.get $i) (local.get $dim))))
 *         (f32.store (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
 *           (f32.mul (f32.mul (f32.convert_i32_s (i32.add
 *               (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
 *               (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
 *             (local.get $qscale))
 *             (f32.load (i32.add (local.get $scales) (i32.shl (local.get $k) (i32.const 2))))))
 *         (local.set $row (i32.add (local.get $row) (local.get $dim)))
 *         (local.set $k (i32.add (local.get $k) (i32.const 1)))
 *         (br $rows)))
 *   )
 * )
 */
const DOTS_WASM_BASE64 =
  'AGFzbQEAAAABCwFgB39/f39/f30AAgwBA2VudgNtZW0CAAEDAgEABwgBBGRvdHMAAArEAQHBAQMDfwF7AX8gASEJAkADQCAHIARPDQH9DAAAAAAAAAAAAAAAAAAAAAAhCkEAIQggACELA0AgCiAL/QAEACAJIAhq/QEDAP26Af2uASEKIAogC/0ABBAgCSAIav0BAwj9ugH9rgEhCiALQSBqIQsgCEEQaiEIIAggBUkNAAsgAyAHQQJ0aiAK/RsAIAr9GwFqIAr9GwIgCv0bA2pqsiAGlCACIAdBAnRqKgIAlDgCACAJIAVqIQkgB0EBaiEHDAALCws=';

export interface Int8Dots {
  memory: WebAssembly.Memory;
  dots(q: number, codes: number, scales: number, out: number, n: number, dim: number, qscale: number): void;
}

let compiled: WebAssembly.Module | null | undefined;

function decode(b64: string): Uint8Array<ArrayBuffer> {
  if (typeof atob === 'function') return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

/**
 * An instance of the module over a fresh memory of at least `bytes`, or null where WebAssembly SIMD is unavailable
 * (the caller then runs the same loop in JavaScript).
 */
export function int8Dots(bytes: number): Int8Dots | null {
  if (compiled === undefined) {
    try {
      const wasm = decode(DOTS_WASM_BASE64);
      compiled = typeof WebAssembly !== 'undefined' && WebAssembly.validate(wasm) ? new WebAssembly.Module(wasm) : null;
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  try {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
    const inst = new WebAssembly.Instance(compiled, { env: { mem: memory } });
    return { memory, dots: inst.exports.dots as Int8Dots['dots'] };
  } catch {
    return null;
  }
}
