import { DEFAULT_WEIGHTS } from '../core/factors';
import type { RankSettings } from '../rank/types';
import type { CaptureSettings, EmbedSettings, UiSettings } from './types';

/** The ranker's defaults (also what benchmarks and Node tools rank with). */
export const DEFAULT_SETTINGS: RankSettings = {
  weights: { ...DEFAULT_WEIGHTS },
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
