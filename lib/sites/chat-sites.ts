/**
 * The chat assistants' pages, as data (lib/sites/chat.ts reads them). Each site's selectors were compared on its
 * `seen` date against maintained open-source code that reads or writes the live site; the repositories, files and
 * what was taken from each are in lib/sites/REFERENCES.md. Nothing here was checked on the live sites.
 */
import { CHROME, chatAdapter, pathId, suffix, type ChatSite } from './chat';
import { trailingNumber } from './chat-turns';

const threadAt = (site: string, marker: string) => (loc: Location) => {
  const id = pathId(loc, marker);
  return id ? `${site}:${id}` : undefined;
};

/**
 * ChatGPT: the prompt box is #prompt-textarea (a ProseMirror editor, a <textarea> in older builds). Turns are
 * `section` elements with data-testid="conversation-turn-N" and data-turn="user|assistant" (`article` in older
 * builds); one assistant turn can hold several [data-message-author-role] blocks (tool calls, reasoning), read as
 * one turn of its user/assistant blocks. Turns out of view are emptied: N keys and orders them.
 */
export const chatgptSite: ChatSite = {
  name: 'chatgpt',
  hosts: ['chatgpt.com', 'chat.openai.com'],
  seen: '2026-12-06',
  prompt: '#prompt-textarea, [contenteditable="true"][data-virtualkeyboard], form textarea[name="prompt-textarea"]',
  turns: 'section[data-turn], article[data-turn], [data-turn-key], [data-message-author-role]',
  user: '[data-turn="user"], [data-message-author-role="user"]',
  assistant: 'ChatGPT',
  parts: '[data-message-author-role="user"], [data-message-author-role="assistant"]',
  conversation: 'main',
  title: suffix('ChatGPT'),
  exclude: CHROME,
  thread: threadAt('chatgpt', 'c'),
  turnKey: (el) => {
    const testId = el.getAttribute('data-testid');
    const index = testId?.startsWith('conversation-turn-') ? trailingNumber(testId) : undefined;
    if (index !== undefined) return { id: `turn-${index}`, index };
    const id = el.getAttribute('data-turn-id') ?? el.getAttribute('data-message-id');
    return id ? { id } : undefined;
  },
};

/**
 * Claude: the prompt box is a ProseMirror contenteditable (data-testid="chat-input"). Today each turn is a
 * [data-testid="transcript-row"] (data-perf-row="human|assistant", data-index), rows out of view emptied; a reply is
 * [data-testid="assistant-message"] whose text is [data-cds="Prose"] [data-perf-reply-text], beside a
 * [data-cds="TurnStatus"] line ("Searched the web", "Thought for 12s") and, opened, a [data-cds="Collapsible"]
 * thinking block, neither of which is the conversation. Older builds: [data-is-streaming] / .font-claude-response
 * with .standard-markdown text.
 */
export const claudeSite: ChatSite = {
  name: 'claude',
  hosts: ['claude.ai'],
  seen: '2026-12-06',
  prompt: '[data-testid="chat-input"][contenteditable="true"], [contenteditable="true"][aria-label*="prompt" i], fieldset [contenteditable="true"].ProseMirror',
  turns: '[data-testid="transcript-row"], [data-testid="user-message"], [data-testid="assistant-message"], [data-is-streaming], .font-claude-response',
  user: '[data-testid="user-message"], [data-perf-row="human"]',
  assistant: 'Claude',
  parts: '[data-testid="user-message"], [data-perf-reply-text], .standard-markdown, .progressive-markdown',
  conversation: 'main, [role="main"]',
  title: suffix('Claude'),
  exclude: [
    CHROME,
    '[data-cds="TurnStatus"], [data-testid="TurnStatus"], [data-cds="Collapsible"], [data-cds="MessageActions"], [data-testid="message-actions"]',
    '[data-testid*="thinking" i], [class*="thinking" i], [data-testid*="tool" i], [class*="artifact-block" i], [class*="group/status"], details',
  ].join(', '),
  thread: threadAt('claude', 'chat'),
  turnKey: (el) => {
    const index = trailingNumber(el.closest('[data-testid="transcript-row"]')?.getAttribute('data-index'));
    if (index !== undefined) return { id: `row-${index}`, index };
    const key = el.closest('[data-turn-key]')?.getAttribute('data-turn-key') ?? el.querySelector('[data-turn-key]')?.getAttribute('data-turn-key');
    return key ? { id: key } : undefined;
  },
};

