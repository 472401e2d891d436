import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import { layersRule } from '../../lint/layers.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const file = (rel: string) => path.join(process.cwd(), rel);

tester.run('layers', layersRule, {
  valid: [
    // A lower layer, the same folder, a subfolder of the same folder, a package.
    { filename: file('lib/rank/retrieve.ts'), code: "import type { MemoryView } from '../memory/index/memory-view';" },
    { filename: file('lib/memory/index/memory-index.ts'), code: "import { LexicalIndex } from './lexical-index';" },
    { filename: file('lib/memory/store.ts'), code: "import { IndexedMemory } from './index/memory-index';" },
    { filename: file('lib/ui/side-panel.tsx'), code: "import { callBackground } from '../messaging/rpc'; import { h } from 'preact';" },
    { filename: file('entrypoints/background.ts'), code: "import { startService } from '../lib/service/index';" },
    // The demo memory is the welcome page's to load.
    { filename: file('lib/ui/welcome.tsx'), code: "import demo from '../../demo/memory.json';" },
    // Tests and benches are outside the layers.
    { filename: file('test/unit/x.test.ts'), code: "import { a } from '../../lib/ui/side-panel';" },
  ],
  invalid: [
    {
      filename: file('lib/memory/store.ts'),
      code: "import { retrieve } from '../rank/retrieve';",
      errors: [{ message: 'lib/memory may not import lib/rank: memory is below rank (DEVELOPERS.md, "Layers").' }],
    },
    {
      // From a subfolder, a re-export and a type-only import all count.
      filename: file('lib/memory/index/memory-view.ts'),
      code: "export type { Weights } from '../../rank/types'; import type { Settings } from '../../settings/types';",
      errors: [{ messageId: 'higher' }, { messageId: 'higher' }],
    },
    {
      filename: file('lib/embed/offscreen-client.ts'),
      code: "const rpc = await import('../messaging/rpc'); type T = import('../service/index').Service;",
      errors: [{ messageId: 'higher' }, { messageId: 'higher' }],
    },
    {
      filename: file('lib/ui/site-access-list.tsx'),
      code: "import { readablePatterns } from '../service/site-access';",
      errors: [{ message: 'lib/ui may not import lib/service: ui and service are peers in one layer (DEVELOPERS.md, "Layers").' }],
    },
    {
      filename: file('lib/import/index.ts'),
      code: "import { terms } from '../rank/query';",
      errors: [{ messageId: 'peer' }],
    },
    {
      filename: file('lib/service/index.ts'),
      code: "import demo from '../../demo/memory.json';",
      errors: [{ message: 'lib/service may not import demo: only lib/ui may (DEVELOPERS.md, "Layers").' }],
    },
    {
      filename: file('lib/core/kth-largest.ts'),
      code: "import { x } from '../../entrypoints/background';",
      errors: [{ message: 'lib/core may not import entrypoints: core is below entrypoints (DEVELOPERS.md, "Layers").' }],
    },
  ],
});
