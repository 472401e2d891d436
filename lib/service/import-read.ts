import { ImportFileError, type ImportBatch, type ImportFile, type ReadOptions } from '../import/types';
import { decodeFileBytes } from '../memory/decode-text';
import { ImportError, parseImport } from '../memory/memory-file';

/**
 * Reads an import's files with the memory-file, Markdown and text parsers, one batch per file. Stands in for
 * lib/import's streaming readImport, which replaces it.
 */
export async function* readForImport(files: ImportFile[], opts: ReadOptions = {}): AsyncGenerator<ImportBatch> {
  const bytesTotal = files.reduce((n, f) => n + f.blob.size, 0);
  let bytesRead = 0;
  let items = 0;
  for (const file of files) {
    opts.signal?.throwIfAborted();
    const name = file.path ?? file.name;
    if (!/\.(json|md|markdown|txt)$/i.test(name)) continue;
    const text = decodeFileBytes(new Uint8Array(await file.blob.arrayBuffer())).text;
    let inputs;
    try {
      inputs = parseImport(file.name, text);
    } catch (e) {
      throw new ImportFileError(name, (e as Error).message, e instanceof ImportError ? e.itemIndex : undefined);
    }
    bytesRead += file.blob.size;
    items += inputs.length;
    opts.onProgress?.({ bytesRead, bytesTotal, items });
    yield { items: inputs, file: name, format: /\.json$/i.test(name) ? 'memory-file' : /\.txt$/i.test(name) ? 'text' : 'markdown' };
  }
}
