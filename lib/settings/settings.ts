import { WEIGHT_NAMES, type RankSettings } from '../rank/types';
import { DEFAULT_SETTINGS } from './defaults';

const clamp = (x: unknown, lo: number, hi: number, fallback: number): number =>
  typeof x === 'number' && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : fallback;

/** Fills gaps and clamps every value, so a stored or imported settings object can never break ranking. */
export function normalizeSettings(raw: unknown): RankSettings {
  const s = (raw && typeof raw === 'object' ? raw : {}) as Partial<RankSettings>;
  const w = (s.weights ?? {}) as Partial<RankSettings['weights']>;
  const weights = { ...DEFAULT_SETTINGS.weights };
  for (const name of WEIGHT_NAMES) weights[name] = clamp(w[name], 0, 1, DEFAULT_SETTINGS.weights[name]);
  return {
    ...DEFAULT_SETTINGS,
    ...s,
    weights,
    halfLifeDays: clamp(s.halfLifeDays, 0.5, 3650, DEFAULT_SETTINGS.halfLifeDays),
    budgetTokens: Math.round(clamp(s.budgetTokens, 50, 20_000, DEFAULT_SETTINGS.budgetTokens)),
    maxCards: Math.round(clamp(s.maxCards, 1, 50, DEFAULT_SETTINGS.maxCards)),
    threshold: clamp(s.threshold, 0, 1, DEFAULT_SETTINGS.threshold),
  };
}
