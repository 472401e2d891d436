import { seededRandom } from '../../../lib/core/seeded-random';
import type { MemoryInput } from '../../../lib/memory/types';

/** Deterministic, so every run ranks the same memory. */
export const rng = seededRandom;

const COMMON = `the a to and of in for on with is was we it this that our by at be as from will have not are can about
 next after before up out new so if all but more need should also when they there their team last week today`.split(/\s+/).filter(Boolean);
const ENGLISH = `project meeting budget report client deadline invoice review design release customer feedback travel
 flight hotel dinner family school doctor appointment garden recipe kitchen server database deploy bug test build
 contract lawyer payment account bank insurance holiday weekend morning evening coffee lunch office remote hiring
 interview candidate salary offer manager product feature roadmap launch marketing campaign email phone call
 message document draft plan schedule task note idea question answer problem issue fix update change version
 price cost order delivery shipping supplier partner contract renewal quarter month year goal metric result team
 friend birthday gift party music book movie game sport running health workout diet allergy medicine weather city
 train bus car parking rent apartment move furniture repair plumber electrician paint window door key password`.split(/\s+/).filter(Boolean);
const VERBS = 'send check move call ask plan write fix review share book pay order confirm cancel update remind finish start'.split(' ');

/**
 * Plain English notes for the embedding figures: about `words` words, which the model's tokenizer turns into
 * about as many word pieces (made-up words would split into 3-5 pieces each).
 */
export function englishNote(words: number, r: () => number): string {
  const out: string[] = [];
  while (out.length < words) {
    out.push(VERBS[Math.floor(r() * VERBS.length)], 'the', ENGLISH[Math.floor(r() * ENGLISH.length)], COMMON[Math.floor(r() * COMMON.length)], ENGLISH[Math.floor(r() * ENGLISH.length)]);
    if (r() < 0.3) out.push(['Alice', 'Bob', 'Chen', 'Dana'][Math.floor(r() * 4)]);
  }
  return out.slice(0, words).join(' ') + '.';
}

const SYLL = ['ka', 'lo', 'mi', 'ren', 'tor', 'vex', 'sa', 'pin', 'dor', 'qua', 'bel', 'fin', 'gra', 'hul', 'jet', 'mon', 'nex', 'ost', 'ply', 'rut'];
const PEOPLE = ['Alice', 'Bob', 'Chen', 'Dana', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ines', 'Jun', 'Kofi', 'Lena'];
const SITES = ['mail.google.com', 'chatgpt.com', 'github.com', 'docs.google.com', 'linear.app'];

/** A vocabulary of made-up words (so BM25 sees realistic long-tail term statistics), grouped in topics. */
export class SyntheticCorpus {
  readonly words: string[];
  readonly topics: string[][];
  readonly centroids: Float32Array[];
  constructor(
    readonly dim = 384,
    nTopics = 300,
    vocab = 20000,
    seed = 7,
  ) {
    const r = rng(seed);
    const set = new Set<string>();
    while (set.size < vocab) {
      const n = 2 + Math.floor(r() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLL[Math.floor(r() * SYLL.length)];
      set.add(w);
    }
    this.words = [...set];
    this.topics = Array.from({ length: nTopics }, () => Array.from({ length: 40 }, () => this.words[Math.floor(r() * vocab)]));
    this.centroids = Array.from({ length: nTopics }, () => unit(gauss(dim, r)));
  }

  /** About `tokens` words: a third topic words, some common words, the rest from the whole vocabulary. */
  text(topic: number, tokens: number, r: () => number): string {
    const out: string[] = [];
    const tw = this.topics[topic];
    for (let i = 0; i < tokens; i++) {
      const x = r();
      out.push(x < 0.35 ? tw[Math.floor(r() * tw.length)] : x < 0.7 ? COMMON[Math.floor(r() * COMMON.length)] : this.words[Math.floor(r() * this.words.length)]);
    }
    return out.join(' ') + '.';
  }

  /** About `words` words in sentences of about 15. */
  longText(topic: number, words: number, r: () => number): string {
    const out: string[] = [];
    for (let done = 0; done < words; done += 15) out.push(this.text(topic, 15, r));
    return out.join(' ');
  }

  /** A unit vector near the topic's centroid: cos to it about 0.5-0.7, so queries on a topic find its notes. */
  vector(topic: number, r: () => number, noise = 1.1): Float32Array {
    const c = this.centroids[topic];
    const g = gauss(this.dim, r);
    const v = new Float32Array(this.dim);
    const s = noise / Math.sqrt(this.dim);
    for (let i = 0; i < this.dim; i++) v[i] = c[i] + s * g[i] * Math.sqrt(this.dim) * 0.06;
    return unit(v);
  }

  /**
   * `n` memory inputs of ~60 words each, some with people and sites, a few pinned and instructions; `longShare` of
   * them are long (120-360 words in sentences of about 15, about 2,200 characters: several passages each), as mails,
   * assistant answers and note sections are in real imports (in LongMemEval's dev file 38% of the turns are longer
   * than 1,100 characters, the model's window, and those average 2,100 characters).
   */
  inputs(n: number, seed = 11, tokens = 60, longShare = 0): { inputs: MemoryInput[]; topics: number[] } {
    const r = rng(seed);
    const inputs: MemoryInput[] = [];
    const topics: number[] = [];
    const t0 = Date.UTC(2024, 0, 1);
    for (let i = 0; i < n; i++) {
      const topic = Math.floor(r() * this.topics.length);
      topics.push(topic);
      const created = t0 + Math.floor(r() * 500) * 86_400_000;
      inputs.push({
        id: `n${i}`,
        text: r() < longShare ? this.longText(topic, 120 + Math.floor(r() * 240), r) : this.text(topic, tokens, r),
        title: this.text(topic, 5, r),
        kind: r() < 0.02 ? 'instruction' : 'evidence',
        people: r() < 0.2 ? [PEOPLE[Math.floor(r() * PEOPLE.length)]] : [],
        sites: r() < 0.01 ? [SITES[Math.floor(r() * SITES.length)]] : [],
        pinned: r() < 0.002,
        createdAt: created,
        updatedAt: created,
      } as MemoryInput);
    }
    return { inputs, topics };
  }
}

export function gauss(n: number, r: () => number): Float32Array {
  const v = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(r(), 1e-12);
    const w = r();
    const m = Math.sqrt(-2 * Math.log(u));
    v[i] = m * Math.cos(2 * Math.PI * w);
    if (i + 1 < n) v[i + 1] = m * Math.sin(2 * Math.PI * w);
  }
  return v;
}

export function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  s = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= s;
  return v;
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
