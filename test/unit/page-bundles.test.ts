import { build } from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The side panel opens on every tab the user works in, the options page for imports and settings. Anything a page
// imports is parsed and held for as long as it is open: the token counter's BPE tables alone are 2 MB of code and
// about 9 MB of heap, and neither page uses them (token counts are made by the service worker when an item is
// stored or memory is loaded), nor the model runtime or the import readers (imports are read by the worker).
async function bundledModules(entry: string): Promise<string[]> {
  const out = await build({
    entryPoints: [join(__dirname, '../../entrypoints', entry)],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'empty' },
    external: ['wxt/browser'],
    logLevel: 'silent',
  });
  return Object.keys(out.metafile.inputs);
}

const HEAVY = /gpt-tokenizer|onnxruntime|@huggingface|fflate|postal-mime|@streamparser/;

describe.each([
  ['the side panel page', 'sidepanel/main.tsx'],
  ['the options page', 'options/main.tsx'],
])('%s', (_name, entry) => {
  it('does not load the token counter, the model runtime or the import readers', async () => {
    const inputs = await bundledModules(entry);
    expect(inputs.length).toBeGreaterThan(20); // the page's own modules were found
    expect(inputs.filter((p) => HEAVY.test(p))).toEqual([]);
  });
});
