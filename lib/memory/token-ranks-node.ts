// The BPE ranks the token counter is made from (o200k_base, as gpt-tokenizer ships them), where a module can import
// them: Node's tests and benches. The extension build puts lib/memory/token-ranks-extension.ts in this module's
// place (wxt.config.ts), which reads them from a file shipped beside the scripts.
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';

/** The ranks as gpt-tokenizer takes them: each token's string, or its bytes where they are not UTF-8. */
export type TokenRanks = (string | number[])[];

/** Here the ranks are in the module already. */
export async function loadTokenRanks(): Promise<void> {}

export function tokenRanks(): TokenRanks {
  return ranks;
}
