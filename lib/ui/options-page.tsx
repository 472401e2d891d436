import { useEffect, useRef, useState } from 'preact/hooks';
import type { MemoryItem } from '../memory/types';
import type { IndexingProgress, PreviewCard, ServiceStatus } from '../messaging/protocol';
import { decodeFileBytes } from '../memory/decode-text';
import { callBackground } from '../messaging/rpc';

const MAX_IMPORT_BYTES = 60 * 2 ** 20;
import { WEIGHT_NAMES, type RankSettings, type WeightName } from '../rank/types';
import { readSettings, watchSettings } from '../settings/settings-item';
import type { Settings, SettingsPatch } from '../settings/types';
import { DEFAULT_SETTINGS } from '../settings/defaults';
import { applySettingsPatch, mergeSettingsPatch, normalizeHost } from '../settings/settings';
import { SiteAccessList } from './site-access-list';
import { useServicePush } from './use-panel-state';

const WEIGHT_HELP: Record<WeightName, string> = {
  semantic: 'Meaning matches (on-device model)',
  lexical: 'Same words',
  recency: 'Newer or recently used',
  priority: 'Pinned and emphasised',
  continuity: 'Used with what is on screen',
  situation: 'This site, person or page',
};

const IMPORTABLE = /\.(json|md|markdown|txt)$/i;

/** An editable list of hostnames (excluded sites, capture sites). */
function HostList(props: { id: string; label: string; hosts: string[]; onChange: (hosts: string[]) => void; placeholder: string }) {
  const [draft, setDraft] = useState('');
  const [err, setErr] = useState('');
  const add = (e: Event) => {
    e.preventDefault();
    const h = normalizeHost(draft);
    if (!h) return setErr(`“${draft}” is not a site name.`);
    setErr('');
    setDraft('');
    if (!props.hosts.includes(h)) props.onChange([...props.hosts, h]);
  };
  return (
    <div class="host-list" data-testid={props.id}>
      <form class="inline" onSubmit={add}>
        <input aria-label={props.label} data-testid={`${props.id}-input`} placeholder={props.placeholder} value={draft}
          onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
        <button type="submit" data-testid={`${props.id}-add`}>Add</button>
      </form>
      {err ? <p class="error" role="alert">{err}</p> : null}
      <ul class="chips">
        {props.hosts.map((h) => (
          <li key={h} class="chip" data-host={h}>
            {h}
            <button aria-label={`Remove ${h}`} onClick={() => props.onChange(props.hosts.filter((x) => x !== h))}>×</button>
          </li>
        ))}
        {!props.hosts.length ? <li class="muted">None.</li> : null}
      </ul>
    </div>
  );
}

/** Items marked always-include (pinned) or never-include (excluded), with a picker to add more. */
function ItemList(props: { id: string; items: MemoryItem[]; all: MemoryItem[]; flag: 'pinned' | 'excluded'; onChanged: () => void }) {
  const [pick, setPick] = useState('');
  const set = async (id: string, on: boolean) => {
    const patch = props.flag === 'pinned' ? { pinned: on, ...(on ? { excluded: false } : {}) } : { excluded: on, ...(on ? { pinned: false } : {}) };
    await callBackground('memory:update', { id, patch });
    props.onChanged();
  };
  const candidates = props.all.filter((i) => !i[props.flag]);
  return (
    <div data-testid={props.id}>
      <ul class="item-flags">
        {props.items.map((it) => (
          <li key={it.id} data-id={it.id}>
            <span class={`badge badge-${it.kind}`}>{it.kind}</span> {it.title || it.text.slice(0, 60)}
            <button aria-label={`Remove ${it.title}`} onClick={() => void set(it.id, false)}>Remove</button>
          </li>
        ))}
        {!props.items.length ? <li class="muted">None.</li> : null}
      </ul>
      <form class="inline" onSubmit={(e) => {
        e.preventDefault();
        if (pick) void set(pick, true).then(() => setPick(''));
      }}>
        <select data-testid={`${props.id}-pick`} value={pick} aria-label="Choose a memory" onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
          <option value="">Choose a memory…</option>
          {candidates.slice(0, 500).map((it) => <option key={it.id} value={it.id}>{(it.title || it.text).slice(0, 80)}</option>)}
        </select>
        <button type="submit" data-testid={`${props.id}-add`} disabled={!pick}>Add</button>
      </form>
    </div>
  );
}

