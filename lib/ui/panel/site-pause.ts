import { callBackground } from '../../messaging/rpc';

/** Switches Backstory off (or on again) for a site: one message, so a change saved elsewhere meanwhile is kept. */
export async function setSitePaused(site: string, paused: boolean): Promise<void> {
  await callBackground('site:pause', { site, paused });
}
