import { storage, type WxtStorageItem } from '@wxt-dev/storage';
import { DEFAULT_CAPTURE, DEFAULT_EMBED, DEFAULT_SETTINGS, DEFAULT_UI } from './defaults';
import { SETTINGS_MIGRATIONS, SETTINGS_VERSION } from './migrations';
import { normalizeSettings } from './settings';
import type { Settings } from './types';

export const SETTINGS_KEY = 'local:settings';
const FALLBACK: Settings = { rank: DEFAULT_SETTINGS, ui: DEFAULT_UI, capture: DEFAULT_CAPTURE, embed: DEFAULT_EMBED };

let item: WxtStorageItem<Settings, Record<string, unknown>> | undefined;

/**
 * The one settings item every part reads (worker, content script, options page). Defined on first use, not at
 * import: defining it starts the stored object's migration, which needs the extension's storage API.
 */
export function settingsItem(): WxtStorageItem<Settings, Record<string, unknown>> {
  item ??= storage.defineItem<Settings>(SETTINGS_KEY, {
    version: SETTINGS_VERSION,
    migrations: SETTINGS_MIGRATIONS as unknown as Record<number, (old: unknown) => Settings>,
    fallback: FALLBACK,
  });
  return item;
}

/** The stored settings, filled and clamped. */
export async function readSettings(): Promise<Settings> {
  return normalizeSettings(await settingsItem().getValue());
}

/** Calls `cb` with the new settings whenever they are stored (by any page). Returns the unsubscribe function. */
export function watchSettings(cb: (s: Settings) => void): () => void {
  return settingsItem().watch((v) => cb(normalizeSettings(v)));
}

/** Stores a whole settings object (normalised first). Only the service worker writes: see lib/service/settings-cache.ts. */
export async function storeSettings(s: Settings): Promise<Settings> {
  const clean = normalizeSettings(s);
  await settingsItem().setValue(clean);
  return clean;
}
