import type { InsertOutcome } from '../insert/index';
import type { ReadProgress } from '../import/types';
import type { ImportJob } from '../import/import-jobs';
import type { MemoryPage, MemoryQuery } from '../memory-browse/memory-query';
import type { MemoryInput, MemoryItem, MemoryPatch } from '../memory/types';
import type { RankedCard, RankSettings, TaskReading, TraceEntry } from '../rank/types';
import type { Settings, SettingsPatch } from '../settings/types';
import type { LearningReport } from '../learn/learning';
import type { PhraseOffer } from '../learn/phrase-tally';

export type PanelStatus = 'watching' | 'searching' | 'found' | 'empty' | 'error';

export interface ModelStatus {
  state: 'idle' | 'loading' | 'ready' | 'failed';
  /** While loading: share of the model's bytes read so far, 0 to 1, when known. */
  progress?: number;
  backend?: string;
  error?: string;
}

/** Left-out trace entries a panel update carries, a search answers with, and *Why not?* lists at once. */
export const LEFT_OUT_SHOWN = 40;

/** Everything the side panel shows for one tab. */
export interface PanelState {
  tabId: number;
  status: PanelStatus;
  /** The task as read from the page, for the panel's header. */
  task?: Pick<TaskReading, 'title' | 'site' | 'adapter' | 'people' | 'subject' | 'destination' | 'landmarks'> & { ask: string };
  /** The free-text search that overrides the page's task, if any. */
  search?: string;
  cards: RankedCard[];
  /** The cards' trace entries and the first left out (lib/service/panel-trace.ts); `trace:find` searches the rest. */
  trace: TraceEntry[];
  /** How many candidates the ranking left out in all, when `trace` carries only the first of them. */
  leftOut?: number;
  model: ModelStatus;
  memorySize: number;
  error?: string;
  /** Increases with every ranking so the panel can drop stale states. */
  seq: number;
  /** The ranker's context package for the cards (what "insert all" inserts) and the budget it was cut to. */
  package?: { text: string; tokens: number; ids: string[]; budget: number };
  /** Set when Backstory is switched off for the tab's site (options: excluded sites). */
  paused?: { site: string };
  /** People the task names that no memory mentions yet (the panel offers "save a note about ..."). */
  unknownPeople?: string[];
  /** Items still being embedded (an import or the model arriving late). */
  indexing?: IndexingProgress;
  /** Set when Backstory may not read the tab's page: it can be allowed (`ask`) or never (`refused`, with why). */
  access?: { state: 'ask'; host: string; pattern: string } | { state: 'refused'; reason: string };
}

/** Model and index status for the options page (asked for when a `model` or `indexing` push says it changed). */
export type ServiceStatus = ModelStatus & {
  memorySize: number;
  unembedded: number;
  indexBackend?: string;
  /** Why indexing runs where it does (WebGPU or WASM, and what ruled WebGPU out). */
  indexReason?: string;
  /** Why the last background indexing stopped before it was done, if it did. */
  indexProblem?: string;
};

export interface IndexingProgress {
  done: number;
  total: number;
  /** Time left at the rate measured so far, once there is a rate to go by. */
  etaMs?: number;
  /** What embeds, once the first batch is in (e.g. 'offscreen/webgpu/q8', 'offscreen/wasm/q8x2', 'wasm/q8'). */
  backend?: string;
}

/** Where sync keeps its files, as the options page hands it to the worker (a folder's handle is kept by the page). */
export type SyncConnectPlace = { kind: 'webdav'; url: string; user: string; password: string } | { kind: 'folder' };

/** Sync across the user's devices, for the options page and the panel's one line. */
export interface SyncStatus {
  state: 'off' | 'syncing' | 'synced' | 'error';
  /** Where it syncs: a WebDAV folder's address, or a local folder's name. */
  place?: { kind: 'webdav'; url: string; user: string } | { kind: 'folder'; name: string };
  /** When the last sync finished without a problem. */
  lastSyncedAt?: number;
  /** Devices that share the synced memory, this one included. */
  devices?: number;
  /** What is wrong and what to do about it, in the user's words. */
  problem?: string;
  /** The browser took back the folder's permission (after a restart): one click in a page gives it again. */
  reconnect?: boolean;
  /** While a sync brings many items in. */
  progress?: { done: number; total: number };
  /** Memories given two texts at once on two devices: the other text is kept, to open and choose. */
  revisions?: number;
}

