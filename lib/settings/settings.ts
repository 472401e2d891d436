import { WEIGHT_NAMES, type RankSettings } from '../rank/types';
import { DEFAULT_SETTINGS } from './defaults';

const clamp = (x: unknown, lo: number, hi: number, fallback: number): number =>
  typeof x === 'number' && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : fallback;

/** A hostname as typed by a person ("https://www.Mail.google.com/x" -> "mail.google.com"), or '' if it is not one. */
export function normalizeHost(raw: string): string {
  let s = raw.trim().toLowerCase();
  if (!s) return '';
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) s = new URL(s).hostname;
  } catch {
    return '';
  }
  s = s.replace(/\/.*$/, '').replace(/:\d+$/, '').replace(/^www\./, '').replace(/\.$/, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(s) && s.length <= 253 ? s : '';
}

/** A clean, de-duplicated, bounded list of hostnames. */
export function hostList(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out = new Set<string>();
  for (const x of v) {
    if (typeof x !== 'string') continue;
    const h = normalizeHost(x);
    if (h) out.add(h);
    if (out.size >= 500) break;
  }
  return [...out];
}

/** True when `site` is `host` or one of its subdomains. */
export function siteListed(list: readonly string[] | undefined, site: string | undefined): boolean {
  const s = (site ?? '').toLowerCase().replace(/^www\./, '');
  return !!s && !!list?.some((h) => s === h || s.endsWith('.' + h));
}

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
    excludedSites: hostList(s.excludedSites),
    captureSent: s.captureSent === true,
    captureSites: hostList(s.captureSites),
  };
}
