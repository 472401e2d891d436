import { browser } from 'wxt/browser';
import type { RankSettings } from '../rank/types';
import { normalizeSettings } from '../settings/settings';

const KEY = 'settings';

export async function loadSettings(): Promise<RankSettings> {
  const got = await browser.storage.local.get(KEY);
  return normalizeSettings(got[KEY]);
}

export async function saveSettings(settings: RankSettings): Promise<RankSettings> {
  const clean = normalizeSettings(settings);
  await browser.storage.local.set({ [KEY]: clean });
  return clean;
}

export function onSettingsChanged(cb: (s: RankSettings) => void): void {
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes[KEY]) cb(normalizeSettings(changes[KEY].newValue));
  });
}
