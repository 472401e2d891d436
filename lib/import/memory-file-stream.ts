import { ImportError, MEMORY_FORMAT, MEMORY_VERSION, parseMemoryItem } from '../memory/memory-file';
import type { MemoryInput } from '../memory/types';
import { FileDigest } from '../memory/file-signature';
import type { Bytes } from './byte-stream';
import { JsonStreamError, jsonValues } from './json-stream';

/**
 * A Backstory memory file read as a stream: `format` and `version` checked, each of `items` validated as it
 * arrives, so a file of hundreds of megabytes is never whole in memory. Throws ImportError naming the problem and
 * the item index.
 */
export async function* memoryFileItems(
  bytes: Bytes,
  onFeedback?: (feedback: unknown) => void,
  /** Checks the file's signature against this profile's key; `verdict` is told once the whole file is read. */
  signature?: { key?: CryptoKey; verdict: (v: { signed: boolean }) => void },
): AsyncGenerator<MemoryInput[]> {
  const digest = signature?.key ? new FileDigest() : undefined;
  let signed: unknown;
  let format: unknown;
  let version: unknown;
  let index = 0;
  const ids = new Set<string>();
  // Items that arrive before "format" (a hand-made file with its keys in another order) wait for it.
  const waiting: MemoryInput[] = [];
  const checkHeader = () => {
    if (format === undefined) {
      throw new ImportError(`This JSON is neither a Backstory memory file (it has no "format": "${MEMORY_FORMAT}") nor a ChatGPT or Claude export.`);
    }
    if (format !== MEMORY_FORMAT) throw new ImportError(`Wrong format "${String(format)}": expected "${MEMORY_FORMAT}".`);
    if (version !== MEMORY_VERSION) throw new ImportError(`Unsupported version ${String(version)}: this Backstory reads version ${MEMORY_VERSION}.`);
  };
  let sawItems = false;
  try {
    for await (const values of jsonValues(bytes, ['$.format', '$.version', '$.items', '$.items.*', '$.feedback', '$.signature'])) {
      const out: MemoryInput[] = [];
      for (const v of values) {
        if (v.depth === 1 && v.key === 'format') format = v.value;
        else if (v.depth === 1 && v.key === 'version') version = v.value;
        else if (v.depth === 1 && v.key === 'feedback') {
          onFeedback?.(v.value);
          digest?.setFeedback(v.value);
        } else if (v.depth === 1 && v.key === 'signature') signed = v.value;
        else if (v.depth === 1 && v.key === 'items') {
          if (!Array.isArray(v.value)) throw new ImportError('The file has no "items" list.');
          sawItems = true;
        } else if (v.depth === 2) {
          const item = parseMemoryItem(v.value, index);
          await digest?.item(JSON.stringify(v.value));
          if (item.id !== undefined) {
            if (ids.has(item.id)) throw new ImportError(`Item ${index}: duplicate id "${item.id}".`, index);
            ids.add(item.id);
          }
          index++;
          (format === undefined ? waiting : out).push(item);
        }
      }
      if (format !== undefined) {
        checkHeader();
        if (waiting.length) out.unshift(...waiting.splice(0));
      }
      if (out.length) yield out;
    }
  } catch (e) {
    if (e instanceof JsonStreamError) {
      throw new ImportError(e.kind === 'truncated' ? `The file ends in the middle of item ${index} (it was cut off).` : index ? `The file is damaged after item ${index - 1}: it is no longer valid JSON there.` : 'The file is not valid JSON.', index);
    }
    throw e;
  }
  checkHeader();
  if (!sawItems) throw new ImportError('The file has no "items" list.');
  if (waiting.length) yield waiting;
  signature?.verdict({ signed: !!digest && (await digest.verify(signature.key, signed)) });
}
