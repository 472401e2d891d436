import type { MemoryInput } from '../memory/types';
import { itemDates, plausibleDate } from './dates';
import { messagePieces } from './note-text';
import { withoutSpans } from './scan';

interface ClaudeBlock {
  type?: string;
  text?: string;
}
interface ClaudeAttachment {
  file_name?: string;
  extracted_content?: string;
}
interface ClaudeMessage {
  uuid?: string;
  attachments?: ClaudeAttachment[];
  sender?: string;
  text?: string;
  content?: ClaudeBlock[];
  created_at?: string;
  parent_message_uuid?: string;
}
export interface ClaudeConversation {
  uuid?: string;
  name?: string;
  created_at?: string;
  updated_at?: string;
  current_leaf_message_uuid?: string;
  chat_messages: ClaudeMessage[];
}

export function isClaudeConversation(v: unknown): v is ClaudeConversation {
  return !!v && typeof v === 'object' && Array.isArray((v as ClaudeConversation).chat_messages);
}

/** The messages on screen: from the current leaf up through parents when the export says which; else in order. */
function shownMessages(conv: ClaudeConversation): ClaudeMessage[] {
  const msgs = conv.chat_messages;
  const leaf = conv.current_leaf_message_uuid;
  if (!leaf || !msgs.every((m) => m.uuid)) return msgs;
  const byId = new Map(msgs.map((m) => [m.uuid!, m]));
  if (!byId.has(leaf)) return msgs;
  const path: ClaudeMessage[] = [];
  const seen = new Set<string>();
  for (let m = byId.get(leaf); m && !seen.has(m.uuid!); m = m.parent_message_uuid ? byId.get(m.parent_message_uuid) : undefined) {
    seen.add(m.uuid!);
    path.push(m);
  }
  return path.reverse();
}

/** The text a person reads: the `text` blocks (thinking, tool use and tool results left out), else `text`. */
function shownText(m: ClaudeMessage): string {
  if (Array.isArray(m.content) && m.content.length) {
    return m.content
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => withoutMarkers(b.text!).trim())
      .filter(Boolean)
      .join('\n\n');
  }
  return typeof m.text === 'string' ? withoutMarkers(m.text).trim() : '';
}

/**
 * Older exports keep Claude's markers in the text: <antThinking> holds its reasoning (left out, as thinking blocks
 * are), <antArtifact title="…"> wraps what it showed beside the chat (kept, under its title, without the tags).
 */
function withoutMarkers(text: string): string {
  if (!text.includes('<ant')) return text;
  return withoutSpans(text, '<antThinking>', '</antThinking>')
    .replace(/<antArtifact\b([^<>]*)>\n?/g, (_m, attrs: string) => {
      const title = /\btitle="([^"]*)"/.exec(attrs)?.[1]?.trim();
      return title ? `${title}:\n` : '';
    })
    .replace(/\n?<\/antArtifact>/g, '')
    .replace(/\n{3,}/g, '\n\n');
}


/**
 * One Claude conversation as memory items: one thread (`claude:<uuid>`, seq by position), ids
 * `claude:<conversation uuid>:<message uuid>`, the conversation's name kept in each title; the text of pasted or
 * uploaded files follows the message it came with.
 */
export function claudeItems(conv: ClaudeConversation): MemoryInput[] {
  const convId = conv.uuid ?? '';
  const title = (conv.name ?? '').trim() || 'Claude conversation';
  const items: MemoryInput[] = [];
  for (const m of shownMessages(conv)) {
    if (m.sender !== 'human' && m.sender !== 'assistant') continue;
    if (!m.uuid) continue;
    const text = shownText(m);
    // A message without a usable time takes its conversation's; with neither, the item says it is undated.
    const dates = itemDates([plausibleDate(m.created_at), plausibleDate(conv.created_at), plausibleDate(conv.updated_at)]);
    messagePieces(text).filter(Boolean).forEach((piece, k) => {
      items.push({
        id: `claude:${convId}:${m.uuid}${k ? `#${k}` : ''}`,
        text: piece,
        title: `${title} · ${m.sender === 'human' ? 'You' : 'Claude'}`,
        kind: 'evidence',
        people: [],
        ...dates,
        source: { format: 'claude', title, ...(convId ? { url: `https://claude.ai/chat/${convId}` } : {}) },
        thread: { id: `claude:${convId}`, seq: items.length },
      });
    });
    // Text the person pasted or uploaded (Claude keeps its extracted text): part of the conversation's background.
    (m.attachments ?? []).forEach((a, n) => {
      const content = a.extracted_content?.trim();
      if (!content) return;
      const name = a.file_name?.trim() || 'Pasted text';
      messagePieces(content).forEach((piece, k) => {
        items.push({
          id: `claude:${convId}:${m.uuid}:attachment-${n}${k ? `#${k}` : ''}`,
          text: piece,
          title: `${name} · attached in ${title}`,
          kind: 'evidence',
          people: [],
          ...dates,
          source: { format: 'claude', title, ...(convId ? { url: `https://claude.ai/chat/${convId}` } : {}) },
          thread: { id: `claude:${convId}`, seq: items.length },
        });
      });
    });
  }
  return items;
}