/**
 * Gemini: a Quill prompt box inside <rich-textarea>; turns are <user-query> and <model-response> elements. A chat
 * is at /app/<id>, a Gem's chat at /gem/<gem>/<id>: the same conversation ids.
 */
export const geminiSite: ChatSite = {
  name: 'gemini',
  hosts: ['gemini.google.com'],
  seen: '2026-12-06',
  prompt: 'rich-textarea .ql-editor[contenteditable="true"], .ql-editor[contenteditable="true"][role="textbox"]',
  turns: 'user-query, model-response',
  user: 'user-query',
  assistant: 'Gemini',
  parts: '.query-text, message-content',
  conversation: 'main, chat-window',
  title: suffix('Gemini|Google Gemini'),
  exclude: `${CHROME}, model-thoughts, .cdk-visually-hidden`,
  thread: (loc) => {
    const id = pathId(loc, 'app') ?? /\/gem\/[\w-]+\/([\w-]+)/.exec(loc.pathname)?.[1];
    return id ? `gemini:${id}` : undefined;
  },
};

/** Microsoft Copilot: a textarea prompt (#userInput); turns carry data-content="user-message" / "ai-message". */
export const copilotSite: ChatSite = {
  name: 'copilot',
  label: 'Microsoft Copilot',
  hosts: ['copilot.microsoft.com'],
  seen: '2026-12-06',
  prompt: 'textarea#userInput, textarea[data-testid="composer-input"], textarea[placeholder*="Copilot" i]',
  turns: '[data-content="user-message"], [data-content="ai-message"]',
  user: '[data-content="user-message"]',
  assistant: 'Copilot',
  conversation: 'main',
  title: suffix('Microsoft Copilot|Copilot'),
  exclude: CHROME,
  thread: threadAt('copilot', 'chats'),
};

/**
 * Perplexity: the ask box (#ask-input, a Lexical editor; a textarea before); queries and answers in the thread. The
 * reasoning steps above an answer ("7 steps completed", each step a .group/goal block) render their text in the
 * same [id^="markdown-content-"] blocks as the answers: they are left out.
 */
export const perplexitySite: ChatSite = {
  name: 'perplexity',
  hosts: ['www.perplexity.ai', 'perplexity.ai'],
  seen: '2026-12-06',
  prompt: '#ask-input[contenteditable="true"], textarea[placeholder*="Ask" i], [contenteditable="true"][data-lexical-editor]',
  turns: '[data-testid="user-query"], [class*="group/query"], [id^="markdown-content-"]',
  user: '[data-testid="user-query"], [class*="group/query"]',
  assistant: 'Perplexity',
  conversation: 'main',
  title: suffix('Perplexity'),
  exclude: `${CHROME}, [class*="citation" i], [class*="group/goal"], [data-testid*="reasoning" i], [data-testid*="steps" i]`,
  thread: threadAt('perplexity', 'search'),
};

/** DeepSeek: a textarea prompt (#chat-input); each turn is a .ds-message, replies render .ds-markdown. */
export const deepseekSite: ChatSite = {
  name: 'deepseek',
  hosts: ['chat.deepseek.com'],
  seen: '2026-12-06',
  prompt: 'textarea#chat-input, textarea[placeholder*="DeepSeek" i]',
  turns: '.ds-message',
  assistantHas: '.ds-markdown',
  assistant: 'DeepSeek',
  parts: '.ds-markdown',
  conversation: 'main, #root',
  title: suffix('DeepSeek'),
  // The reasoning shown above a reply ("Thought for 12 seconds") is not the conversation.
  exclude: `${CHROME}, .ds-think-content, [class*="think" i]`,
  thread: threadAt('deepseek', 's'),
};

/** Mistral Le Chat: a ProseMirror (or textarea) prompt; turns carry data-message-author-role. */
export const mistralSite: ChatSite = {
  name: 'mistral',
  label: 'Le Chat',
  hosts: ['chat.mistral.ai'],
  seen: '2026-12-06',
  prompt: '.ProseMirror[contenteditable="true"], textarea[name="message.text"]',
  turns: '[data-message-author-role]',
  user: '[data-message-author-role="user"]',
  assistant: 'Le Chat',
  conversation: 'main',
  title: suffix('Le Chat|Mistral AI|Le Chat - Mistral AI'),
  exclude: CHROME,
  thread: threadAt('mistral', 'chat'),
};

