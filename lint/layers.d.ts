// Types of lint/layers.js for the test that runs the rule.
import type { Rule } from 'eslint';

export declare const LAYERS: string[][];
export declare const DATA: Record<string, string[]>;
export declare function folderOf(rel: string): { folder: string; name: string } | undefined;
export declare const layersRule: Rule.RuleModule;
declare const plugin: { rules: { layers: Rule.RuleModule } };
export default plugin;
