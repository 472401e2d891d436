import { useEffect, useRef, useState } from 'preact/hooks';
import { browser } from 'wxt/browser';
import type { IndexingProgress } from '../messaging/protocol';
import { callBackground } from '../messaging/rpc';
import type { RankSettings } from '../rank/types';
import { CaptureSection } from './options/capture-section';
import { ClearDataSection } from './options/clear-data-section';
import { FlaggedItems, loadFlagLists, type FlagLists } from './options/flagged-items';
import { HostList } from './options/host-list';
import { ImportExportSection, type ImportMessage } from './options/import-export-section';
import { LimitsSection } from './options/limits-section';
import { ModelSection, type ModelInfo } from './options/model-section';
import { WeightsSection } from './options/weights-section';
import { SiteAccessList } from './site-access-list';
import { useServicePush } from './use-panel-state';

/** The options page: one section per concern; every change is saved at once. */
export function OptionsPage() {
  const [settings, setSettings] = useState<RankSettings>();
  const [message, setMessage] = useState<ImportMessage>();
  const [lists, setLists] = useState<FlagLists>({ pinned: [], excluded: [], recent: [] });
  const [model, setModel] = useState<ModelInfo>();
  const [indexing, setIndexing] = useState<IndexingProgress>();
  const saveTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const editSeq = useRef(0);
  // A reply from the worker must not undo an edit the user made while it was on its way, nor reset a field the user
  // is typing into (its change would then never fire, and the edit would be lost): such replies are dropped; the
  // field's own change saves the whole settings and brings the next reply.
  const applyFromWorker = (got: RankSettings, seq: number) => {
    const typing = (document.activeElement as HTMLElement | null)?.matches?.('input[data-setting]');
    if (editSeq.current === seq && !typing) setSettings(got);
  };

  // Only what the lists show is read, not all memory (which may be 100k items).
  const reloadItems = () => void loadFlagLists().then(setLists);
  const reloadModel = () => void callBackground('model:status', {}).then(setModel);
  useEffect(() => {
    void callBackground('settings:get', {}).then(setSettings);
    reloadItems();
    reloadModel();
    const t = setInterval(reloadModel, 2000);
    // Another page (the side panel's per-site switch) may change settings: follow it.
    const onChanged = (changes: Record<string, { newValue?: unknown }>, area: string) => {
      if (area !== 'local' || !changes.settings) return;
      const seq = editSeq.current;
      void callBackground('settings:get', {}).then((got) => applyFromWorker(got, seq));
    };
    browser.storage.onChanged.addListener(onChanged);
    return () => {
      clearInterval(t);
      browser.storage.onChanged.removeListener(onChanged);
    };
  }, []);
  useServicePush((p) => {
    if (p.type === 'indexing') setIndexing(p.progress.done >= p.progress.total ? undefined : p.progress);
    if (p.type === 'captured') reloadItems();
  });

  /** Every change is saved at once (sliders after a short pause) and applies without reloading anything. */
  const save = (next: RankSettings, delay = 0) => {
    const seq = ++editSeq.current;
    setSettings(next);
    clearTimeout(saveTimer.current);
    saveTimer.current = setTimeout(
      () =>
        void callBackground('settings:set', { settings: next }).then((saved) => applyFromWorker(saved, seq)),
      delay,
    );
  };

  return (
    <main class="options">
      <h1>Backstory options</h1>
      <p class="muted">Everything stays on this device. Changes apply immediately.</p>

      <WeightsSection settings={settings} save={save} />
      {settings ? <LimitsSection settings={settings} save={save} /> : null}

      <section aria-labelledby="h-access">
        <h2 id="h-access">Site access</h2>
        <p class="muted">Backstory reads the page you are writing on only on these sites. Allow another site from the side panel while you are on it (“Allow on …”); “Remember this” and the insert shortcut also work on the page where you use them.</p>
        <SiteAccessList />
      </section>

      {settings ? (
        <section aria-labelledby="h-sites">
          <h2 id="h-sites">Sites</h2>
          <p class="muted">Of the sites Backstory may read, it is switched off on these: it does not rank for pages there (the side panel can switch a site too).</p>
          <HostList id="excluded-sites" label="Add a site to switch off" placeholder="e.g. bank.example.com" hosts={settings.excludedSites ?? []}
            onChange={(excludedSites) => save({ ...settings, excludedSites })} />
        </section>
      ) : null}

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

      <ImportExportSection indexing={indexing} message={message} setMessage={setMessage} onImported={() => {
        reloadItems();
        reloadModel();
      }} />

      {settings ? <ModelSection model={model} /> : null}

      <ClearDataSection count={model?.memorySize ?? 0} onCleared={() => {
        setMessage({ ok: true, text: 'All memories were deleted.' });
        reloadItems();
        reloadModel();
      }} />
    </main>
  );
}
