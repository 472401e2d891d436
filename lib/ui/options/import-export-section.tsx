import { ImportSection } from '../import/import-section';
import { IMPORT_SECTION } from '../open-pages';
import { exportMemoryFile } from './export-memory';

export type DataMessage = { ok: boolean; text: string };

/** Imports (run by the worker as jobs, whatever page is open) and the export of the whole memory. */
export function ImportExportSection(props: { message: DataMessage | undefined; onChanged: () => void }) {
  const onExport = async () => {
    const url = URL.createObjectURL(await exportMemoryFile());
    const a = document.createElement('a');
    a.href = url;
    a.download = `backstory-memory-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  const { message } = props;
  return (
    <section aria-labelledby="h-io" id={IMPORT_SECTION}>
      <h2 id="h-io" tabIndex={-1}>Import and export</h2>
      <ImportSection onChanged={props.onChanged} />
      <button data-testid="export" onClick={() => void onExport()}>Export memory</button>
      {message ? <p data-testid="data-message" class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>{message.text}</p> : null}
    </section>
  );
}