/**
 * What Backstory sees of a page's structure, for a bug report ("Diagnose this page" on the options page): the host
 * and the site adapter's landmarks found and missing. Names only: no path, no field, no text of the page.
 */
export interface SiteDiagnosis {
  /** The page's host (no path or query). */
  site?: string;
  /** The site adapter for it, when Backstory has one ('notion'), and the site as the user knows it ('Notion'). */
  adapter?: string;
  label?: string;
  found: string[];
  missing: string[];
  /** None of the adapter's landmarks were found: the reading is the focused field alone. */
  fieldOnly: boolean;
  /** When the page was read (epoch ms). */
  at?: number;
  /** Why there is no report, in the user's words. */
  problem?: string;
}

/** A small ranking for the options page's live preview. */
export interface PreviewCard {
  id: string;
  title: string;
  kind: 'evidence' | 'instruction';
  score: number;
}

/** Messages to the service worker: request and response types. */
export interface BackgroundProtocol {
  /** Content script: the task on this tab changed. */
  'task:update': { req: { reading: TaskReading }; res: { ok: true } };
  /** Pages: the ranked state of a tab (ranks if needed). */
  'panel:get': { req: { tabId: number; search?: string }; res: PanelState };
  /** Pages: insert a card's text into the tab's focused field. */
  /** `passages`: the passages the card shows of a long item (absent: the whole item). */
  'card:insert': { req: { tabId: number; id: string; passages?: number[] }; res: InsertOutcome };
  'card:dismiss': { req: { tabId: number; id: string }; res: { ok: true } };
  /** Pages: what the user typed or chose; `restore`: the Undo of the user's own delete (items back as they were). */
  'memory:add': { req: { items: MemoryInput[]; restore?: boolean }; res: { items: MemoryItem[] } };
  'memory:update': { req: { id: string; patch: MemoryPatch }; res: { item: MemoryItem } };
  'memory:delete': { req: { ids: string[] }; res: { removed: MemoryItem[] } };
  'memory:list': { req: Record<string, never>; res: { items: MemoryItem[] } };
  /** Memory browser: one page of the items matching a filter, the total, and (when asked) the filters' values. */
  'memory:query': { req: MemoryQuery; res: MemoryPage };
  /** Memory browser: delete every item an import brought; `memory:restoreImport` undoes it for a while after. */
  'memory:removeImport': { req: { importId: string }; res: { removed: number } };
  'memory:restoreImport': { req: { importId: string }; res: { restored: number } };
  /** A small memory file as text (the welcome's demo memory, seeded profiles); all or nothing. `fileName` names it. */
  'memory:import': { req: { fileName: string; content: string }; res: { added: number } };
  /** Options page: the feedback an export writes beside the items (the page reads the items from IndexedDB itself). */
  'memory:export-feedback': { req: Record<string, never>; res: { feedback: unknown } };
  'memory:clear': { req: Record<string, never>; res: { ok: true } };
  'settings:get': { req: Record<string, never>; res: Settings };
  /** Writes only the groups and fields named; returns the settings as stored. */
  'settings:set': { req: { patch: SettingsPatch }; res: Settings };
  /** Panel: switch Backstory off (or on) for a site, in one step in the worker (no read-modify-write in the page). */
  'site:pause': { req: { site: string; paused: boolean }; res: Settings };
  /** Panel: the words of the task that left-out items matched, as each one's text writes them ("Why not?"). */
  'trace:words': { req: { items: { id: string; terms: string[] }[] }; res: { words: string[][] } };
  /** Panel: the titles of left-out items the ranking did not read (`TraceEntry.untitled`), '' for one gone. */
  'trace:titles': { req: { ids: string[] }; res: { titles: string[] } };
  /** Panel: the left-out entries of the tab's last ranking whose title holds `text`, titles read ("Why not?" search). */
  'trace:find': { req: { tabId: number; text: string }; res: { seq: number; entries: TraceEntry[] } };
  /** Panel: the package for a chosen set of the tab's cards (preview), and inserting it. */
  'package:build': { req: { tabId: number; ids: string[]; search?: string }; res: { text: string; tokens: number; ids: string[]; budget: number } };
  'package:insert': { req: { tabId: number; ids: string[]; search?: string }; res: InsertOutcome };
  /** Options page: how a sample task ranks under the given (unsaved or saved) settings. */
  'rank:preview': { req: { text: string; settings?: RankSettings; people?: string[]; site?: string }; res: { cards: PreviewCard[] } };
  /** Options page: what Backstory sees of the structure of a tab's page (the last page the user was on by default). */
  'site:diagnose': { req: { tabId?: number }; res: SiteDiagnosis };
  /** Model and index status for the options page. */
  'model:status': { req: Record<string, never>; res: ServiceStatus };
  /** The item saved by the last "Remember this" (for the quick edit popover), if it is recent. */
  'capture:recent': { req: Record<string, never>; res: { item?: MemoryItem } };
  'capture:dismiss': { req: { id: string }; res: { ok: true } };
  /** Content script (lib/sites/capture-sent.ts): a message the user sent; saved only when the options allow it. */
  'capture:sent': { req: { text: string; url: string; title: string; site: string; people?: string[]; thread?: { id: string } }; res: { saved: boolean } };
  /** Options page: run an import job it created (ImportJobs.create wrote the files into IndexedDB). */
  'import:start': { req: { jobId: string }; res: { ok: true } };
  /** Every import job (newest first) and the background indexing, for pages that open mid-import or after. */
  'import:status': { req: Record<string, never>; res: { jobs: ImportJob[]; indexing?: IndexingProgress } };
  /** Stops an import before it is committed; memory stays as it was. */
  'import:cancel': { req: { jobId: string }; res: { ok: boolean; reason?: string } };
  /** The user has read the outcome: it is not shown again. */
  'import:dismiss': { req: { jobId: string }; res: { ok: true } };
  /**
   * Options page: the answer to a memory file from elsewhere that asks for wide instructions, pins or feedback (the
   * job waits in state `confirm`): `keep` counts them as the user's own; otherwise they come in as evidence.
   */
  'import:trust': { req: { jobId: string; keep: boolean }; res: { ok: true } };
  /** An offer of the import (e.g. ChatGPT custom instructions): saved as an instruction, or dismissed. */
  'import:offer': { req: { jobId: string; index: number; save: boolean }; res: { ok: true } };
  /** Panel: the user copied or dragged a card (inserts and "not useful" are recorded where they happen). */
  'feedback:record': { req: { tabId: number; id: string; action: 'copy' | 'drag' }; res: { ok: true } };
  /** Options page: what learning from feedback has learned, and switching it off or back to the defaults. */
  'learning:status': { req: Record<string, never>; res: LearningReport };
  'learning:set': { req: { enabled?: boolean; reset?: boolean }; res: LearningReport };
  /** Quick edit: an item a new capture nearly repeats, and merging the capture into it. */
  'capture:duplicate': { req: { id: string }; res: { duplicate?: { id: string; title: string } } };
  'capture:merge': { req: { id: string; into: string }; res: { item: MemoryItem } };
  /** Panel: a phrase the user keeps typing into prompts, offered as an instruction, and the user's answer. */
  'phrase:offer': { req: Record<string, never>; res: { offer?: PhraseOffer } };
  'phrase:answer': { req: { phrase: string; answer: 'save' | 'later' | 'never' }; res: { item?: MemoryItem } };
  /** Options page and panel: sync's state in words. */
  'sync:status': { req: Record<string, never>; res: SyncStatus };
  /**
   * Options page: join the synced memory at the place with the passphrase (or its recovery key), or make a new one
   * there; the recovery key is returned once, when a new one is made. Throws in the user's words (wrong passphrase).
   */
  /** `readsHost`: the user let Backstory read the WebDAV server's site before connecting, and it stays read. */
  'sync:connect': { req: { place: SyncConnectPlace; passphrase: string; readsHost?: boolean }; res: { status: SyncStatus; recoveryKey?: string } };
  'sync:now': { req: Record<string, never>; res: SyncStatus };
  /**
   * Options page: another user name or app password for the WebDAV server this device syncs with (one revoked or
   * changed there), tried before it is kept; the device stays the same one. Throws in the user's words when refused.
   */
  'sync:login': { req: { user: string; password: string }; res: SyncStatus };
  /** Stops syncing on this device; the memory here and the files at the place stay. */
  'sync:disconnect': { req: Record<string, never>; res: SyncStatus };
  /** The other texts a memory was given at the same time on another device (to open and choose). */
  'sync:revisions': { req: { id: string }; res: { texts: string[] } };
  /** Keeps the memory's current text: the other versions are dropped on every device. */
  'sync:dismiss-revisions': { req: { id: string }; res: SyncStatus };
  /** Options page: sites the user allowed on other devices that this browser does not read yet (hostnames). */
  'sites:suggestions': { req: Record<string, never>; res: { hosts: string[] } };
  /**
   * Panel: the user allowed reading sites under `pattern` (the browser's grant came first). One granted before for
   * sync's WebDAV server alone is read from now on.
   */
  'sites:allowed': { req: { pattern: string }; res: void };
  /** Options page: a suggested site is not suggested again on this device; the suggestions left. */
  'sites:dismiss-suggestion': { req: { host: string }; res: { hosts: string[] } };
}

