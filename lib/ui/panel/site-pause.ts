import { callBackground } from '../../messaging/rpc';

/** Switches Backstory off (or on again) for a site: the options page's excluded sites. */
export async function setSitePaused(site: string, paused: boolean): Promise<void> {
  const s = await callBackground('settings:get', {});
  const list = new Set(s.excludedSites ?? []);
  if (paused) list.add(site.replace(/^www\./, ''));
  else for (const h of [...list]) if (site === h || site.endsWith('.' + h) || site.replace(/^www\./, '') === h) list.delete(h);
  await callBackground('settings:set', { settings: { ...s, excludedSites: [...list] } });
}
