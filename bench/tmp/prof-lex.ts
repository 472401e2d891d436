import { SyntheticCorpus } from '../perf-lib/synthetic';
import { createItem } from '../../lib/memory/normalize';
import { LexicalIndex } from '../../lib/rank/lexical-index';
const corpus = new SyntheticCorpus();
const { inputs } = corpus.inputs(10000, 2024);
const items = inputs.map((x) => createItem(x, Date.now()));
for (let rep = 0; rep < 3; rep++) {
  let t0 = performance.now();
  const l = new LexicalIndex();
  for (const it of items) l.addItem(it);
  const tBuild = performance.now() - t0;
  const docs = items.map((it) => [it.id, [...l.termsOf(it.id)!]] as const);
  t0 = performance.now();
  const postings = new Map<string, Map<string, number>>();
  const dd = new Map<string, unknown>();
  for (const [id, tfa] of docs) {
    const tf = new Map(tfa);
    dd.set(id, { tf });
    for (const [t, n] of tf) { let p = postings.get(t); if (!p) postings.set(t, (p = new Map())); p.set(id, n); }
  }
  const tInsert = performance.now() - t0;
  console.log({ tBuild, tInsert, terms: postings.size, avgTerms: docs.reduce((a, d) => a + d[1].length, 0) / docs.length });
}