/** Messages from the service worker to a tab's content script. */
export interface ContentProtocol {
  'page:insert': { req: { text: string }; res: InsertOutcome };
  'page:capture': { req: Record<string, never>; res: { title: string; url: string; text: string; thread?: { id: string } } };
  'page:read': { req: Record<string, never>; res: TaskReading };
  /** The whole selection, line breaks kept (the task reading clips it). */
  /** `secret`: the selection is in a password-like field; nothing of it is given, and nothing may be saved. */
  'page:selection': { req: Record<string, never>; res: { text: string; secret?: true } };
  /** A note next to the field ("Backstory: ..."): what a shortcut, which has no panel to answer in, did not do. */
  'page:hint': { req: { text: string }; res: { ok: true } };
  /** The user took back access to this site: the content script stops watching and answering. */
  'page:stop': { req: Record<string, never>; res: { ok: true } };
}

/** Name of the port a side panel opens to the service worker. */
export const PANEL_PORT = 'backstory-panel';
/**
 * Start of the name of the port a page opens before it stores picked files for an import; the rest of the name is
 * the hand-over as JSON (lib/service/imports.ts). The worker takes the job up when the port closes, whoever closes it.
 */
export const HANDOVER_PORT = 'backstory-import-handover:';
/** What a panel says over its port: which tab it shows and the search box text. */
export type PanelWatch = { tabId: number; search?: string };

/** Messages the service worker pushes to connected side panels over a port. */
export type PanelPush =
  | { type: 'state'; state: PanelState }
  /** "Remember this" saved an item: panels show the quick edit popover. */
  | { type: 'captured'; item: MemoryItem }
  /** Embedding progress of a large import (done >= total: the run is over, finished or stopped). */
  | { type: 'indexing'; progress: IndexingProgress }
  /** The model's status changed (loading, ready, failed). */
  | { type: 'model'; status: ModelStatus }
  /** An import job changed state (and, while its files are read, how far reading got). */
  | { type: 'import'; job: ImportJob; progress?: ReadProgress }
  /** Something the user started away from the panel failed (a capture too large, storage full). */
  | { type: 'problem'; message: string }
  /** A phrase from the user's prompts is due to be offered as an instruction (panels ask `phrase:offer`). */
  | { type: 'phrase-offer' }
  /** Sync's state changed (a pass began or ended, a problem, progress). */
  | { type: 'sync'; status: SyncStatus };

/** Only these may come from content scripts; everything else needs an extension page. */
export const CONTENT_SCRIPT_MESSAGES: ReadonlySet<keyof BackgroundProtocol> = new Set(['task:update', 'capture:sent']);

