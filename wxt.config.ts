import { defineConfig } from 'wxt';
import type { Plugin } from 'vite';

/**
 * onnxruntime-web locates its .wasm with `new URL(file, import.meta.url)`. The background is built as a classic
 * script, where Vite would inline that 27 MB file as base64 (twice). Point it at the copy shipped in /ort/ instead.
 */
function ortWasmFromExtension(): Plugin {
  return {
    name: 'backstory:ort-wasm-from-extension',
    enforce: 'pre',
    transform(code, id) {
      if (!id.includes('onnxruntime-web')) return null;
      const out = code.replace(
        /new URL\((["'])(ort-wasm-simd-threaded[\w.]*\.wasm)\1\s*,\s*import\.meta\.url\)/g,
        (_m, _q, file) => `new URL("/ort/${file}", self.location.href)`,
      );
      return out === code ? null : { code: out, map: null };
    },
  };
}

// Manifest and build settings. Names used outside (commands, pages) are fixed by ../shared/CONTRACT.md.
export default defineConfig({
  srcDir: '.',
  entrypointsDir: 'entrypoints',
  publicDir: 'public',
  outDir: '.output',
  // import.meta is empty in the classic-script background; the libraries that read it have fallbacks (and the
  // onnxruntime .wasm is pointed at explicitly above), so the warning is noise.
  vite: () => ({ plugins: [ortWasmFromExtension()], build: { rolldownOptions: { checks: { emptyImportMeta: false } } } }),
  manifest: ({ browser }) => ({
    name: 'Backstory',
    description: 'Brings the background you already wrote down to whatever you are writing now. Everything stays on your device.',
    permissions: ['storage', 'contextMenus', 'tabs', 'clipboardWrite', ...(browser === 'firefox' ? [] : ['sidePanel', 'offscreen'])],
    host_permissions: ['<all_urls>'],
    action: { default_title: 'Open Backstory' },
    commands: {
      'insert-top-card': {
        suggested_key: { default: 'Alt+Shift+K' },
        description: 'Insert the top-ranked card into the focused field',
      },
      'open-side-panel': {
        suggested_key: { default: 'Alt+Shift+B' },
        description: 'Open the Backstory side panel',
      },
    },
    content_security_policy: {
      extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'",
    },
  }),
});
