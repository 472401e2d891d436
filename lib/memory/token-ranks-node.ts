// The token table the counter reads, where a module can import gpt-tokenizer's ranks: Node's tests and benches. The
// extension build puts lib/memory/token-ranks-extension.ts in this module's place (wxt.config.ts), which reads the
// table from a file shipped beside the scripts.
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { tableOf, tokenBytes, type TokenTable } from './token-table';

let table: TokenTable | undefined;

/** Here the ranks are in the module already; the table is made at first use. */
export async function loadTokenTable(): Promise<void> {}

export function tokenTable(): TokenTable {
  return (table ??= tableOf(tokenBytes(ranks)));
}
