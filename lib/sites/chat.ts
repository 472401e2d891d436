import type { TaskReading } from '../rank/types';
import type { SiteAdapter } from './adapter';
import { stripInsertedText } from '../insert/state';
import { blockText, clip, outermost } from './text';

const MAX_TURNS = 4;
const TURN_CHARS = 1200;

interface ChatSite {
  name: string;
  hosts: string[];
  /** The prompt box, most specific first. */
  prompt: string;
  /** Every turn of the conversation, in document order, and who said it. */
  turns: string;
  speaker(el: Element): string;
  /** The conversation, for the scoped observer. */
  conversation: string;
  /** Strips the site's suffix from document.title. */
  title(t: string): string;
  exclude: string;
}

function chatAdapter(site: ChatSite): SiteAdapter {
  // Selectors in priority order; a hidden fallback <textarea> the site keeps next to its editor is skipped.
  const promptSelectors = site.prompt.split(/,\s*/);
  const findPrompt = (doc: Document): HTMLElement | null => {
    for (const sel of promptSelectors) {
      for (const el of Array.from(doc.querySelectorAll<HTMLElement>(sel))) {
        if (el.getClientRects().length > 0 && !el.closest('[hidden], [aria-hidden="true"]')) return el;
      }
    }
    return null;
  };
  return {
    name: site.name,
    matches: (loc) => site.hosts.includes(loc.hostname),
    read(doc, focused) {
      const prompt = findPrompt(doc);
      const turnEls = outermost(Array.from(doc.querySelectorAll<HTMLElement>(site.turns))).filter((el) => !prompt?.contains(el) && !el.contains(prompt));
      if (!prompt && !turnEls.length) return null;
      const out: Partial<TaskReading> = {};
      const turns = turnEls
        .slice(-MAX_TURNS)
        .map((el) => {
          const text = blockText(el, { exclude: site.exclude, maxChars: TURN_CHARS * 2 });
          return text ? clip(`${site.speaker(el)}: ${text}`, TURN_CHARS) : '';
        })
        .filter(Boolean);
      if (turns.length) out.turns = turns;
      if (prompt && (!focused || focused === prompt || prompt.contains(focused) || focused.contains(prompt))) {
        const text =
          prompt instanceof HTMLTextAreaElement ? prompt.value : blockText(prompt, { maxChars: 20_000 });
        out.field = {
          text: stripInsertedText(prompt, text),
          kind: prompt instanceof HTMLTextAreaElement ? 'textarea' : 'contenteditable',
          label: prompt.getAttribute('aria-label') ?? prompt.getAttribute('placeholder') ?? prompt.getAttribute('data-placeholder') ?? undefined,
        };
      }
      const subject = site.title(doc.title).trim();
      if (subject) out.subject = subject;
      return out;
    },
    scope(doc) {
      return doc.querySelector(site.conversation) ?? findPrompt(doc)?.closest('main') ?? null;
    },
    observe: { childList: true, subtree: true },
  };
}

/**
 * ChatGPT: the prompt box is #prompt-textarea (a ProseMirror editor, a <textarea> in older builds); every turn
 * carries data-message-author-role="user|assistant".
 */
export const chatgptAdapter = chatAdapter({
  name: 'chatgpt',
  hosts: ['chatgpt.com', 'chat.openai.com'],
  prompt: '#prompt-textarea, [contenteditable="true"][data-virtualkeyboard], form textarea[name="prompt-textarea"]',
  turns: '[data-message-author-role]',
  speaker: (el) => (el.getAttribute('data-message-author-role') === 'user' ? 'User' : 'ChatGPT'),
  conversation: 'main',
  title: (t) => (/^(ChatGPT|New chat)$/i.test(t.trim()) ? '' : t.replace(/\s*[-|]\s*ChatGPT$/i, '')),
  exclude: '[role="button"], [aria-hidden="true"], .sr-only',
});

/**
 * Claude: the prompt box is a ProseMirror contenteditable labelled for the prompt (data-testid="chat-input" in
 * current builds); user turns are [data-testid="user-message"], Claude's replies sit in [data-is-streaming].
 */
export const claudeAdapter = chatAdapter({
  name: 'claude',
  hosts: ['claude.ai'],
  prompt: '[data-testid="chat-input"][contenteditable="true"], [contenteditable="true"][aria-label*="prompt" i], fieldset [contenteditable="true"].ProseMirror',
  turns: '[data-testid="user-message"], [data-is-streaming]',
  speaker: (el) => (el.matches('[data-testid="user-message"]') ? 'User' : 'Claude'),
  conversation: 'main, [role="main"]',
  title: (t) => (/^Claude$/i.test(t.trim()) ? '' : t.replace(/\s*[-|]\s*Claude$/i, '')),
  exclude: '[role="button"], [aria-hidden="true"], .sr-only',
});
