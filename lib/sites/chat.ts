import type { TaskReading } from '../rank/types';
import { onHosts, type SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, clip, outermost, withoutTitleSuffix } from './text';
import { isSecretField } from '../dom/editable';

const MAX_TURNS = 4;
const TURN_CHARS = 1200;

/** A chat assistant's page, as data: where the prompt box and the turns are, and who said what. */
export interface ChatSite {
  name: string;
  hosts: readonly string[];
  /** When these selectors were last seen working on the live site. */
  seen: string;
  /** The prompt box, most specific first. */
  prompt: string;
  /** Every turn of the conversation, in document order (nested matches collapse to the outermost). */
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
  exclude: string;
  /** The conversation's id from the page address, as the importer keys it (`chatgpt:<id>`). */
  thread?(loc: Location): string | undefined;
}

/** Words of a site's chrome that are never conversation (buttons, screen-reader labels, hidden blocks). */
const CHROME = '[role="button"], [aria-hidden="true"], .sr-only, button';

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
  return {
    name: site.name,
    hosts: site.hosts,
    destination: 'chat',
    seen: site.seen,
    matches: onHosts(site.hosts),
    read(doc, focused) {
      const prompt = findPrompt(doc);
      const turnEls = outermost(Array.from(doc.querySelectorAll<HTMLElement>(site.turns))).filter((el) => !prompt?.contains(el) && !el.contains(prompt));
      if (!prompt && !turnEls.length) return null;
      const out: Partial<TaskReading> = {};
      const turns: string[] = [];
      for (let i = turnEls.length - 1; i >= 0 && turns.length < MAX_TURNS; i--) {
        const text = turnText(turnEls[i], site);
        if (text) turns.unshift(clip(`${isUser(turnEls[i]) ? 'User' : site.assistant}: ${text}`, TURN_CHARS));
      }
      if (turns.length) out.turns = turns;
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
      const thread = site.thread?.(doc.location);
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
const pathId = (loc: Location, marker: string) => new RegExp(`/${marker}/([\\w-]+)`).exec(loc.pathname)?.[1];
const suffix = (names: string) => (t: string) =>
  new RegExp(`^(${names}|New chat)$`, 'i').test(t.trim()) ? '' : withoutTitleSuffix(t, '-|–', new RegExp(`(${names})$`, 'i'));

/**
 * ChatGPT: the prompt box is #prompt-textarea (a ProseMirror editor, a <textarea> in older builds). Turns are
 * `section` elements with data-testid="conversation-turn-N" and data-turn="user|assistant" (`article` in older
 * builds); one assistant turn can hold several [data-message-author-role] blocks (tool calls, reasoning), read as
 * one turn of its user/assistant blocks.
 */
export const chatgptSite: ChatSite = {
  name: 'chatgpt',
  hosts: ['chatgpt.com', 'chat.openai.com'],
  seen: '2026-11-20',
  prompt: '#prompt-textarea, [contenteditable="true"][data-virtualkeyboard], form textarea[name="prompt-textarea"]',
  turns: 'section[data-turn], article[data-turn], [data-turn-key], [data-message-author-role]',
  user: '[data-turn="user"], [data-message-author-role="user"]',
  assistant: 'ChatGPT',
  parts: '[data-message-author-role="user"], [data-message-author-role="assistant"]',
  conversation: 'main',
  title: suffix('ChatGPT'),
  exclude: CHROME,
  thread: (loc) => {
    const id = pathId(loc, 'c');
    return id ? `chatgpt:${id}` : undefined;
  },
};

/**
 * Claude: the prompt box is a ProseMirror contenteditable (data-testid="chat-input"); user turns are
 * [data-testid="user-message"], replies sit in [data-is-streaming] / .font-claude-response. A reply's text is its
 * .standard-markdown blocks; thinking, tool-use and artifact blocks in it are not the conversation.
 */
export const claudeSite: ChatSite = {
  name: 'claude',
  hosts: ['claude.ai'],
  seen: '2026-11-20',
  prompt: '[data-testid="chat-input"][contenteditable="true"], [contenteditable="true"][aria-label*="prompt" i], fieldset [contenteditable="true"].ProseMirror',
  turns: '[data-testid="user-message"], [data-is-streaming], .font-claude-response',
  user: '[data-testid="user-message"]',
  assistant: 'Claude',
  parts: '[data-testid="user-message"], .standard-markdown, .progressive-markdown',
  conversation: 'main, [role="main"]',
  title: suffix('Claude'),
  exclude: `${CHROME}, [data-testid*="thinking" i], [class*="thinking" i], [data-testid*="tool" i], [class*="artifact-block" i], [class*="group/status"], details`,
  thread: (loc) => {
    const id = pathId(loc, 'chat');
    return id ? `claude:${id}` : undefined;
  },
};

/** Gemini: a Quill prompt box inside <rich-textarea>; turns are <user-query> and <model-response> elements. */
export const geminiSite: ChatSite = {
  name: 'gemini',
  hosts: ['gemini.google.com'],
  seen: '2026-11-20',
  prompt: 'rich-textarea .ql-editor[contenteditable="true"], .ql-editor[contenteditable="true"][role="textbox"]',
  turns: 'user-query, model-response',
  user: 'user-query',
  assistant: 'Gemini',
  parts: '.query-text, message-content',
  conversation: 'main, chat-window',
  title: suffix('Gemini|Google Gemini'),
  exclude: `${CHROME}, model-thoughts, .cdk-visually-hidden`,
  thread: (loc) => {
    const id = pathId(loc, 'app');
    return id ? `gemini:${id}` : undefined;
  },
};

/** Microsoft Copilot: a textarea prompt (#userInput); turns carry data-content="user-message" / "ai-message". */
export const copilotSite: ChatSite = {
  name: 'copilot',
  hosts: ['copilot.microsoft.com'],
  seen: '2026-11-20',
  prompt: 'textarea#userInput, textarea[data-testid="composer-input"], textarea[placeholder*="Copilot" i]',
  turns: '[data-content="user-message"], [data-content="ai-message"]',
  user: '[data-content="user-message"]',
  assistant: 'Copilot',
  conversation: 'main',
  title: suffix('Microsoft Copilot|Copilot'),
  exclude: CHROME,
  thread: (loc) => {
    const id = pathId(loc, 'chats');
    return id ? `copilot:${id}` : undefined;
  },
};

/** Perplexity: the ask box (#ask-input, a Lexical editor; a textarea before); queries and answers in the thread. */
export const perplexitySite: ChatSite = {
  name: 'perplexity',
  hosts: ['www.perplexity.ai', 'perplexity.ai'],
  seen: '2026-11-20',
  prompt: '#ask-input[contenteditable="true"], textarea[placeholder*="Ask" i], [contenteditable="true"][data-lexical-editor]',
  turns: '[data-testid="user-query"], [class*="group/query"], [id^="markdown-content-"]',
  user: '[data-testid="user-query"], [class*="group/query"]',
  assistant: 'Perplexity',
  conversation: 'main',
  title: suffix('Perplexity'),
  exclude: `${CHROME}, [class*="citation" i]`,
  thread: (loc) => {
    const id = pathId(loc, 'search');
    return id ? `perplexity:${id}` : undefined;
  },
};

/** DeepSeek: a textarea prompt (#chat-input); each turn is a .ds-message, replies render .ds-markdown. */
export const deepseekSite: ChatSite = {
  name: 'deepseek',
  hosts: ['chat.deepseek.com'],
  seen: '2026-11-20',
  prompt: 'textarea#chat-input, textarea[placeholder*="DeepSeek" i]',
  turns: '.ds-message',
  assistantHas: '.ds-markdown',
  assistant: 'DeepSeek',
  parts: '.ds-markdown',
  conversation: 'main, #root',
  title: suffix('DeepSeek'),
  // The reasoning shown above a reply ("Thought for 12 seconds") is not the conversation.
  exclude: `${CHROME}, .ds-think-content, [class*="think" i]`,
  thread: (loc) => {
    const id = pathId(loc, 's');
    return id ? `deepseek:${id}` : undefined;
  },
};

/** Mistral Le Chat: a ProseMirror (or textarea) prompt; turns carry data-message-author-role. */
export const mistralSite: ChatSite = {
  name: 'mistral',
  hosts: ['chat.mistral.ai'],
  seen: '2026-11-20',
  prompt: '.ProseMirror[contenteditable="true"], textarea[name="message.text"]',
  turns: '[data-message-author-role]',
  user: '[data-message-author-role="user"]',
  assistant: 'Le Chat',
  conversation: 'main',
  title: suffix('Le Chat|Mistral AI|Le Chat - Mistral AI'),
  exclude: CHROME,
  thread: (loc) => {
    const id = pathId(loc, 'chat');
    return id ? `mistral:${id}` : undefined;
  },
};

export const chatgptAdapter = chatAdapter(chatgptSite);
export const claudeAdapter = chatAdapter(claudeSite);
export const geminiAdapter = chatAdapter(geminiSite);
export const copilotAdapter = chatAdapter(copilotSite);
export const perplexityAdapter = chatAdapter(perplexitySite);
export const deepseekAdapter = chatAdapter(deepseekSite);
export const mistralAdapter = chatAdapter(mistralSite);
