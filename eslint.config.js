// Lint for the TypeScript sources, tests, benches and scripts (run by `npm test` through `npm run lint`).
import tseslint from 'typescript-eslint';
import layers from './lint/layers.js';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['.output/', '.wxt/', 'node_modules/', 'public/', 'test/e2e/fixtures/editors/dist/', 'screenshots/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Unused names are errors, except the deliberate `_` placeholders of destructuring and callbacks.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `done && next()` and `a ? f() : g()` as statements are used on purpose for short guards.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    // Each folder of lib/ imports only from lower layers (DEVELOPERS.md, "Layers"); no exceptions are listed here.
    files: ['lib/**', 'entrypoints/**'],
    plugins: { local: layers, 'import-x': importX },
    settings: { 'import-x/extensions': ['.ts', '.tsx', '.js'], 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })] },
    rules: { 'local/layers': 'error', 'import-x/no-cycle': 'error' },
  },
  {
    // Code passed to page.evaluate runs in the page, where the editors' and the extension's globals have no types here.
    files: ['test/e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
