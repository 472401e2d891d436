import type { RankSettings } from '../rank/types';
import type { CaptureSettings, EmbedSettings, UiSettings } from './types';

/** The ranker's defaults (also what benchmarks and Node tools rank with). */
export const DEFAULT_SETTINGS: RankSettings = {
  weights: { semantic: 0.45, lexical: 0.35, recency: 0.03, priority: 0.06, continuity: 0.03, situation: 0.03 },
  halfLifeDays: 30,
  budgetTokens: 800,
  maxCards: 8,
  threshold: 0.2,
};

export const DEFAULT_UI: UiSettings = { excludedSites: [] };

/** Sent-message capture is off until the user turns it on for named sites. */
export const DEFAULT_CAPTURE: CaptureSettings = { sent: false, sites: [] };

/** WebGPU indexing where there is a hardware GPU, WASM elsewhere. */
export const DEFAULT_EMBED: EmbedSettings = { backend: 'auto' };
