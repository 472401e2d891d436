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

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const nth = (n: number) => (n <= ORDINALS.length ? `the ${ORDINALS[n - 1]} conversation` : `conversation ${n}`);
const SOURCE = { chatgpt: 'ChatGPT', claude: 'Claude' } as const;

function conversationsProblem(e: JsonStreamError, n: number, source: keyof typeof SOURCE | undefined): string {
  // The parser's own words ("Unexpected … in state …") mean nothing to the person who exported the file.
  const again = `Export your data from ${source ? SOURCE[source] : 'ChatGPT or Claude'} again.`;
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
      return n === 0 ? `is damaged in the first conversation (it is not valid JSON there). ${again}` : `is damaged after ${nth(n)} (it is no longer valid JSON there). ${again}`;
  }
}

/**
 * A chat export's conversations.json (or one conversation object, `single`) (ChatGPT or Claude, told apart conversation by conversation from their shape)
 * read as a stream: one conversation at a time is parsed, turned into items and dropped.
 */
export async function* conversationItems(
  bytes: Bytes,
  offer: (o: ImportOffer) => void,
  single = false,
  /** Whose export the first bytes look like, for the advice in a message when no conversation could be read. */
  looksLike?: ConversationsPart['format'],
): AsyncGenerator<ConversationsPart> {
  let n = 0;
  let skipped = 0;
  let source: ConversationsPart['format'] | undefined = looksLike;
  try {
    // An array of conversations (the export), or one conversation on its own.
    for await (const values of jsonValues(bytes, [single ? '$' : '$.*'])) {
      let part: ConversationsPart | undefined;
      const parts: ConversationsPart[] = [];
      for (const { value } of values) {
        n++;
        let items: MemoryInput[];
        let format: ConversationsPart['format'];
        if (isChatGPTConversation(value)) {
          items = chatgptItems(value, offer);
          format = 'chatgpt';
        } else if (isClaudeConversation(value)) {
          items = claudeItems(value);
          format = 'claude';
        } else {
          skipped++;
          continue;
        }
        source = format;
        if (!part || part.format !== format) parts.push((part = { items: [], format }));
        part.items.push(...items);
      }
      yield* parts;
    }
  } catch (e) {
    if (!(e instanceof JsonStreamError)) throw e;
    throw new ConversationsError(conversationsProblem(e, n, source));
  }
  if (n === 0 && skipped === 0) return;
  if (skipped === n) throw new ConversationsError('holds no ChatGPT or Claude conversations: it is JSON, but not a chat export.');
}
