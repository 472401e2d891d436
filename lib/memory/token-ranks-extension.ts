// In the extension, in place of lib/memory/token-ranks-node.ts (wxt.config.ts): the token table is read from
// /tokenizer/o200k_base.bin (written by scripts/install-assets.mjs from gpt-tokenizer's own ranks) when the service
// starts. Built into the worker's script the ranks were 1.9 MB of array literal, about 75 of the 130 ms a worker took
// to start; read as JSON and made into gpt-tokenizer's Map they took 200 ms or more of each start.
import { browser } from 'wxt/browser';
import { readTokenTable, type TokenTable } from './token-table';

/** The path of the table inside the extension. */
export const TOKEN_TABLE_PATH = '/tokenizer/o200k_base.bin';

let table: TokenTable | undefined;
let loading: Promise<void> | undefined;

/** Reads the table once; a failed read is tried again on the next call. */
export function loadTokenTable(): Promise<void> {
  return (loading ??= read().catch((e: unknown) => {
    loading = undefined;
    throw e;
  }));
}

async function read(): Promise<void> {
  const res = await fetch(browser.runtime.getURL(TOKEN_TABLE_PATH));
  if (!res.ok) throw new Error(`The token table (${TOKEN_TABLE_PATH}) is missing from this build: reinstall the extension.`);
  const read = readTokenTable(await res.arrayBuffer());
  if (read.size < 100_000) throw new Error(`The token table (${TOKEN_TABLE_PATH}) is incomplete: reinstall the extension.`);
  table = read;
}

export function tokenTable(): TokenTable {
  if (!table) throw new Error('Tokens were counted before the token table was read (loadTokenTable).');
  return table;
}
