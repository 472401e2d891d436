import { useEffect, useRef, useState } from 'preact/hooks';
import { callBackground } from '../messaging/rpc';
import { applySettingsPatch, mergeSettingsPatch } from '../settings/settings';
import { readSettings, watchSettings } from '../settings/settings-item';
import type { Settings, SettingsPatch } from '../settings/types';
import { LearningSection } from './learning-section';
import { IMPORT_SECTION } from './open-pages';
import { CaptureSection } from './options/capture-section';
import { ClearDataSection } from './options/clear-data-section';
import { DiagnoseSection } from './options/diagnose-section';
import { FlaggedItems, loadFlagLists, type FlagLists } from './options/flagged-items';
import { HostList } from './options/host-list';
import { ImportExportSection, type DataMessage } from './options/import-export-section';
import { LimitsSection } from './options/limits-section';
import { ModelSection, type ModelInfo } from './options/model-section';
import { WeightsSection } from './options/weights-section';
import { ShortcutsSection } from './shortcuts';
import { SyncSection } from './options/sync-section';
import { SiteAccessList } from './site-access-list';
import { SiteSuggestionList } from './site-suggestions';
import { useServicePush } from './use-panel-state';

/** The options page: one section per concern, the common ones first; every change is saved at once. */
export function OptionsPage() {
  const [settings, setSettings] = useState<Settings>();
  const [message, setMessage] = useState<DataMessage>();
  const [lists, setLists] = useState<FlagLists>({ pinned: [], excluded: [], recent: [] });
  const [model, setModel] = useState<ModelInfo>();
  const saveTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const editSeq = useRef(0);
  // A reply from the worker must not undo an edit the user made while it was on its way, nor reset a field the user
  // is typing into (its change would then never fire, and the edit would be lost): such replies are dropped; the
  // field's own change saves and brings the next reply.
  const applyFromWorker = (got: Settings, seq: number) => {
    const typing = (document.activeElement as HTMLElement | null)?.matches?.('input[data-setting]');
    if (editSeq.current === seq && !typing) setSettings(got);
  };

  // Opened from the panel's welcome at #import: take the reader there once the sections above have their size.
  const loaded = settings !== undefined;
  useEffect(() => {
    if (loaded && location.hash === `#${IMPORT_SECTION}`) document.getElementById('h-io')?.focus();
  }, [loaded]);
  // Only what the lists show is read, not all memory (which may be 100k items).
  const reloadItems = () => void loadFlagLists().then(setLists);
  const reloadModel = () => void callBackground('model:status', {}).then(setModel);
  useEffect(() => {
    void readSettings().then(setSettings);
    reloadItems();
    reloadModel();
    // Another page (the side panel's per-site switch) may change settings: follow it.
    return watchSettings((got) => applyFromWorker(got, editSeq.current));
  }, []);
  // The model status is asked for when the worker says it changed, not polled.
  useServicePush((p) => {
    if (p.type === 'captured') reloadItems();
    if (p.type === 'model' || p.type === 'captured' || (p.type === 'indexing' && p.progress.done >= p.progress.total)) reloadModel();
  });

  /** Every change is saved at once (sliders after a short pause) and applies without reloading anything. */
  const pending = useRef<SettingsPatch>({});
  const save = (patch: SettingsPatch, delay = 0) => {
    const seq = ++editSeq.current;
    setSettings((s) => s && applySettingsPatch(s, patch));
    // Only what was changed is sent: a change another page made meanwhile (a site paused) is not written over.
    pending.current = mergeSettingsPatch(pending.current, patch);
    clearTimeout(saveTimer.current);
    saveTimer.current = setTimeout(() => {
      const changes = pending.current;
      pending.current = {};
      void callBackground('settings:set', { patch: changes }).then((saved) => applyFromWorker(saved, seq));
    }, delay);
  };

  return (
    <main class="options">
      <h1><img class="logo" src="/icons/32.png" alt="" width={24} height={24} />Backstory options</h1>
      <p class="muted">Everything stays on this device, except what Sync (below, off unless you turn it on) writes encrypted to a folder you choose. Changes apply immediately.</p>

      <WeightsSection settings={settings} save={save} />

      <ImportExportSection message={message} onChanged={() => (reloadItems(), reloadModel())} />

      <section aria-labelledby="h-access">
        <h2 id="h-access">Site access</h2>
        <p class="muted">Backstory reads the page you are writing on only on these sites. Allow another site from the side panel while you are on it (“Allow on …”); “Remember this” and the insert shortcut also work on the page where you use them.</p>
        <SiteAccessList />
        <SiteSuggestionList />
      </section>

      {settings ? (
        <section aria-labelledby="h-sites">
          <h2 id="h-sites">Sites</h2>
          <p class="muted">Of the sites Backstory may read, it is switched off on these: it does not rank for pages there (the side panel can switch a site too).</p>
          <HostList id="excluded-sites" label="Add a site to switch off" placeholder="e.g. bank.example.com" hosts={settings.ui.excludedSites}
            onChange={(excludedSites) => save({ ui: { excludedSites } })} />
        </section>
      ) : null}

      <SyncSection />

      <ShortcutsSection />

      {settings ? <LimitsSection settings={settings} save={save} /> : null}

      <LearningSection />

      <section aria-labelledby="h-lists">
        <h2 id="h-lists">Always include / never include</h2>
        <div class="two-col">
          <div>
            <h3>Always include (pinned)</h3>
            <FlaggedItems id="always-include" flag="pinned" items={lists.pinned} all={lists.recent} onChanged={reloadItems} />
          </div>
          <div>
            <h3>Never include</h3>
            <FlaggedItems id="never-include" flag="excluded" items={lists.excluded} all={lists.recent} onChanged={reloadItems} />
          </div>
        </div>
      </section>

      {settings ? <CaptureSection settings={settings} save={save} /> : null}

      {settings ? <ModelSection model={model} settings={settings} save={save} /> : null}

      <DiagnoseSection />

      <ClearDataSection count={model?.memorySize ?? 0} onCleared={() => {
        setMessage({ ok: true, text: 'All memories were deleted.' });
        reloadItems();
        reloadModel();
      }} />
    </main>
  );
}
