import type { Destination } from '../core/destinations';
import type { FactorName, FactorScores } from '../core/factors';

/** What the user did with a card: a use (insert, copy, drag) is a positive signal, "not useful" a negative one. */
export type FeedbackAction = 'insert' | 'copy' | 'drag' | 'dismiss';

/** One card as it was shown when the user acted: its place, its factor scores, and whether a pin put it there. */
export interface ShownCard {
  id: string;
  factors: FactorScores;
  pinned?: boolean;
}

/** One piece of feedback, kept on the device (it is memory too: exported, imported and cleared with it). */
export interface FeedbackEvent {
  id?: number;
  at: number;
  action: FeedbackAction;
  /** The card acted on. */
  itemId: string;
  /** Where: the page's host and the kind of destination. */
  site: string;
  destination: Destination;
  /** The cards on screen at that moment, in panel order (the card acted on among them). */
  shown: ShownCard[];
  /** The other cards used in the same action (Insert all): no preference between them. */
  together?: string[];
}

/** Log-multipliers of the factor weights: the weight used is the slider's times e^θ. */
export type Adjustment = Record<FactorName, number>;

/** What learning found: a change for everywhere and, where the user's feedback there says more, per site. */
export interface LearnedWeights {
  global: Adjustment;
  sites: Record<string, Adjustment>;
  /** Preference pairs the fit used. */
  pairs: number;
  fittedAt: number;
}
