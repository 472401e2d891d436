import type { MemoryInput } from '../memory/types';
import type { Bytes } from './byte-stream';
import { chatgptItems, isChatGPTConversation } from './chatgpt';
import { claudeItems, isClaudeConversation } from './claude';
import { JsonStreamError, jsonValues } from './json-stream';
import { IMPORT_LIMITS, sizeInWords } from './limits';
import type { ImportOffer } from './types';

export interface ConversationsPart {
  items: MemoryInput[];
  format: 'chatgpt' | 'claude';
}

/** A problem in a conversations.json, worded for the person who exported it. */
export class ConversationsError extends Error {}

function conversationsProblem(e: JsonStreamError, n: number): string {
  switch (e.kind) {
    case 'truncated':
      return `ends in the middle of conversation ${n + 1} (the file was cut off: download the export again)`;
    case 'too-deep':
      return `nests lists more than ${IMPORT_LIMITS.jsonDepth} deep, which no chat export does; Backstory does not read it`;
    case 'too-large': {
      const limit = sizeInWords(IMPORT_LIMITS.jsonValueChars);
      return `has a conversation larger than ${limit} (conversation ${n + 1}); Backstory reads conversations up to ${limit}`;
    }
    default:
      return `is not valid JSON after conversation ${n} (${e.message})`;
  }
}

/**
 * A chat export's conversations.json (or one conversation object, `single`) (ChatGPT or Claude, told apart conversation by conversation from their shape)
 * read as a stream: one conversation at a time is parsed, turned into items and dropped.
 */
export async function* conversationItems(bytes: Bytes, offer: (o: ImportOffer) => void, single = false): AsyncGenerator<ConversationsPart> {
  let n = 0;
  let skipped = 0;
  try {
    // An array of conversations (the export), or one conversation on its own.
    for await (const values of jsonValues(bytes, [single ? '$' : '$.*'])) {
      let part: ConversationsPart | undefined;
      const parts: ConversationsPart[] = [];
      for (const { value } of values) {
        n++;
        let items: MemoryInput[];
        let format: ConversationsPart['format'];
        if (isChatGPTConversation(value)) (items = chatgptItems(value, offer)), (format = 'chatgpt');
        else if (isClaudeConversation(value)) (items = claudeItems(value)), (format = 'claude');
        else {
          skipped++;
          continue;
        }
        if (!part || part.format !== format) parts.push((part = { items: [], format }));
        part.items.push(...items);
      }
      yield* parts;
    }
  } catch (e) {
    if (!(e instanceof JsonStreamError)) throw e;
    throw new ConversationsError(conversationsProblem(e, n));
  }
  if (n === 0 && skipped === 0) return;
  if (skipped === n) throw new ConversationsError('holds no ChatGPT or Claude conversations (none has "mapping" or "chat_messages")');
}
