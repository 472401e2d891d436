import { useState } from 'preact/hooks';
import type { IndexingProgress } from '../../messaging/protocol';
import { decodeFileBytes } from '../../memory/decode-text';
import { callBackground } from '../../messaging/rpc';

const MAX_IMPORT_BYTES = 60 * 2 ** 20;
const IMPORTABLE = /\.(json|md|markdown|txt)$/i;

export type ImportMessage = { ok: boolean; text: string };

/** Files and folders to import (each file all or nothing), export, and indexing progress. */
export function ImportExportSection(props: {
  indexing: IndexingProgress | undefined;
  message: ImportMessage | undefined;
  setMessage: (m: ImportMessage | undefined) => void;
  onImported: () => void;
}) {
  const { setMessage } = props;
  const [busy, setBusy] = useState('');

  const importFiles = async (files: File[]) => {
    const wanted = files.filter((f) => IMPORTABLE.test(f.name));
    if (!wanted.length) return setMessage({ ok: false, text: 'No .json, .md or .txt files were chosen.' });
    let added = 0;
    setMessage(undefined);
    for (const [i, file] of wanted.entries()) {
      setBusy(`Importing ${file.name} (${i + 1} of ${wanted.length})…`);
      try {
        // Chrome carries at most 64 MiB in one extension message; refuse before reading rather than fail midway.
        if (file.size > MAX_IMPORT_BYTES) throw new Error(`The file is ${(file.size / 2 ** 20).toFixed(0)} MB; Backstory imports at most ${MAX_IMPORT_BYTES / 2 ** 20} MB at a time — split it into smaller files.`);
        const content = decodeFileBytes(new Uint8Array(await file.arrayBuffer())).text;
        added += (await callBackground('memory:import', { fileName: file.name, content })).added;
      } catch (err) {
        setBusy('');
        const before = added ? ` ${added} ${added === 1 ? 'memory' : 'memories'} from earlier files were kept.` : '';
        return setMessage({ ok: false, text: `Import of ${file.name} failed: ${(err as Error).message} Nothing from this file was changed.${before}` });
      }
    }
    setBusy('');
    setMessage({ ok: true, text: `Imported ${added} ${added === 1 ? 'memory' : 'memories'} from ${wanted.length} ${wanted.length === 1 ? 'file' : 'files'}.` });
    props.onImported();
  };
  const onImport = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const files = Array.from(input.files ?? []);
    void importFiles(files).finally(() => (input.value = ''));
  };

  const onExport = async () => {
    const { content } = await callBackground('memory:export', {});
    const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `backstory-memory-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const { indexing, message } = props;
  return (
    <section aria-labelledby="h-io">
      <h2 id="h-io">Import and export</h2>
      <p class="muted">A Backstory memory file (.json), Markdown notes (.md; one memory per section) or plain text (.txt). Each file is all or nothing.</p>
      <div class="io-row">
        <label class="file">
          <span>Files</span>
          <input data-testid="import-file" type="file" multiple accept=".json,.md,.markdown,.txt,application/json,text/markdown,text/plain" onChange={onImport} />
        </label>
        <label class="file">
          <span>A folder of notes</span>
          <input data-testid="import-folder" type="file" multiple onChange={onImport}
            ref={(el) => el?.setAttribute('webkitdirectory', '')} />
        </label>
        <button data-testid="export" onClick={() => void onExport()}>Export memory</button>
      </div>
      {busy ? <p role="status" data-testid="import-busy">{busy}</p> : null}
      {indexing ? (
        <p role="status" data-testid="indexing">
          Indexing {indexing.done} of {indexing.total}… <progress max={indexing.total} value={indexing.done} />
        </p>
      ) : null}
      {message ? <p data-testid="import-message" class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>{message.text}</p> : null}
    </section>
  );
}