/** Live ranking of a sample task under the current settings, with each card's move against the defaults. */
function Preview({ settings }: { settings: RankSettings }) {
  const [text, setText] = useState('Reply to Dana about the Q3 budget review');
  const [cards, setCards] = useState<PreviewCard[]>();
  const [base, setBase] = useState<PreviewCard[]>([]);
  const [err, setErr] = useState('');
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      if (!text.trim()) return setCards([]);
      Promise.all([
        callBackground('rank:preview', { text, settings }),
        callBackground('rank:preview', { text, settings: { ...settings, weights: DEFAULT_SETTINGS.weights } }),
      ]).then(
        ([now, def]) => {
          if (!live) return;
          setErr('');
          setCards(now.cards);
          setBase(def.cards);
        },
        (e: Error) => live && setErr(e.message),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, settings]);
  return (
    <div class="preview" data-testid="preview">
      <label class="field">
        <span>Sample task</span>
        <input data-testid="preview-task" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </label>
      {err ? <p class="error">{err}</p> : null}
      <ol class="preview-list" aria-live="polite">
        {(cards ?? []).map((c, i) => {
          const was = base.findIndex((b) => b.id === c.id);
          const move = was < 0 ? 'new' : was - i;
          return (
            <li key={c.id} data-testid="preview-card" data-id={c.id}>
              <span class={`badge badge-${c.kind}`}>{c.kind}</span>
              <span class="preview-title">{c.title}</span>
              <span class="num">{c.score.toFixed(2)}</span>
              <span class={`move ${move === 'new' ? 'up' : move > 0 ? 'up' : move < 0 ? 'down' : ''}`}
                title="Compared with the default weights">
                {move === 'new' ? 'new' : move > 0 ? `↑${move}` : move < 0 ? `↓${-move}` : '='}
              </span>
            </li>
          );
        })}
        {cards && !cards.length ? <li class="muted">Nothing clears the relevance bar for this task.</li> : null}
      </ol>
    </div>
  );
}

