import type { MemoryInput } from '../memory/types';
import { itemDates, plausibleTime } from './dates';
import { messagePieces } from './note-text';
import type { ImportOffer } from './types';

/** The parts of a ChatGPT export's conversation that are read (conversations.json holds an array of these). */
interface ChatGPTNode {
  id?: string;
  parent?: string | null;
  message?: ChatGPTMessage | null;
}
interface ChatGPTMessage {
  id?: string;
  author?: { role?: string; name?: string | null };
  create_time?: number | null;
  content?: { content_type?: string; parts?: unknown[]; text?: string; user_profile?: string; user_instructions?: string };
  metadata?: Record<string, unknown>;
  weight?: number;
  recipient?: string;
}
export interface ChatGPTConversation {
  id?: string;
  conversation_id?: string;
  title?: string;
  create_time?: number | null;
  update_time?: number | null;
  mapping: Record<string, ChatGPTNode>;
  current_node?: string | null;
}

export function isChatGPTConversation(v: unknown): v is ChatGPTConversation {
  return !!v && typeof v === 'object' && 'mapping' in v && !!(v as ChatGPTConversation).mapping && typeof (v as ChatGPTConversation).mapping === 'object';
}

/** The messages on screen: from `current_node` up to the root, so answers replaced by a regeneration drop out. */
function shownPath(conv: ChatGPTConversation): ChatGPTMessage[] {
  const path: ChatGPTMessage[] = [];
  const seen = new Set<string>();
  let id = conv.current_node ?? lastLeaf(conv);
  while (id && conv.mapping[id] && !seen.has(id)) {
    seen.add(id);
    const node = conv.mapping[id];
    if (node.message) path.push(node.message);
    id = node.parent ?? undefined;
  }
  return path.reverse();
}

/** Older exports without `current_node`: the leaf created last. */
function lastLeaf(conv: ChatGPTConversation): string | undefined {
  const parents = new Set(Object.values(conv.mapping).map((n) => n.parent).filter(Boolean));
  let best: string | undefined;
  let bestTime = -Infinity;
  for (const [id, node] of Object.entries(conv.mapping)) {
    if (parents.has(id)) continue;
    const t = node.message?.create_time ?? 0;
    if (t >= bestTime) {
      best = id;
      bestTime = t;
    }
  }
  return best;
}

// Content types whose text a person reads in the conversation; the rest are tool calls and results, browsing
// displays, reasoning, memory updates.
const SHOWN_CONTENT = new Set(['text', 'multimodal_text']);

function shownText(m: ChatGPTMessage): string {
  const parts = m.content?.parts ?? [];
  const texts: string[] = [];
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (p && typeof p === 'object' && (p as { content_type?: string }).content_type === 'text' && typeof (p as { text?: unknown }).text === 'string') {
      texts.push((p as { text: string }).text);
    }
  }
  return withoutCitations(texts.join('\n\n')).trim();
}

/**
 * Citation markers the answer text carries for the web page beside it: "【11†source】" in older exports, and spans
 * of private-use characters (U+E200 … U+E201) in newer ones. They mean nothing outside ChatGPT.
 */
function withoutCitations(s: string): string {
  return s.replace(/\u3010[^\u3011\n]{0,80}\u2020[^\u3011\n]{0,80}\u3011/g, '').replace(/\ue200[^\ue201]{0,200}\ue201/g, '').replace(/[\ue200-\ue2ff]/g, '');
}

/** The text inside the ``` fence ChatGPT wraps custom instructions in ("… about themselves:\n```I teach …```"). */
function fenced(s: string): string {
  const m = /```([\s\S]*?)```/.exec(s);
  return (m ? m[1] : s).trim();
}

function customInstructions(m: ChatGPTMessage): ImportOffer[] {
  const out: ImportOffer[] = [];
  const profile = m.content?.user_profile ? fenced(m.content.user_profile) : '';
  const instructions = m.content?.user_instructions ? fenced(m.content.user_instructions) : '';
  if (profile) out.push({ text: profile, title: 'About me (ChatGPT custom instructions)', from: 'ChatGPT custom instructions' });
  if (instructions) out.push({ text: instructions, title: 'How to respond (ChatGPT custom instructions)', from: 'ChatGPT custom instructions' });
  return out;
}

const seconds = (t: number | null | undefined) => (typeof t === 'number' ? plausibleTime(Math.round(t * 1000)) : undefined);

/**
 * One ChatGPT conversation as memory items: the user's and ChatGPT's messages on the path shown on screen, one
 * thread (`chatgpt:<conversation id>`, seq by position), ids `chatgpt:<conversation id>:<message id>`. System, tool
 * and hidden messages are left out; custom instructions go to `offer`, never into items.
 */
export function chatgptItems(conv: ChatGPTConversation, offer: (o: ImportOffer) => void): MemoryInput[] {
  const convId = conv.conversation_id ?? conv.id ?? '';
  const title = (conv.title ?? '').trim() || 'ChatGPT conversation';
  const items: MemoryInput[] = [];
  for (const m of shownPath(conv)) {
    const role = m.author?.role;
    if (m.content?.content_type === 'user_editable_context') {
      for (const o of customInstructions(m)) offer(o);
      continue;
    }
    if (role !== 'user' && role !== 'assistant') continue;
    if (m.metadata?.is_visually_hidden_from_conversation === true || m.metadata?.is_user_system_message === true) continue;
    if (m.weight === 0) continue;
    // An assistant message addressed to a tool (browser, python, an image generator) is a tool call.
    if (role === 'assistant' && m.recipient && m.recipient !== 'all') continue;
    if (!SHOWN_CONTENT.has(m.content?.content_type ?? '')) continue;
    const text = shownText(m);
    if (!text || !m.id) continue;
    // Export times are seconds; a message without one (or with an absurd one) takes its conversation's.
    const dates = itemDates([seconds(m.create_time), seconds(conv.create_time), seconds(conv.update_time)]);
    messagePieces(text).forEach((piece, k) => {
      items.push({
        id: `chatgpt:${convId}:${m.id}${k ? `#${k}` : ''}`,
        text: piece,
        title: `${title} · ${role === 'user' ? 'You' : 'ChatGPT'}`,
        kind: 'evidence',
        people: [],
        ...dates,
        source: { format: 'chatgpt', title, ...(convId ? { url: `https://chatgpt.com/c/${convId}` } : {}) },
        thread: { id: `chatgpt:${convId}`, seq: items.length },
      });
    });
  }
  return items;
}
