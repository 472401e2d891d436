/**
 * How the stored settings object changed, version by version. Each step takes the object exactly as the previous
 * version stored it and keeps every value, including fields it does not know (an older build's leftovers).
 *
 * v1: one flat object: the ranker's fields beside `excludedSites`, `captureSent` and `captureSites`.
 * v2: grouped: `rank` (what the ranker reads), `ui` (where Backstory stays off) and `capture` (sent messages).
 * v3: `embed` (which backend indexes imports), at its default: WebGPU on a hardware GPU, WASM otherwise.
 */
export const SETTINGS_VERSION = 3;

type Stored = Record<string, unknown>;

function v1ToV2(v1: Stored): Stored {
  const { weights, halfLifeDays, budgetTokens, maxCards, threshold, excludedSites, captureSent, captureSites, ...rest } = v1;
  const defined = (o: Stored) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return {
    ...rest,
    rank: defined({ weights, halfLifeDays, budgetTokens, maxCards, threshold }),
    ui: defined({ excludedSites }),
    capture: defined({ sent: captureSent, sites: captureSites }),
  };
}

function v2ToV3(v2: Stored): Stored {
  return { ...v2, embed: { backend: 'auto' } };
}

/** Keyed by the version each step produces (as @wxt-dev/storage runs them). */
export const SETTINGS_MIGRATIONS: Record<number, (stored: Stored) => Stored> = { 2: v1ToV2, 3: v2ToV3 };
