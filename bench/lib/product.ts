import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { MODEL_DIM, type Embedder } from '../../lib/embed/embedder';
import { modelTag } from '../../lib/embed/model-tag';
import { nodeEmbedder } from '../../lib/embed/node-embedder';
import type { ModelDtype } from '../../lib/embed/ort-embedder';
import { openMemoryDB } from '../../lib/memory/db';
import { readImport } from '../../lib/import/index';
import { memoryFileChunks } from '../../lib/memory/memory-file';
import type { MemoryInput } from '../../lib/memory/types';
import { MemoryStore } from '../../lib/memory/store';
import type { EmbedCache } from './embed-cache';
import type { Conversation } from './locomo-data';

/**
 * The node model behind the bench's text-keyed vector cache: what the store and the query path embed with, so a
 * rerun takes its vectors from disk. Named like the model it wraps, so the store tags its vectors as the extension's.
 */
export function cachedEmbedder(cache: EmbedCache, dtype: ModelDtype): Embedder {
  return {
    modelId: modelTag(dtype),
    dim: MODEL_DIM,
    backend: `node/${dtype}+cache`,
    embed: (texts) => cache.embedAll(texts, () => nodeEmbedder(dtype)),
  };
}

/**
 * A conversation's memory as the extension builds it: written as a memory file (sessions as threads, seq by turn),
 * read back by the import reader (readImport: recognised by content, streamed, each item validated), committed by `MemoryStore.commitImport` into IndexedDB (fake-indexeddb) and
 * embedded by the store's own pipeline (`embedPending`: item vectors and context vectors).
 */
export async function importedMemory(conv: Conversation, embedder: Embedder, indexEmbedder: Embedder = embedder): Promise<MemoryStore> {
  const file = { name: `${conv.id}.json`, blob: new Blob([...memoryFileChunks(conv.items)], { type: 'application/json' }) };
  const inputs: MemoryInput[] = [];
  for await (const batch of readImport([file])) {
    if (batch.format !== 'memory-file') throw new Error(`${conv.id}: read as ${batch.format}, not as a memory file`);
    inputs.push(...batch.items);
  }
  // The extension embeds imports with its indexing engine and queries with the worker's model (lib/service/model.ts).
  const store = new MemoryStore(openMemoryDB(`locomo-${conv.id}`, { indexedDB: new IDBFactory(), IDBKeyRange }), async () => embedder, async () => indexEmbedder);
  const counts = await store.commitImport(inputs, { importId: `locomo-${conv.id}`, provenance: { from: 'import', trusted: true } });
  if (counts.added !== conv.items.length) throw new Error(`${conv.id}: ${counts.added} of ${conv.items.length} turns imported`);
  await store.embedPending();
  if (store.unembedded().length) throw new Error(`${conv.id}: ${store.unembedded().length} turns left unembedded`);
  return store;
}
