import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryView } from '../../lib/memory/index/memory-view';
import type { TaskReading } from '../../lib/rank/types';
import { arrayMemoryView } from '../../lib/memory/index/memory-index';
import { taskQueryTexts } from '../../lib/rank/query';
import { passageEmbedTexts, contextText } from '../../lib/memory/index/item-text';
import { nodeEmbedder, nodeModelKey } from '../../lib/embed/node-embedder';
import type { ModelDtype } from '../../lib/embed/ort-embedder';
import { EmbedCache } from './embed-cache';
import { loadConversations, type Conversation } from './locomo-data';
import { sessionsAsItems } from './evidence-in-package';

/** What one memory item is: a turn of the conversation (as chat imports make them) or a whole session. */
export type Granularity = 'turns' | 'sessions';

export interface PreparedQuestion {
  question: string;
  relevant: Set<string>;
  evidence?: string[];
  task: TaskReading;
  /** Embeddings of taskQueryTexts(task), in order. */
  vectors: Float32Array[];
}

export interface PreparedConversation {
  conv: Conversation;
  view: MemoryView;
  /** Each item's vectors, one per passage. */
  vectors: Map<string, Float32Array[]>;
  questions: PreparedQuestion[];
}

export function benchTask(question: string, at: number): TaskReading {
  // A question typed into a plain page's text box: no site, no people, no page text to lean on.
  return { url: '', title: '', site: '', adapter: 'generic', destination: 'documents', field: { text: question, kind: 'textarea' }, at };
}

/** The bench's vectors on disk, by text, for the exact model file (`dtype`). */
export function openBenchCache(root: string, dtype: ModelDtype): EmbedCache {
  return new EmbedCache(join(root, 'node_modules', '.cache', 'backstory-bench'), nodeModelKey(dtype));
}

/** `dtype`: the model variant to embed with; q8 is the int8 model the extension runs (q4 only its fallback). */
export async function prepare(
  dataFile: string,
  range: [number, number] | undefined,
  root: string,
  dtype: ModelDtype = 'q8',
  cache = openBenchCache(root, dtype),
  as: Granularity = 'turns',
): Promise<PreparedConversation[]> {
  const data = JSON.parse(readFileSync(dataFile, 'utf8')) as unknown[];
  let convs = loadConversations(data);
  if (range) convs = convs.slice(range[0] - 1, range[1]);
  if (as === 'sessions') convs = convs.map(sessionsAsItems);
  return prepareConversations(convs, dtype, cache);
}

/** Conversations held in a memory built from arrays, with every vector the store would make (from the cache). */
export async function prepareConversations(convs: Conversation[], dtype: ModelDtype, cache: EmbedCache): Promise<PreparedConversation[]> {
  const out: PreparedConversation[] = [];
  for (const conv of convs) {
    // One text per passage, as the store embeds them: a long item (a session as one item) gets a vector per passage.
    const perItem = conv.items.map((it) => passageEmbedTexts(it));
    const itemTexts = perItem.flat();
    // Context vectors: each turn read after the previous turn of its session (what the store embeds as well).
    const ctx: [string, string][] = [];
    conv.items.forEach((it, i) => {
      const prev = conv.items[i - 1];
      const t = contextText(it, prev && prev.thread?.id === it.thread?.id ? prev : undefined);
      if (t) ctx.push([it.id, t]);
    });
    const tasks = conv.questions.map((q) => benchTask(q.question, conv.now));
    const qTexts = tasks.map(taskQueryTexts);
    const all = [...itemTexts, ...ctx.map(([, t]) => t), ...qTexts.flat()];
    const vs = await cache.embedAll(all, () => nodeEmbedder(dtype), (d, t) => process.stderr.write(`\r  embedding ${conv.id}: ${d}/${t}   `));
    const vectors = new Map<string, Float32Array[]>();
    let at = 0;
    conv.items.forEach((it, i) => {
      vectors.set(it.id, vs.slice(at, at + perItem[i].length));
      at += perItem[i].length;
    });
    const contextVectors = new Map<string, Float32Array>();
    ctx.forEach(([id], i) => contextVectors.set(id, vs[itemTexts.length + i]));
    let o = itemTexts.length + ctx.length;
    const questions = conv.questions.map((q, i) => {
      const n = qTexts[i].length;
      const qv = vs.slice(o, o + n);
      o += n;
      return { question: q.question, relevant: q.relevant, evidence: q.evidence, task: tasks[i], vectors: qv };
    });
    out.push({ conv, view: arrayMemoryView(conv.items, vectors, contextVectors), vectors, questions });
  }
  process.stderr.write('\n');
  return out;
}
