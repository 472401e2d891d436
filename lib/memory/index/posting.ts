/** Doc slots holding a term, in slot order, with the term's count in each; grows by doubling. */
export interface Posting {
  doc: Int32Array;
  tf: Uint16Array;
  n: number;
}

/** The largest count a posting holds (Uint16); more of one term in one item counts as this many. */
export const MAX_TF = 65535;

/** `a`, or a copy of it at least `need` long (doubling), for arrays that grow one entry at a time. */
export function grown<T extends Uint32Array | Uint16Array | Uint8Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = Math.max(16, a.length * 2);
  while (cap < need) cap *= 2;
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  return b;
}
