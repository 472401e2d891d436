import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, clip, outermost, withoutTitleSuffix } from './text';
import { isSecretField } from '../dom/editable';
import { TurnMemory, type LiveTurn, type TurnKey } from './chat-turns';

const MAX_TURNS = 4;
const TURN_CHARS = 1200;
/** The most recent turns of the DOM read each time (a long transcript that is not virtualised has hundreds). */
const MAX_READ_TURNS = 60;

/** A chat assistant's page, as data: where the prompt box and the turns are, and who said what. */
export interface ChatSite {
  name: string;
  hosts: readonly string[];
  /** The path the assistant lives under, where the host serves other pages too (x.com/i/grok). */
  path?: string;
  /** The site as the user knows it, for the panel's words ("Microsoft 365 Copilot"); `assistant` when absent. */
  label?: string;
  /** The adapter's `seen` (lib/sites/adapter.ts): when these selectors were compared with the site's references. */
  seen: string;
  /** The prompt box, most specific first. */
  prompt: string;
  /** Every turn of the conversation, in document order (nested matches collapse to the outermost); '' when unknown. */
  turns: string;
  /** A turn that is the user's: it matches this, or holds an element that does. */
  user?: string;
  /** Or: a turn is the assistant's when it holds this, the user's otherwise. */
  assistantHas?: string;
  /** How the assistant is named in the turns ("ChatGPT: ..."). */
  assistant: string;
  /**
   * The blocks of a turn whose text is the conversation; other blocks of the turn (tool calls, reasoning) are
   * left out. Without any, the whole turn minus `exclude` is read.
   */
  parts?: string;
  /** The conversation, for the scoped observer. */
  conversation: string;
  /** Strips the site's suffix from document.title. */
  title(t: string): string;
  /** Blocks that are never the conversation (chrome, status lines, thinking); a turn inside one is no turn. */
  exclude: string;
  /** The conversation's id from the page address, as the importer keys it (`chatgpt:<id>`). */
  thread?(loc: Location): string | undefined;
  /** A turn's id (and place) in a transcript that empties or removes the turns out of view (lib/sites/chat-turns.ts). */
  turnKey?(turn: Element): TurnKey | undefined;
}

/** Words of a site's chrome that are never conversation (buttons, screen-reader labels, hidden blocks). */
export const CHROME = '[role="button"], [aria-hidden="true"], .sr-only, button';

function turnText(el: Element, site: ChatSite): string {
  let blocks: Element[] = [el];
  if (site.parts && !el.matches(site.parts)) {
    // Parts inside a left-out block (a reply quoted in a tool call, thinking) do not count.
    const parts = outermost(Array.from(el.querySelectorAll(site.parts))).filter((p) => !p.closest(site.exclude));
    if (parts.length) blocks = parts;
  }
  return blocks
    .map((b) => blockText(b, { exclude: site.exclude, maxChars: TURN_CHARS * 2 }))
    .filter(Boolean)
    .join('\n');
}

export function chatAdapter(site: ChatSite): SiteAdapter {
  // Selectors in priority order; a hidden fallback <textarea> the site keeps next to its editor is skipped.
  const promptSelectors = site.prompt.split(/,\s*/);
  const findPrompt = (doc: Document): HTMLElement | null => {
    for (const sel of promptSelectors) {
      for (const el of Array.from(doc.querySelectorAll<HTMLElement>(sel))) {
        if (el.getClientRects().length > 0 && !el.closest('[hidden], [aria-hidden="true"]') && !isSecretField(el)) return el;
      }
    }
    return null;
  };
  const has = (el: Element, sel: string) => el.matches(sel) || !!el.querySelector(sel);
  const isUser = (el: Element) => (site.assistantHas ? !has(el, site.assistantHas) : !!site.user && has(el, site.user));
  const memory = new TurnMemory();
  const inExcluded = (el: Element) => !!el.parentElement?.closest(site.exclude);
  return {
    name: site.name,
    hosts: site.hosts,
    ...(site.path ? { path: site.path } : {}),
    destination: 'chat',
    label: site.label ?? site.assistant,
    seen: site.seen,
    // What the panel's reading note and Diagnose this page report on: the prompt box as read() finds it, the turns.
    landmarks: { 'prompt box': (doc) => findPrompt(doc) !== null, ...(site.turns ? { conversation: site.turns } : {}) },
    matches: (loc) => onHosts(site.hosts)(loc) && (!site.path || loc.pathname.startsWith(site.path)),
    read(doc, focused) {
      const prompt = findPrompt(doc);
      // Turns inside a left-out block (reasoning steps that share the answers' selector) are not turns.
      const turnEls = outermost(site.turns ? Array.from(doc.querySelectorAll<HTMLElement>(site.turns)) : []).filter(
        (el) => !prompt?.contains(el) && !el.contains(prompt) && !inExcluded(el),
      );
      if (!prompt && !turnEls.length) return null;
      const out: Partial<TaskReading> = {};
      const live: LiveTurn[] = turnEls.slice(-MAX_READ_TURNS).map((el) => {
        const text = turnText(el, site);
        return { key: site.turnKey?.(el), line: text ? clip(`${isUser(el) ? 'User' : site.assistant}: ${text}`, TURN_CHARS) : '' };
      });
      const thread = site.thread?.(doc.location);
      const lines = memory.lines(thread ?? doc.location.pathname, live);
      // An empty latest turn never read is unknown: an older turn is not the latest in its place.
      if (lines.length && lines[lines.length - 1] !== null) {
        const turns = lines.filter((l): l is string => l !== null).slice(-MAX_TURNS);
        if (turns.length) out.turns = turns;
      }
      if (prompt && (!focused || focused === prompt || prompt.contains(focused) || focused.contains(prompt))) {
        const text = prompt instanceof HTMLTextAreaElement ? prompt.value : blockText(prompt, { maxChars: 20_000 });
        out.field = {
          text: stripInsertedText(prompt, text),
          kind: prompt instanceof HTMLTextAreaElement ? 'textarea' : 'contenteditable',
          label: prompt.getAttribute('aria-label') ?? prompt.getAttribute('placeholder') ?? prompt.getAttribute('data-placeholder') ?? undefined,
        };
      }
      const subject = site.title(doc.title).trim();
      if (subject) out.subject = subject;
      if (thread) out.thread = { id: thread };
      return out;
    },
    scope(doc) {
      return doc.querySelector(site.conversation) ?? findPrompt(doc)?.closest('main') ?? null;
    },
    observe: { childList: true, subtree: true },
  };
}

/** The path segment after `/<marker>/` in the page address. */
export const pathId = (loc: Location, marker: string) => new RegExp(`/${marker}/([\\w-]+)`).exec(loc.pathname)?.[1];
/** Strips a site's name from the end of the page title ("Trip to Porto - ChatGPT"); a title that is only the name is none. */
export const suffix = (names: string) => (t: string) =>
  new RegExp(`^(${names}|New chat)$`, 'i').test(t.trim()) ? '' : withoutTitleSuffix(t, '-|–', new RegExp(`(${names})$`, 'i'));
