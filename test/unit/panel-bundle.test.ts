import { build } from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The side panel opens on every tab the user works in. Anything its page imports is parsed and held for as long as
// it is open: the token counter's BPE tables alone are 2 MB of code and about 9 MB of heap, which the panel never
// uses (token counts are made by the service worker when an item is stored).
describe('the side panel page', () => {
  it('does not load the token counter, the model runtime or the import readers', async () => {
    const out = await build({
      entryPoints: [join(__dirname, '../../entrypoints/sidepanel/main.tsx')],
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
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.length).toBeGreaterThan(20); // the panel's own modules were found
    expect(inputs.filter((p) => /gpt-tokenizer|onnxruntime|@huggingface|fflate|postal-mime|@streamparser/.test(p))).toEqual([]);
  });
});
