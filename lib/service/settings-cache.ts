import type { RankSettings } from '../rank/types';
import { readSettings, storeSettings, watchSettings } from '../settings/settings-item';
import { applySettingsPatch, withSitePaused } from '../settings/settings';
import type { Settings, SettingsPatch } from '../settings/types';

/**
 * The worker's copy of the settings, and the only writer of them. Writes are queued one after another, each reading
 * what the last one stored, so two changes from two pages (a site paused in the panel while a slider moves on the
 * options page) both land. Whoever stored the change, `onChange` runs once for it: from the storage event, which
 * also carries changes made elsewhere.
 */
export class SettingsCache {
  private current?: Promise<Settings>;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(onChange: (s: Settings) => void) {
    watchSettings((s) => {
      this.current = Promise.resolve(s);
      onChange(s);
    });
  }

  get(): Promise<Settings> {
    this.current ??= readSettings();
    return this.current;
  }

  async rank(): Promise<RankSettings> {
    return (await this.get()).rank;
  }

  /** Writes the groups and fields named in `patch` over what is stored. */
  set(patch: SettingsPatch): Promise<Settings> {
    return this.write((s) => applySettingsPatch(s, patch));
  }

  /** Switches Backstory off (or on) for a site. */
  pauseSite(site: string, paused: boolean): Promise<Settings> {
    return this.write((s) => ({ ...s, ui: withSitePaused(s.ui, site, paused) }));
  }

  private write(change: (s: Settings) => Settings): Promise<Settings> {
    const done = this.writes.then(async () => {
      const saved = await storeSettings(change(await readSettings()));
      this.current = Promise.resolve(saved);
      return saved;
    });
    this.writes = done.catch(() => undefined);
    return done;
  }
}