export function OptionsPage() {
  const [settings, setSettings] = useState<Settings>();
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  const [items, setItems] = useState<MemoryItem[]>([]);
  const [model, setModel] = useState<ServiceStatus>();
  const [indexing, setIndexing] = useState<IndexingProgress>();
  const [confirmClear, setConfirmClear] = useState(false);
  const [busy, setBusy] = useState('');
  const saveTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const editSeq = useRef(0);
  // What is typed into a number field until its change fires: any re-render meanwhile (a status push, another
  // page's change) would otherwise put the saved value back into the field, and the typed one would never be saved.
  const [drafts, setDrafts] = useState<Partial<Record<string, string>>>({});
  // A reply from the worker must not undo an edit the user made while it was on its way, nor reset a field the user
  // is typing into (its change would then never fire, and the edit would be lost): such replies are dropped; the
  // field's own change saves the whole settings and brings the next reply.
  const applyFromWorker = (got: Settings, seq: number) => {
    const typing = (document.activeElement as HTMLElement | null)?.matches?.('input[data-setting]');
    if (editSeq.current === seq && !typing) setSettings(got);
  };

  const reloadItems = () => void callBackground('memory:list', {}).then((r) => setItems(r.items));
  const reloadModel = () => void callBackground('model:status', {}).then(setModel);
  useEffect(() => {
    void readSettings().then(setSettings);
    reloadItems();
    reloadModel();
    // Another page (the side panel's per-site switch) may change settings: follow it.
    return watchSettings((got) => applyFromWorker(got, editSeq.current));
  }, []);
  // The model status is asked for when the worker says it changed, not polled (counting what waits reads every item).
  useServicePush((p) => {
    if (p.type === 'indexing') setIndexing(p.progress.done >= p.progress.total ? undefined : p.progress);
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

  const importFiles = async (files: File[]) => {
    const wanted = files.filter((f) => IMPORTABLE.test(f.name));
    if (!wanted.length) return setMessage({ ok: false, text: 'No .json, .md or .txt files were chosen.' });
    let added = 0;
    setMessage(undefined);
    for (const [i, file] of wanted.entries()) {
      setBusy(`Importing ${file.name} (${i + 1} of ${wanted.length})…`);
      try {
        // Chrome carries at most 64 MiB in one extension message; refuse before reading rather than fail midway.
        if (file.size > MAX_IMPORT_BYTES) throw new Error(`The file is ${(file.size / 2 ** 20).toFixed(0)} MB; Backstory imports at most ${MAX_IMPORT_BYTES / 2 ** 20} MB at a time — split it into smaller files.`);
        const content = decodeFileBytes(new Uint8Array(await file.arrayBuffer())).text;
        added += (await callBackground('memory:import', { fileName: file.name, content })).added;
      } catch (err) {
        setBusy('');
        const before = added ? ` ${added} ${added === 1 ? 'memory' : 'memories'} from earlier files were kept.` : '';
        return setMessage({ ok: false, text: `Import of ${file.name} failed: ${(err as Error).message} Nothing from this file was changed.${before}` });
      }
    }
    setBusy('');
    setMessage({ ok: true, text: `Imported ${added} ${added === 1 ? 'memory' : 'memories'} from ${wanted.length} ${wanted.length === 1 ? 'file' : 'files'}.` });
    reloadItems();
    reloadModel();
  };
  const onImport = (e: Event) => {
    const input = e.target as HTMLInputElement;
    const files = Array.from(input.files ?? []);
    void importFiles(files).finally(() => (input.value = ''));
  };

  const onExport = async () => {
    const { content } = await callBackground('memory:export', {});
    const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `backstory-memory-${new Date().toISOString().slice(0, 10)}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const num = (key: 'budgetTokens' | 'halfLifeDays' | 'maxCards' | 'threshold', label: string, min: number, max: number, step: number, help: string) =>
    settings ? (
      <label class="weight-row">
        <span title={help}>{label}</span>
        <input type="number" min={min} max={max} step={step} data-setting={key} value={drafts[key] ?? settings.rank[key]} aria-describedby={`help-${key}`}
          onInput={(e) => setDrafts((d) => ({ ...d, [key]: (e.target as HTMLInputElement).value }))}
          onChange={(e) => {
            const v = Number((e.target as HTMLInputElement).value);
            setDrafts(({ [key]: _done, ...rest }) => rest);
            if (Number.isFinite(v)) save({ rank: { [key]: v } });
          }} />
        <span class="muted small" id={`help-${key}`}>{help}</span>
      </label>
    ) : null;

  return (
    <main class="options">
      <h1>Backstory options</h1>
      <p class="muted">Everything stays on this device. Changes apply immediately.</p>

      <section aria-labelledby="h-rank">
        <h2 id="h-rank">Ranking</h2>
        <div class="rank-grid">
          <div>
            {settings
              ? WEIGHT_NAMES.map((name) => (
                  <label class="weight-row" key={name}>
                    <span title={WEIGHT_HELP[name]}>{name}</span>
                    <input
                      type="range" min="0" max="1" step="0.01"
                      data-weight={name}
                      aria-label={`${name} weight: ${WEIGHT_HELP[name]}`}
                      value={settings.rank.weights[name]}
                      onInput={(e) => save({ rank: { weights: { ...settings.rank.weights, [name]: Number((e.target as HTMLInputElement).value) } } }, 250)}
                    />
                    <span class="num">{settings.rank.weights[name].toFixed(2)}</span>
                  </label>
                ))
              : 'Loading…'}
            {settings ? (
              <button data-testid="weights-reset" onClick={() => save({ rank: { weights: { ...DEFAULT_SETTINGS.weights } } })}>Reset weights</button>
            ) : null}
          </div>
          {settings ? <Preview settings={settings.rank} /> : null}
        </div>
      </section>

      {settings ? (
        <section aria-labelledby="h-limits">
          <h2 id="h-limits">Recency, budget and caps</h2>
          {num('halfLifeDays', 'Half-life (days)', 0.5, 3650, 0.5, 'A memory this old counts half as recent.')}
          {num('budgetTokens', 'Token budget', 50, 20000, 50, 'Most tokens “insert all” adds.')}
          {num('maxCards', 'Max cards', 1, 50, 1, 'Most cards the panel shows.')}
          {num('threshold', 'Relevance bar', 0, 1, 0.01, 'Below this a card is not shown.')}
        </section>
      ) : null}

      <section aria-labelledby="h-access">
        <h2 id="h-access">Site access</h2>
        <p class="muted">Backstory reads the page you are writing on only on these sites. Allow another site from the side panel while you are on it (“Allow on …”); “Remember this” and the insert shortcut also work on the page where you use them.</p>
        <SiteAccessList />
      </section>

      {settings ? (
        <section aria-labelledby="h-sites">
          <h2 id="h-sites">Sites</h2>
          <p class="muted">Of the sites Backstory may read, it is switched off on these: it does not rank for pages there (the side panel can switch a site too).</p>
          <HostList id="excluded-sites" label="Add a site to switch off" placeholder="e.g. bank.example.com" hosts={settings.ui.excludedSites}
            onChange={(excludedSites) => save({ ui: { excludedSites } })} />
        </section>
      ) : null}

      <section aria-labelledby="h-lists">
        <h2 id="h-lists">Always include / never include</h2>
        <div class="two-col">
          <div>
            <h3>Always include (pinned)</h3>
            <ItemList id="always-include" flag="pinned" items={items.filter((i) => i.pinned)} all={items} onChanged={reloadItems} />
          </div>
          <div>
            <h3>Never include</h3>
            <ItemList id="never-include" flag="excluded" items={items.filter((i) => i.excluded)} all={items} onChanged={reloadItems} />
          </div>
        </div>
      </section>

      {settings ? (
        <section aria-labelledby="h-capture">
          <h2 id="h-capture">Capture</h2>
          <label class="check">
            <input type="checkbox" data-testid="capture-sent" checked={settings.capture.sent}
              onChange={(e) => save({ capture: { sent: (e.target as HTMLInputElement).checked } })} />
            Remember the messages I send on these sites (off by default)
          </label>
          <HostList id="capture-sites" label="Add a site for message capture" placeholder="e.g. chatgpt.com" hosts={settings.capture.sites}
            onChange={(sites) => save({ capture: { sites } })} />
        </section>
      ) : null}

      <section aria-labelledby="h-io">
        <h2 id="h-io">Import and export</h2>
        <p class="muted">A Backstory memory file (.json), Markdown notes (.md; one memory per section) or plain text (.txt). Each file is all or nothing.</p>
        <div class="io-row">
          <label class="file">
            <span>Files</span>
            <input data-testid="import-file" type="file" multiple accept=".json,.md,.markdown,.txt,application/json,text/markdown,text/plain" onChange={onImport} />
          </label>
          <label class="file">
            <span>A folder of notes</span>
            <input data-testid="import-folder" type="file" multiple onChange={onImport}
              ref={(el) => el?.setAttribute('webkitdirectory', '')} />
          </label>
          <button data-testid="export" onClick={() => void onExport()}>Export memory</button>
        </div>
        {busy ? <p role="status" data-testid="import-busy">{busy}</p> : null}
        {indexing ? (
          <p role="status" data-testid="indexing">
            Indexing {indexing.done} of {indexing.total}… <progress max={indexing.total} value={indexing.done} />
          </p>
        ) : null}
        {message ? <p data-testid="import-message" class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>{message.text}</p> : null}
      </section>

      {settings ? (
        <section aria-labelledby="h-model">
          <h2 id="h-model">Model</h2>
          <p data-testid="model-state" data-state={model?.state ?? 'idle'}>
            all-MiniLM-L6-v2 (on device):{' '}
            {model?.state === 'ready' ? `ready, running on ${model.backend ?? 'WASM'}` : model?.state === 'loading' ? 'loading…' : model?.state === 'failed' ? `failed (${model.error ?? 'unknown'}); word matching only` : 'loads on first use'}
            {model ? ` · ${model.memorySize} memories${model.unembedded ? `, ${model.unembedded} waiting to be indexed` : ''}` : ''}
            {model?.indexProblem ? <span class="error" data-testid="index-problem"> · {model.indexProblem}</span> : null}
          </p>
        </section>
      ) : null}

      <section aria-labelledby="h-danger" class="danger-zone">
        <h2 id="h-danger">Clear all data</h2>
        {confirmClear ? (
          <div role="alertdialog" aria-label="Confirm deleting all memories" data-testid="clear-confirm-box">
            <p><strong>Delete all {items.length} memories?</strong> This cannot be undone. Export first if you want a copy.</p>
            <button class="danger primary" data-testid="clear-confirm" onClick={() => void callBackground('memory:clear', {}).then(() => {
              setConfirmClear(false);
              setMessage({ ok: true, text: 'All memories were deleted.' });
              reloadItems();
              reloadModel();
            })}>Delete everything</button>{' '}
            <button data-testid="clear-cancel" onClick={() => setConfirmClear(false)}>Cancel</button>
          </div>
        ) : (
          <button class="danger" data-testid="clear-all" onClick={() => setConfirmClear(true)}>Clear all data…</button>
        )}
      </section>
    </main>
  );
}
