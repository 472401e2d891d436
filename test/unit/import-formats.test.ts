// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { h, render } from 'preact';
import { describe, expect, it } from 'vitest';
import { IMPORT_FORMATS, IMPORT_FORMAT_NAMES, type ImportFormat } from '../../lib/core/import-formats';
import { FORMAT_READERS } from '../../lib/import/format-readers';
import type { ImportFile } from '../../lib/import/types';
import { mayWriteId } from '../../lib/memory/id-namespaces';
import { guessScope } from '../../lib/memory/scope-guess';
import { ImportFormatsHelp } from '../../lib/ui/import/import-formats-help';
import { formatName } from '../../lib/ui/memory/source-labels';
import { bytesFile, fixtureFile, readAll } from './import-fixtures';

/** Every import format is declared once (lib/core/import-formats.ts) and reaches every place that reads or names it. */

/** One small file of each format, picked as the user would pick it. */
const SAMPLES: Record<ImportFormat, () => ImportFile> = {
  'memory-file': () => bytesFile('memory.json', JSON.stringify({ format: 'backstory-memory', version: 1, items: [{ text: 'The crate goes to pier 4.' }] })),
  chatgpt: () => fixtureFile('chatgpt/conversations.json'),
  claude: () => fixtureFile('claude/conversations.json'),
  mbox: () => fixtureFile('mail/takeout.mbox'),
  eml: () => fixtureFile('mail/reply.eml'),
  markdown: () => fixtureFile('vault/Projects/Lisbon offsite.md'),
  notion: () => fixtureFile('notion/Team wiki 3f2a9c1e8b7d4e6fa0b1c2d3e4f5a6b7.md'),
  text: () => bytesFile('packing.txt', 'Passport, charger, the blue folder.'),
};

/** The README's section on importing, up to the next section. */
function readmeImportSection(): string {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const start = readme.indexOf('## Importing what you already have');
  expect(start).toBeGreaterThanOrEqual(0);
  return readme.slice(start, readme.indexOf('\n## ', start + 3));
}

describe('the import formats', () => {
  it('has eight formats, each with a name, how to get the file, a scope, id prefixes and a reader', () => {
    expect(IMPORT_FORMAT_NAMES).toEqual(['memory-file', 'chatgpt', 'claude', 'mbox', 'eml', 'markdown', 'notion', 'text']);
    for (const f of IMPORT_FORMAT_NAMES) {
      const info = IMPORT_FORMATS[f];
      expect(info.label.trim(), f).not.toBe('');
      expect(info.how.trim(), f).toMatch(/\.$/);
      expect(info.idPrefixes.length, f).toBeGreaterThan(0);
      expect(typeof FORMAT_READERS[f], f).toBe('function');
    }
    expect(Object.keys(FORMAT_READERS).sort()).toEqual([...IMPORT_FORMAT_NAMES].sort());
    expect(new Set(IMPORT_FORMAT_NAMES.map((f) => IMPORT_FORMATS[f].label)).size).toBe(IMPORT_FORMAT_NAMES.length);
  });

  it.each(IMPORT_FORMAT_NAMES)('reads a %s file as items of its format, under its own id prefixes, named as the table names it', async (f) => {
    const { items } = await readAll([SAMPLES[f]()]);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.source?.format).toBe(f);
      // Outside formats key every item under a prefix they own; the memory file's sample gives no ids.
      if (f !== 'memory-file') expect(IMPORT_FORMATS[f].idPrefixes).toContain(item.id!.slice(0, item.id!.indexOf(':')));
    }
    expect(formatName(f)).toBe(IMPORT_FORMATS[f].label);
  });

  it('lets each format write ids only under its own prefixes', () => {
    for (const f of IMPORT_FORMAT_NAMES) {
      for (const g of IMPORT_FORMAT_NAMES) {
        for (const prefix of IMPORT_FORMATS[g].idPrefixes) {
          expect(mayWriteId(`${prefix}:x`, f), `${f} writing ${prefix}:`).toBe(IMPORT_FORMATS[f].idPrefixes.includes(prefix));
        }
      }
    }
  });

  it('scopes text from another app to the kind of place it was written for, and a memory file as the user\'s own', () => {
    const text = 'The crate goes to pier 4.';
    for (const f of IMPORT_FORMAT_NAMES) {
      const scope = guessScope({ text, source: { format: f } });
      const want = IMPORT_FORMATS[f].scope;
      if (want === 'own') expect(scope, f).toEqual({ kind: 'everywhere', values: [], set: 'guess' });
      else expect(scope, f).toEqual({ kind: 'destination', values: [want], set: 'source' });
    }
    expect(guessScope({ text, source: { format: 'chatgpt' } }).values).toEqual(['chat']);
    expect(guessScope({ text, source: { format: 'mbox' } }).values).toEqual(['email']);
    expect(guessScope({ text, source: { format: 'some-future-app' } }).values).toEqual(['documents']);
  });

  it('is named in the README\'s import section, each as a list entry of its own', () => {
    const section = readmeImportSection();
    for (const f of IMPORT_FORMAT_NAMES) expect(section, f).toContain(`- **${IMPORT_FORMATS[f].label}**`);
  });

  it('is listed on the options page with how to get the file', () => {
    const root = document.createElement('div');
    render(h(ImportFormatsHelp, {}), root);
    const rows = [...root.querySelectorAll('[data-testid="import-formats"] li')];
    expect(rows.map((r) => r.getAttribute('data-format'))).toEqual([...IMPORT_FORMAT_NAMES]);
    for (const [i, f] of IMPORT_FORMAT_NAMES.entries()) expect(rows[i].textContent).toBe(`${IMPORT_FORMATS[f].label}: ${IMPORT_FORMATS[f].how}`);
    render(null, root);
  });
});
