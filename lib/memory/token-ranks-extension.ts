// In the extension, in place of lib/memory/token-ranks-node.ts (wxt.config.ts): the ranks are read from
// /tokenizer/o200k_base.json (written by scripts/install-assets.mjs from gpt-tokenizer's own table) when the service
// starts. Built into the worker's script they were 1.9 MB of array literal, about 75 of the 130 ms a worker took to
// start before it could answer anything; read as JSON they load while memory loads.
import { browser } from 'wxt/browser';
import type { TokenRanks } from './token-ranks-node';

export type { TokenRanks };

/** The path of the ranks inside the extension. */
export const TOKEN_RANKS_PATH = '/tokenizer/o200k_base.json';

let ranks: TokenRanks | undefined;
let loading: Promise<void> | undefined;

/** Reads the ranks once; a failed read is tried again on the next call. */
export function loadTokenRanks(): Promise<void> {
  return (loading ??= read().catch((e: unknown) => {
    loading = undefined;
    throw e;
  }));
}

async function read(): Promise<void> {
  const res = await fetch(browser.runtime.getURL(TOKEN_RANKS_PATH));
  const body: unknown = res.ok ? await res.json() : undefined;
  if (!Array.isArray(body) || body.length < 100_000) throw new Error(`The token table (${TOKEN_RANKS_PATH}) is missing from this build: reinstall the extension.`);
  ranks = body as TokenRanks;
}

export function tokenRanks(): TokenRanks {
  if (!ranks) throw new Error('Tokens were counted before the token table was read (loadTokenRanks).');
  return ranks;
}
