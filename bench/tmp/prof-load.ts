import { SyntheticCorpus, rng } from '../perf-lib/synthetic';
import { createItem } from '../../lib/memory/normalize';
import { IndexedMemory } from '../../lib/rank/memory-view';
import { LexicalIndex } from '../../lib/rank/lexical-index';
import { VectorIndex } from '../../lib/embed/vector-index';
const corpus = new SyntheticCorpus();
const { inputs, topics } = corpus.inputs(10000, 2024);
const r = rng(1);
const items = inputs.map((x) => createItem(x, Date.now()));
const vs = topics.map((t) => corpus.vector(t, r));
for (let rep = 0; rep < 3; rep++) {
  let t0 = performance.now();
  const m = new IndexedMemory();
  for (let i = 0; i < items.length; i++) m.put(items[i], vs[i]);
  const tAll = performance.now() - t0;
  t0 = performance.now();
  const l = new LexicalIndex();
  for (const it of items) l.addItem(it);
  const tLex = performance.now() - t0;
  t0 = performance.now();
  const v = new VectorIndex();
  for (let i = 0; i < items.length; i++) v.set(items[i].id, vs[i]);
  const tVec = performance.now() - t0;
  t0 = performance.now();
  m.lexical('kalo mi', 10);
  const tPrefix = performance.now() - t0;
  console.log({ tAll, tLex, tVec, tPrefix });
}
