import { IMPORT_FORMATS, IMPORT_FORMAT_NAMES } from '../../core/import-formats';

/** Every kind of file Backstory reads, as the memory browser names it, with how to get the file. */
export function ImportFormatsHelp() {
  return (
    <ul class="import-formats muted small" data-testid="import-formats">
      {IMPORT_FORMAT_NAMES.map((f) => (
        <li key={f} data-format={f}>
          <strong>{IMPORT_FORMATS[f].label}</strong>: {IMPORT_FORMATS[f].how}
        </li>
      ))}
    </ul>
  );
}