/**
 * Grok at grok.com: a TipTap/ProseMirror prompt in [data-testid="chat-input"] (a textarea in older builds). Each
 * message is a [id="response-<id>"] column, the user's aligned to the end (items-end), Grok's to the start; its
 * text is the .message-bubble, less the .thinking-container above a reply. A chat is at /c/<id>.
 */
export const grokSite: ChatSite = {
  name: 'grok',
  hosts: ['grok.com'],
  seen: '2026-12-06',
  prompt: '[data-testid="chat-input"] [contenteditable="true"], .query-bar-editor[contenteditable="true"], form .tiptap.ProseMirror[contenteditable="true"], form textarea[aria-label*="Grok" i], form textarea',
  turns: '[id^="response-"]',
  user: '[id^="response-"].items-end',
  assistant: 'Grok',
  parts: '.message-bubble, .response-content-markdown',
  conversation: 'main',
  title: suffix('Grok'),
  exclude: `${CHROME}, .thinking-container, [class*="thinking" i], .action-buttons`,
  thread: threadAt('grok', 'c'),
  turnKey: (el) => ({ id: el.id }),
};

/**
 * Grok inside X (x.com/i/grok): the references found no stable hooks for its messages, so only the prompt box and
 * the conversation (?conversation=<id>) are read; the page's own text is not taken for turns.
 */
export const grokXSite: ChatSite = {
  name: 'grok-x',
  label: 'Grok on X',
  hosts: ['x.com'],
  path: '/i/grok',
  seen: '2026-12-06',
  prompt: 'textarea[placeholder*="Ask" i], [data-testid="primaryColumn"] textarea',
  turns: '',
  assistant: 'Grok',
  conversation: '[data-testid="primaryColumn"], main',
  title: suffix('Grok|Grok / X|X'),
  exclude: CHROME,
  thread: (loc) => {
    const id = new URLSearchParams(loc.search).get('conversation');
    return id && /^[\w-]+$/.test(id) ? `grok:${id}` : undefined;
  },
};

/**
 * Microsoft 365 Copilot (m365.cloud.microsoft/chat): the prompt is a Lexical editor,
 * span#m365-chat-editor-target-element; the user's turns are .fai-UserMessage ([data-testid="chatQuestion"]),
 * Copilot's .fai-CopilotMessage with the text in [data-testid="markdown-reply"]; the "You said:" / "Copilot said:"
 * headings, the agent's name, the action bar and the footnotes are not the conversation. A chat is at
 * /chat/conversation/<id>.
 */
export const m365CopilotSite: ChatSite = {
  name: 'm365-copilot',
  label: 'Microsoft 365 Copilot',
  hosts: ['m365.cloud.microsoft'],
  path: '/chat',
  seen: '2026-12-06',
  prompt: '#m365-chat-editor-target-element[contenteditable="true"], [data-lexical-editor="true"][contenteditable="true"][role="combobox"], .fai-ChatInput [contenteditable="true"]',
  turns: '[data-testid="chatQuestion"], .fai-UserMessage, [data-testid="copilot-message-div"], [data-testid="copilot-message-reply-div"], .fai-CopilotMessage',
  user: '[data-testid="chatQuestion"], .fai-UserMessage',
  assistant: 'Copilot',
  parts: '[data-testid="markdown-reply"]',
  conversation: 'main, [role="main"]',
  title: suffix('Microsoft 365 Copilot|Microsoft 365|Copilot'),
  exclude: `${CHROME}, [class*="accessibleHeading"], .fai-CopilotMessage__name, .fai-CopilotMessage__actions, [data-testid="foot-note-div"], [data-testid="sources-button-testid"], .fai-SuggestionList, [data-testid="chat-suggestion"]`,
  thread: threadAt('m365-copilot', 'conversation'),
};

export const chatgptAdapter = chatAdapter(chatgptSite);
export const claudeAdapter = chatAdapter(claudeSite);
export const geminiAdapter = chatAdapter(geminiSite);
export const copilotAdapter = chatAdapter(copilotSite);
export const perplexityAdapter = chatAdapter(perplexitySite);
export const deepseekAdapter = chatAdapter(deepseekSite);
export const mistralAdapter = chatAdapter(mistralSite);
export const grokAdapter = chatAdapter(grokSite);
export const grokXAdapter = chatAdapter(grokXSite);
export const m365CopilotAdapter = chatAdapter(m365CopilotSite);
