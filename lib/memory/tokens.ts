import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { mergedCount } from './bpe-merge';
import type { TokenTable } from './token-table';
import { loadTokenTable, tokenTable } from './token-ranks-node';

/**
 * Reads the token table, so the first count does not wait for it: in the extension the worker awaits it before it
 * first makes or ranks an item (MemoryStore.load and add); in Node it is made from gpt-tokenizer's module at first use.
 */
export async function loadTokenCounter(): Promise<void> {
  await loadTokenTable();
}

// o200k_base's pattern (gpt-tokenizer's), with a lastIndex of its own. Special tokens ("<|endoftext|>") spelled in a
// note or a page are ordinary text to the model the user sends them to, so the pattern splits them like any text.
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
const utf8 = new TextEncoder();
/** A piece's UTF-8 bytes (3 bytes at most per UTF-16 unit), grown for long pieces. */
let buf = new Uint8Array(1024);
/** Pieces that are not one token, with their counts (gpt-tokenizer keeps up to 100,000 merges the same way). */
const merged = new Map<string, number>();
const MERGED_KEPT = 50_000;
/** Only pieces up to this long are kept: words come back, a long run of a crafted file does not. */
const KEPT_PIECE_CHARS = 64;

/** Characters of the pieces whose counts are kept (for tests: what counting leaves held in memory). */
export function keptPieceChars(): number {
  let n = 0;
  for (const piece of merged.keys()) n += piece.length;
  return n;
}

function pieceTokens(table: TokenTable, piece: string): number {
  if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
  const known = merged.get(piece);
  if (known !== undefined) return known;
  if (buf.length < piece.length * 3) buf = new Uint8Array(piece.length * 3);
  const bytes = buf;
  const n = utf8.encodeInto(piece, bytes).written;
  if (table.rankOf(bytes, 0, n) >= 0) return 1;
  const count = mergedCount(n, (from, to) => table.rankOf(bytes, from, to));
  if (piece.length <= KEPT_PIECE_CHARS) {
    if (merged.size >= MERGED_KEPT) merged.clear();
    merged.set(piece, count);
  }
  return count;
}

/** The tokens of `text`, stopping once they pass `limit` (then a number above it). */
function counted(text: string, limit: number): number {
  const table = tokenTable();
  let count = 0;
  SPLIT.lastIndex = 0;
  for (let m = SPLIT.exec(text); m; m = SPLIT.exec(text)) {
    count += pieceTokens(table, m[0]);
    if (count > limit) break;
  }
  // A long crafted piece leaves a big buffer behind; the next piece starts small again.
  if (buf.length > 65_536) buf = new Uint8Array(1024);
  return count;
}

/** Token count as the destination model would see it (o200k_base's byte-pair encoding, as gpt-tokenizer counts it). */
export function countTokens(text: string): number {
  if (!text) return 0;
  // Very long texts: count a prefix and extrapolate so one paste cannot stall the worker.
  if (text.length > 200_000) {
    const head = text.slice(0, 50_000);
    return Math.ceil((counted(head, Infinity) * text.length) / head.length);
  }
  return counted(text, Infinity);
}

/**
 * The token count of `text` when it is at most `limit`, else undefined: counting stops once the count passes the
 * limit, so asking whether a long excerpt fits a nearly full budget costs a few dozen tokens' work, not the whole
 * text's. Without a limit (`Infinity`) it is `countTokens`.
 */
export function countTokensUpTo(text: string, limit: number): number | undefined {
  if (limit < 0) return undefined;
  const n = limit === Infinity || text.length > 200_000 ? countTokens(text) : counted(text, limit);
  return n <= limit ? n : undefined;
}
