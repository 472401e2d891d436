import type { RankSettings } from '../rank/types';

export const DEFAULT_SETTINGS: RankSettings = {
  weights: { semantic: 0.45, lexical: 0.35, recency: 0.03, priority: 0.06, continuity: 0.03, situation: 0.03 },
  halfLifeDays: 30,
  budgetTokens: 800,
  maxCards: 8,
  threshold: 0.2,
};
