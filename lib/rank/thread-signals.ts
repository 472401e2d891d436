// What a threaded candidate takes from its thread: its neighbours' cosines and lexical evidence (most from a question
// it answers), less what it only echoes of the turn before and less the longer it stands alone.
import type { MemoryView } from '../memory/index/memory-view';
import type { Tuning } from './tuning';
import type { CandidateSlots, SignalInputs } from './retrieve';

const lexOf = (x: SignalInputs, id: string | undefined) => (id ? (x.lexical.byId.get(id)?.score ?? 0) : 0);
const denOf = (x: SignalInputs, id: string | undefined) => (id ? (x.dense.get(id) ?? 0) : 0);

/** Each candidate's place in its thread, in candidate order: whether it has one, and the turns before and after it. */
export interface ThreadPlaces {
  inThread: Uint8Array;
  prevs: (string | undefined)[];
  nexts: (string | undefined)[];
}

/** Each candidate's cosine with a share of its thread neighbours', in candidate order. */
export function threadCosines(
  found: CandidateSlots,
  { inThread, prevs, nexts }: ThreadPlaces,
  x: SignalInputs,
): Float64Array {
  const { ids, slots } = found;
  const { t } = x;
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const nbCos = inThread[i] ? threadSemantic(slots[i], prevs[i], nexts[i], x) : 0;
    out[i] = (denOf(x, ids[i]) + t.neighbourSemantic * nbCos) / (1 + t.neighbourSemantic);
  }
  return out;
}

/** Each candidate's lexical evidence with its thread's, in candidate order. */
export function threadLexical(
  found: CandidateSlots,
  { inThread, prevs, nexts }: ThreadPlaces,
  x: SignalInputs,
  memory: MemoryView,
): Float64Array {
  const { index, t } = x;
  const { ids, slots } = found;
  const out = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    let v = lexOf(x, id);
    if (inThread[i]) {
      const prev = prevs[i];
      const next = nexts[i];
      if (t.echo > 0) v *= 1 - t.echo * echoShare(x, id, prev);
      // A reply inherits more from a question it answers.
      const fromPrev = lexOf(x, prev) * (prev && index.asks(prev) ? 1 + t.replyBoost : 1);
      let inherited = t.neighbourLexical * Math.max(fromPrev, 0.5 * lexOf(x, next));
      // Further along the thread, the same topic with a decaying share.
      if (t.window2 > 0)
        for (let k = 2, w = t.window2; k <= t.window && w > 0.01; k++, w *= t.window2)
          inherited += w * t.neighbourLexical * Math.max(lexOf(x, index.neighbourAt(slots[i], -k)), lexOf(x, index.neighbourAt(slots[i], k)));
      if (inherited > 0) v += inherited * standaloneShare(memory, id, t);
    }
    out[i] = v;
  }
  return out;
}

/** How much of its neighbours' evidence an item takes: all when short, less the longer it is (see `Tuning.standalone`). */
function standaloneShare(memory: MemoryView, id: string, t: Tuning): number {
  const tokens = t.standalone > 0 ? (memory.head(id)?.tokens ?? 0) : 0;
  return tokens > t.standalone ? t.standalone / tokens : 1;
}

/**
 * The share of the ask words `id` matched that its predecessor `prev` matched as well (0 when none, or no
 * predecessor). Words most items hold are left out: a turn after one that named the speaker it answers repeats
 * nothing that tells it apart.
 */
function echoShare(x: SignalInputs, id: string, prev: string | undefined): number {
  const own = x.lexical.byId.get(id)?.matched;
  const before = prev ? x.lexical.byId.get(prev)?.matched : undefined;
  if (!own?.length || !before?.length) return 0;
  const untelling = x.lexical.untelling;
  let said = 0;
  let shared = 0;
  for (const m of own) {
    if (untelling.has(m)) continue;
    said++;
    if (before.includes(m)) shared++;
  }
  return said ? shared / said : 0;
}

/** The dense score a threaded item inherits from its neighbours (most from a question it answers). */
function threadSemantic(slot: number, prev: string | undefined, next: string | undefined, x: SignalInputs): number {
  const { index, t } = x;
  const prevAsks = !!prev && index.asks(prev);
  let nbCos = Math.max(denOf(x, prev) * (prevAsks ? 1 + t.replyBoostSemantic : 1), denOf(x, next));
  if (t.window2 > 0 && t.semanticWindow)
    for (let k = 2, w = t.window2; k <= t.window && w > 0.01; k++, w *= t.window2)
      nbCos = Math.max(nbCos, w * Math.max(denOf(x, index.neighbourAt(slot, -k)), denOf(x, index.neighbourAt(slot, k))));
  return nbCos;
}
