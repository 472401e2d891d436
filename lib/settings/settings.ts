import { siteKey, siteListed } from '../core/hosts';
import { FACTOR_NAMES } from '../core/factors';
import type { RankSettings } from '../rank/types';
import { DEFAULT_CAPTURE, DEFAULT_EMBED, DEFAULT_SETTINGS, DEFAULT_UI } from './defaults';
import { EMBED_BACKEND_CHOICES, type EmbedBackendChoice } from '../embed/gpu-adapter';
import type { CaptureSettings, EmbedSettings, Settings, SettingsPatch, UiSettings } from './types';

const clamp = (x: unknown, lo: number, hi: number, fallback: number): number =>
  typeof x === 'number' && Number.isFinite(x) ? Math.min(hi, Math.max(lo, x)) : fallback;

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A hostname as typed by a person ("https://www.Mail.google.com/x" -> "mail.google.com"), or '' if it is not one. */
export function normalizeHost(raw: string): string {
  let s = raw.trim().toLowerCase();
  if (!s) return '';
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) s = new URL(s).hostname;
  } catch {
    return '';
  }
  s = siteKey(s.replace(/\/.*$/, '').replace(/:\d+$/, '')).replace(/\.$/, '');
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

/** Fills gaps and clamps every value, so a stored or previewed ranker setting can never break ranking. */
export function normalizeRankSettings(raw: unknown): RankSettings {
  const s = record(raw);
  const w = record(s.weights);
  const weights = { ...DEFAULT_SETTINGS.weights };
  for (const name of FACTOR_NAMES) weights[name] = clamp(w[name], 0, 1, DEFAULT_SETTINGS.weights[name]);
  return {
    ...s, // fields this version does not know are carried along
    weights,
    halfLifeDays: clamp(s.halfLifeDays, 0.5, 3650, DEFAULT_SETTINGS.halfLifeDays),
    budgetTokens: Math.round(clamp(s.budgetTokens, 50, 20_000, DEFAULT_SETTINGS.budgetTokens)),
    maxCards: Math.round(clamp(s.maxCards, 1, 50, DEFAULT_SETTINGS.maxCards)),
    threshold: clamp(s.threshold, 0, 1, DEFAULT_SETTINGS.threshold),
  };
}

function normalizeUi(raw: unknown): UiSettings {
  const s = record(raw);
  return { ...DEFAULT_UI, ...s, excludedSites: hostList(s.excludedSites) };
}

function normalizeCapture(raw: unknown): CaptureSettings {
  const s = record(raw);
  return { ...DEFAULT_CAPTURE, ...s, sent: s.sent === true, sites: hostList(s.sites) };
}

function normalizeEmbed(raw: unknown): EmbedSettings {
  const s = record(raw);
  const backend = EMBED_BACKEND_CHOICES.includes(s.backend as EmbedBackendChoice) ? (s.backend as EmbedBackendChoice) : DEFAULT_EMBED.backend;
  return { ...DEFAULT_EMBED, ...s, backend };
}

/** The whole settings object, every group filled and clamped; unknown fields are kept. */
export function normalizeSettings(raw: unknown): Settings {
  const s = record(raw);
  return { ...s, rank: normalizeRankSettings(s.rank), ui: normalizeUi(s.ui), capture: normalizeCapture(s.capture), embed: normalizeEmbed(s.embed) };
}

/** `current` with the groups and fields of `patch` written over it, normalised. */
export function applySettingsPatch(current: Settings, patch: SettingsPatch): Settings {
  return normalizeSettings({
    ...current,
    rank: { ...current.rank, ...patch.rank, weights: { ...current.rank.weights, ...patch.rank?.weights } },
    ui: { ...current.ui, ...patch.ui },
    capture: { ...current.capture, ...patch.capture },
    embed: { ...current.embed, ...patch.embed },
  });
}

/** Switches Backstory off (or back on) for a site: the site itself, or every listed host it belongs to. */
export function withSitePaused(ui: UiSettings, site: string, paused: boolean): UiSettings {
  const host = normalizeHost(site);
  if (!host) throw new Error(`“${site}” is not a site name.`);
  const list = new Set(ui.excludedSites);
  if (paused) list.add(host);
  else for (const h of [...list]) if (siteListed([h], host)) list.delete(h);
  return { ...ui, excludedSites: [...list] };
}

/** Two changes as one (`b` wins where both name a field), for a save that waits for a pause in the edits. */
export function mergeSettingsPatch(a: SettingsPatch, b: SettingsPatch): SettingsPatch {
  const out: SettingsPatch = {};
  if (a.rank || b.rank) out.rank = { ...a.rank, ...b.rank };
  if (a.ui || b.ui) out.ui = { ...a.ui, ...b.ui };
  if (a.capture || b.capture) out.capture = { ...a.capture, ...b.capture };
  if (a.embed || b.embed) out.embed = { ...a.embed, ...b.embed };
  return out;
}
