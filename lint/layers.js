// The layers of lib/ (DEVELOPERS.md, "Layers"): a folder may import its own files and folders of lower layers, never
// a higher layer and never a peer (another folder of its own layer). Folders outside this table (test/, bench/,
// scripts/) are not checked.
import path from 'node:path';

/** From the bottom. Each entry is one layer; folders in the same entry are peers. `entrypoints` is the top-level folder. */
export const LAYERS = [
  ['core', 'channel'],
  ['embed'],
  ['memory'],
  ['import', 'rank', 'sync'],
  ['learn', 'memory-browse', 'settings'],
  ['dom'],
  ['insert'],
  ['messaging'],
  ['sites'],
  ['service', 'ui'],
  ['entrypoints'],
];

/** Data folders outside lib/ and the only folders that may import them. */
export const DATA = { demo: ['ui'] };

/** The layered folder a path (relative to the project root, with /) belongs to, or undefined. */
export function folderOf(rel) {
  const parts = rel.split('/');
  if (parts[0] === 'lib' && parts.length > 2) return { folder: parts[1], name: `lib/${parts[1]}` };
  if ((parts[0] === 'entrypoints' || parts[0] in DATA) && parts.length > 1) return { folder: parts[0], name: parts[0] };
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'A folder of lib/ imports only from its own layer folder or lower layers (DEVELOPERS.md, "Layers").' },
    schema: [],
    messages: {
      higher: '{{from}} may not import {{to}}: {{a}} is below {{b}} (DEVELOPERS.md, "Layers").',
      peer: '{{from}} may not import {{to}}: {{a}} and {{b}} are peers in one layer (DEVELOPERS.md, "Layers").',
      data: '{{from}} may not import {{to}}: only {{allowed}} may (DEVELOPERS.md, "Layers").',
    },
  },
  create(context) {
    const root = context.cwd;
    const rel = path.relative(root, context.filename).split(path.sep).join('/');
    const from = folderOf(rel);
    if (!from) return {};
    const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));

    function check(node, spec) {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), spec)).split(path.sep).join('/');
      const to = folderOf(target.includes('/') ? target : `${target}/`);
      if (!to || to.folder === from.folder) return;
      const names = { from: from.name, to: to.name, a: from.folder, b: to.folder };
      if (to.folder in DATA) {
        const allowed = DATA[to.folder];
        if (!allowed.includes(from.folder)) context.report({ node, messageId: 'data', data: { ...names, allowed: allowed.map((f) => `lib/${f}`).join(', ') } });
        return;
      }
      const a = layerOf.get(from.folder);
      const b = layerOf.get(to.folder);
      if (a === undefined || b === undefined) return;
      if (b > a) context.report({ node, messageId: 'higher', data: names });
      else if (b === a) context.report({ node, messageId: 'peer', data: names });
    }

    const source = (node) => check(node.source, node.source?.value);
    return {
      ImportDeclaration: source,
      ExportNamedDeclaration: source,
      ExportAllDeclaration: source,
      ImportExpression: (node) => check(node.source, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => {
        // `source` in current typescript-eslint; `argument` (a literal type) in older ones.
        const lit = node.source ?? (node.argument?.type === 'TSLiteralType' ? node.argument.literal : undefined);
        check(node, lit?.type === 'Literal' ? lit.value : undefined);
      },
    };
  },
};

export default { rules: { layers: layersRule } };
