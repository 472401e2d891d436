// What of the settings syncs, as the `$settings` record's fields (docs/sync.md, "What syncs"): the ranking and the
// capture switch (last writer wins), learning (feedback events as a union, and the switch) and the sites allowed
// here as suggestions for the other devices (a union of hostnames). Sites, excluded sites and engine choices belong
// to each device.
import { normalizeRankSettings } from '../settings/settings';
import type { SettingsPatch } from '../settings/types';
import type { SettingsHeads, SyncedSettings } from '../sync/settings-replica';

export interface SyncedParts {
  settings: { get(): Promise<{ rank: unknown; capture: { sent: boolean } }>; set(patch: SettingsPatch): Promise<unknown> };
  /** The `learning` value sent from here, and every concurrent value merged in (lib/learn/feedback-sync.ts). */
  learning: { syncValue(): Promise<unknown>; mergeSynced(values: readonly unknown[]): Promise<unknown> };
  /** The `siteSuggestions` value sent from here, and every concurrent value merged in (lib/service/site-suggestions.ts). */
  sites: { syncValue(): Promise<string[]>; receive(values: readonly unknown[]): Promise<void> };
}

/** The settings callbacks of a sync pass (lib/sync/engine.ts `SyncDeps.settings`). */
export function syncedSettingsIO(p: SyncedParts): { read(): Promise<SyncedSettings>; write(values: SyncedSettings, heads: SettingsHeads): Promise<void> } {
  return {
    read: async () => {
      const s = await p.settings.get();
      // A learning database or storage that cannot be read leaves its field out (not synced this pass) rather than
      // stop the sync of memory.
      const learning = await p.learning.syncValue().catch(() => undefined);
      const siteSuggestions = await p.sites.syncValue().catch(() => undefined);
      return {
        rank: s.rank, capture: { sent: s.capture.sent },
        ...(learning !== undefined ? { learning } : {}), ...(siteSuggestions ? { siteSuggestions } : {}),
      };
    },
    write: async (values, heads) => {
      const patch = settingsPatchOf(values);
      if (patch.rank || patch.capture) await p.settings.set(patch);
      // Unions: every concurrent head counts, not only the latest (the next edit here names them all as its base).
      // Nothing is lost when one cannot be written: each device keeps its own and sends it again.
      const learning = heads.learning ?? ('learning' in values ? [values.learning] : []);
      if (learning.length) await p.learning.mergeSynced(learning).catch(() => {});
      const sites = heads.siteSuggestions ?? ('siteSuggestions' in values ? [values.siteSuggestions] : []);
      if (sites.length) await p.sites.receive(sites).catch(() => {});
    },
  };
}

function settingsPatchOf(values: SyncedSettings): SettingsPatch {
  const capture = values.capture as { sent?: unknown } | undefined;
  return {
    ...(values.rank ? { rank: normalizeRankSettings(values.rank) } : {}),
    ...(capture && typeof capture.sent === 'boolean' ? { capture: { sent: capture.sent } } : {}),
  };
}
