import type { Embedder } from '../embed/embedder';
import type { MemoryStore } from '../memory/store';
import type { ModelStatus, PanelState } from '../messaging/protocol';
import { taskQueryTexts } from '../rank/query';
import type { RankSettings, TaskReading } from '../rank/types';
import type { ConditionVectorCache, QueryVectorCache } from './query-vectors';
import type { Learning } from '../learn/learning';
import { rankLearned } from '../learn/learned-ranking';
import type { OverrideMemo } from '../rank/overridden-instructions';
import { measureRanking } from './start-marks';

export interface RankInputs {
  tabId: number;
  task: TaskReading | undefined;
  search?: string;
  store: MemoryStore;
  settings: RankSettings;
  embedder: Embedder | null;
  queries: QueryVectorCache;
  /** The vectors of the subjects rules are conditioned on; without it, subject conditions are judged by words alone. */
  conditions?: ConditionVectorCache;
  overrides: OverrideMemo;
  model: ModelStatus;
  recentlyUsed: string[];
  dismissed: string[];
  /** What learning applies now, and where the cards a tab shows are noted (feedback is read against them). */
  learning: Pick<Learning, 'active' | 'noteShown'>;
  seq: number;
  /** The time ranked at (recency); the bench ranks as of its data set's own date. */
  now?: number;
}

/** The text the user is asking about: the search box wins over the page. */
function effectiveTask(task: TaskReading | undefined, search: string | undefined): TaskReading | undefined {
  if (search?.trim()) {
    return { url: task?.url ?? '', title: '', site: task?.site ?? '', adapter: 'search', destination: task?.destination ?? 'documents', field: { text: search.trim(), kind: 'input' }, at: Date.now() };
  }
  return task;
}

function hasAsk(t: TaskReading): boolean {
  return !!(t.field?.text.trim() || t.selection?.trim() || t.subject?.trim() || t.people?.length || t.turns?.length);
}

/** Ranks memory for one tab and shapes the result as the panel shows it. */
export async function rankForTab(inp: RankInputs): Promise<PanelState> {
  const task = effectiveTask(inp.task, inp.search);
  const base: PanelState = {
    tabId: inp.tabId,
    status: 'watching',
    cards: [],
    trace: [],
    model: inp.model,
    memorySize: inp.store.size,
    seq: inp.seq,
    ...(inp.search ? { search: inp.search } : {}),
  };
  if (!task) return base;
  base.task = {
    title: task.title,
    site: task.site,
    adapter: task.adapter,
    people: task.people,
    subject: task.subject,
    destination: task.destination,
    ...(task.landmarks ? { landmarks: task.landmarks } : {}),
    ask: (task.field?.text || task.selection || '').slice(0, 200),
  };
  if (!hasAsk(task)) return base;
  // The memory's vectors must be this model's: vectors of another are dropped (and embedded again) rather than mixed.
  if (inp.embedder) inp.store.useModel(inp.embedder.modelId);
  // Each query variant (the ask, the ask with its page around it...) is embedded once and cached.
  const texts = taskQueryTexts(task).filter((t) => t.trim());
  const queryVectors = inp.embedder && texts.length ? await Promise.all(texts.map((t) => inp.queries.get(inp.embedder!, t))) : undefined;
  // A rule's subject is judged by meaning as well as by its words; a failure to embed leaves it to the words.
  const conditionVectors =
    inp.embedder && queryVectors && inp.conditions ? await inp.conditions.for(inp.embedder, inp.store.view.flagged()).catch(() => undefined) : undefined;
  const learned = await inp.learning.active();
  const started = performance.now();
  const result = await rankLearned({
    task,
    memory: inp.store.view,
    settings: inp.settings,
    queryVectors,
    conditionVectors,
    recentlyUsed: inp.recentlyUsed,
    dismissed: inp.dismissed,
    overrides: inp.overrides,
    learned,
    now: inp.now ?? Date.now(),
  });
  measureRanking(started, !!queryVectors);
  inp.learning.noteShown(inp.tabId, task, result.cards);
  return {
    ...base,
    status: result.empty ? 'empty' : 'found',
    cards: result.cards,
    trace: result.trace,
    ...(result.package ? { package: { ...result.package, budget: inp.settings.budgetTokens } } : {}),
  };
}
