import type { InsertOutcome } from '../insert/index';
import type { MemoryInput, MemoryItem, MemoryPatch } from '../memory/types';
import type { RankedCard, RankSettings, TaskReading, TraceEntry } from '../rank/types';

export type PanelStatus = 'watching' | 'searching' | 'found' | 'empty' | 'error';

export interface ModelStatus {
  state: 'idle' | 'loading' | 'ready' | 'failed';
  backend?: string;
  error?: string;
}

/** Everything the side panel shows for one tab. */
export interface PanelState {
  tabId: number;
  status: PanelStatus;
  /** The task as read from the page, for the panel's header. */
  task?: Pick<TaskReading, 'title' | 'site' | 'adapter' | 'people' | 'subject'> & { ask: string };
  /** The free-text search that overrides the page's task, if any. */
  search?: string;
  cards: RankedCard[];
  trace: TraceEntry[];
  model: ModelStatus;
  memorySize: number;
  error?: string;
  /** Increases with every ranking so the panel can drop stale states. */
  seq: number;
}

/** Messages to the service worker: request and response types. */
export interface BackgroundProtocol {
  /** Content script: the task on this tab changed. */
  'task:update': { req: { reading: TaskReading }; res: { ok: true } };
  /** Pages: the ranked state of a tab (ranks if needed). */
  'panel:get': { req: { tabId: number; search?: string }; res: PanelState };
  /** Pages: insert a card's text into the tab's focused field. */
  'card:insert': { req: { tabId: number; id: string }; res: InsertOutcome };
  'card:dismiss': { req: { tabId: number; id: string }; res: { ok: true } };
  'memory:add': { req: { items: MemoryInput[] }; res: { items: MemoryItem[] } };
  'memory:update': { req: { id: string; patch: MemoryPatch }; res: { item: MemoryItem } };
  'memory:delete': { req: { ids: string[] }; res: { removed: MemoryItem[] } };
  'memory:list': { req: Record<string, never>; res: { items: MemoryItem[] } };
  /** Options page: import a file's content; all or nothing. */
  'memory:import': { req: { fileName: string; content: string }; res: { added: number } };
  'memory:export': { req: Record<string, never>; res: { content: string } };
  'memory:clear': { req: Record<string, never>; res: { ok: true } };
  'settings:get': { req: Record<string, never>; res: RankSettings };
  'settings:set': { req: { settings: RankSettings }; res: RankSettings };
}

/** Messages from the service worker to a tab's content script. */
export interface ContentProtocol {
  'page:insert': { req: { text: string }; res: InsertOutcome };
  'page:capture': { req: Record<string, never>; res: { title: string; url: string; text: string } };
  'page:read': { req: Record<string, never>; res: TaskReading };
}

/** Name of the port a side panel opens to the service worker. */
export const PANEL_PORT = 'backstory-panel';
/** What a panel says over its port: which tab it shows and the search box text. */
export type PanelWatch = { tabId: number; search?: string };

/** Messages the service worker pushes to connected side panels over a port. */
export type PanelPush = { type: 'state'; state: PanelState };

/** Only these may come from content scripts; everything else needs an extension page. */
export const CONTENT_SCRIPT_MESSAGES: ReadonlySet<keyof BackgroundProtocol> = new Set(['task:update']);

export type Envelope<P, K extends keyof P = keyof P> = { type: K; payload: P[K] extends { req: infer R } ? R : never };
export type Req<P, K extends keyof P> = P[K] extends { req: infer R } ? R : never;
export type Res<P, K extends keyof P> = P[K] extends { res: infer R } ? R : never;
