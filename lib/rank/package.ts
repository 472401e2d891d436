import type { Destination } from '../core/destinations';
import type { RankedCard } from './types';
import type { MemoryItem } from '../memory/types';
import { countTokens } from '../memory/tokens';
import { excerpt, splitPassages, type Passage } from '../memory/index/passages';

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Order for the reader: items of one thread together in thread order, at the place of the thread's best card;
 * otherwise the rank order.
 */
function readerOrder(cards: RankedCard[]): RankedCard[] {
  const groups = new Map<string, RankedCard[]>();
  const order: string[] = [];
  for (const c of cards) {
    const key = c.item.thread ? 't:' + c.item.thread.id : 'i:' + c.item.id;
    if (!groups.has(key)) {
      groups.set(key, []);
      order.push(key);
    }
    groups.get(key)!.push(c);
  }
  const out: RankedCard[] = [];
  for (const k of order) out.push(...groups.get(k)!.sort((a, b) => (a.item.thread?.seq ?? 0) - (b.item.thread?.seq ?? 0)));
  return out;
}

function render(dest: Destination, instr: string[], evid: string[]): string {
  const parts: string[] = [];
  if (dest === 'chat') {
    // A compact Markdown block an assistant reads as background, with the standing rules first.
    if (instr.length) parts.push('**How I like things done:**\n' + instr.map((t) => `- ${t}`).join('\n'));
    if (evid.length) parts.push('**Background:**\n' + evid.map((t) => `- ${t}`).join('\n'));
    return parts.join('\n\n');
  }
  if (dest === 'email') {
    // Plain prose lines: no Markdown in a mail body.
    if (evid.length) parts.push(evid.join('\n'));
    if (instr.length) parts.push(instr.join('\n'));
    return parts.join('\n\n');
  }
  if (instr.length) parts.push('Instructions:\n' + instr.map((t) => `- ${t}`).join('\n'));
  if (evid.length) parts.push('Background:\n' + evid.map((t) => `- ${t}`).join('\n'));
  return parts.join('\n\n');
}

/**
 * What a card puts in: a long item's chosen passages (`parts`, default all it matched) in their order within the item
 * with "…" between them, or the whole text of an item of one passage. Insert and the package use the same words.
 */
export function cardText(
  c: Pick<RankedCard, 'item' | 'passages'>,
  parts = c.passages?.passages,
  split: (text: string) => readonly Passage[] = splitPassages,
): string {
  return parts ? excerpt(c.item.text, split(c.item.text), parts) : c.item.text;
}

function lineOf(c: RankedCard, dest: Destination, parts: number[] | undefined, split: (text: string) => readonly Passage[]): string {
  const text = oneLine(cardText(c, parts, split));
  const title = oneLine(c.item.title);
  if (!title || text.toLowerCase().startsWith(title.toLowerCase()) || c.kind === 'instruction') return text;
  return dest === 'chat' ? `**${title}:** ${text}` : `${title}: ${text}`;
}

/** Cut a text to at most `max` tokens (by halving the cut until it fits). */
function cutToTokens(text: string, max: number): string {
  if (countTokens(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(text.slice(0, mid) + '…') <= max) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? text.slice(0, lo).trimEnd() + '…' : '';
}

/**
 * Token counts of recently packaged texts (card lines, framing, whole packages), least recently used dropped first.
 * Pinned cards and instructions are in nearly every package, and the panel re-ranks the same task as the user types,
 * so most lines were counted moments ago; encoding them again was most of the package's cost.
 */
class CountMemo {
  private counts = new Map<string, number>();
  private chars = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  count(text: string): number {
    const got = this.counts.get(text);
    if (got !== undefined) {
      this.counts.delete(text);
      this.counts.set(text, got);
      return got;
    }
    const n = countTokens(text);
    // Texts too long to be worth holding are counted every time.
    if (text.length > this.maxChars / 16) return n;
    this.counts.set(text, n);
    this.chars += text.length;
    for (const [old] of this.counts) {
      if (this.counts.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.counts.delete(old);
      this.chars -= old.length;
    }
    return n;
  }
}

const memo = new CountMemo(512, 1_000_000);

/**
 * Token counts of rendered packages from counts of their lines: the tokenizer's pre-split never joins a line's end
 * with the next line when that line starts with a character other than a space or "/" (a run of punctuation takes
 * the newline and slashes after it), so a text split just before such lines counts as the sum of its pieces, and
 * each piece (a card's line) is encoded once however often the package is re-rendered.
 */
function lineCounter(): (text: string) => number {
  return (text) => {
    let n = 0;
    for (const piece of text.split(/(?<=\n)(?=[^\s/])/)) n += memo.count(piece);
    return n;
  };
}

/**
 * The context package: instructions and evidence kept apart, formatted for the destination, never over budget.
 * Cards are taken in rank order (a long item's with its best passage); one that would overflow is left out (or, if it
 * is the first, cut). The room left goes to the packed long cards' further passages, most worth first (`PackageSpend`).
 */
export function buildPackage(
  cards: RankedCard[],
  destination: Destination,
  budgetTokens: number,
  spend: PackageSpend = PACKAGE_SPEND,
): { text: string; tokens: number; ids: string[] } {
  const fast = packWith(cards, destination, budgetTokens, lineCounter(), spend);
  // The piecewise count is checked once on the result; should it ever disagree, the package is made with whole counts.
  return memo.count(fast.text) === fast.tokens ? fast : packWith(cards, destination, budgetTokens, countTokens, spend);
}

/** How the package spends its budget on long items' passages (chosen by cross-validation: docs/benchmarks.md, 6 and 7 Dec 2026). */
export interface PackageSpend {
  /** Each card first with its best passage only (`best`), or with every passage it chose (`chosen`, fewer if need be). */
  first: 'best' | 'chosen';
  /**
   * The budget left after the cards' first passages goes to further passages of the packed cards, most valuable
   * first: a passage is worth its card's score × (its relevance / the card's best passage's) ^ `sharpness`
   * (`Infinity`: none, as the package was before).
   */
  sharpness: number;
  /**
   * A further passage is packed only when its relevance is at least this share of the card's best passage's: room
   * left in the budget is not a reason to send the parts of a long note that are about something else.
   */
  floor: number;
}

export const PACKAGE_SPEND: PackageSpend = { first: 'best', sharpness: 1, floor: 0.3 };

/**
 * Per item (an edit makes a new item), the tokens of each passage's own part (what no neighbouring passage holds):
 * the least a passage adds to a card's line. Counted when the package first weighs it and kept, as the panel packs
 * the same long items again at each pause in typing; a passage that cannot fit by this count is not tried, so the
 * package is counted whole only for the few that can (trying each took 14 ms a package on LoCoMo sessions).
 */
const coreCounts = new WeakMap<MemoryItem, number[]>();

function coreTokens(item: MemoryItem, ps: readonly Passage[], k: number): number {
  let counts = coreCounts.get(item);
  if (!counts) coreCounts.set(item, (counts = []));
  const from = k > 0 ? Math.max(ps[k].start, ps[k - 1].end) : ps[k].start;
  const to = k + 1 < ps.length ? Math.min(ps[k].end, ps[k + 1].start) : ps[k].end;
  // A word cut at either end of the part may count as one piece fewer than in the whole line.
  return (counts[k] ??= Math.max(0, countTokens(item.text.slice(from, to)) - 2));
}

function packWith(
  cards: RankedCard[],
  destination: Destination,
  budgetTokens: number,
  countTokens: (text: string) => number,
  spend: PackageSpend,
): { text: string; tokens: number; ids: string[] } {
  const instr: RankedCard[] = [];
  const evid: RankedCard[] = [];
  // The passages each packed card carries (a long item's); each card's line is rendered once per choice, however
  // often the package is re-rendered around it.
  const partsOf = new Map<RankedCard, number[] | undefined>();
  const lines = new Map<string, string>();
  // A long card's line is tried with fewer passages until it fits: its text is split once.
  const splits = new Map<string, readonly Passage[]>();
  const split = (text: string) => {
    let ps = splits.get(text);
    if (!ps) splits.set(text, (ps = splitPassages(text)));
    return ps;
  };
  const line = (c: RankedCard) => {
    const parts = partsOf.get(c);
    const key = `${c.item.id}\u0000${parts?.join(',') ?? ''}`;
    let l = lines.get(key);
    if (l === undefined) lines.set(key, (l = lineOf(c, destination, parts, split)));
    return l;
  };
  let text = '';
  let tokens = 0;
  let wasCut = false;
  for (const c of cards) {
    // A long item's passages by relevance (its best one, or all it chose, else fewer, down to its best one).
    const chosen = spend.first === 'best' ? c.passages?.passages.slice(0, 1) : c.passages?.passages;
    const tries: (number[] | undefined)[] = chosen ? chosen.map((_, n) => chosen.slice(0, chosen.length - n)) : [undefined];
    let fitted = false;
    for (const parts of tries) {
      partsOf.set(c, parts);
      const tryInstr = c.kind === 'instruction' ? [...instr, c] : instr;
      const tryEvid = c.kind === 'instruction' ? evid : [...evid, c];
      const t = render(destination, tryInstr.map(line), readerOrder(tryEvid).map(line));
      const n = countTokens(t);
      if (n > budgetTokens) continue;
      if (c.kind === 'instruction') instr.push(c);
      else evid.push(c);
      text = t;
      tokens = n;
      fitted = true;
      break;
    }
    if (fitted) continue;
    partsOf.set(c, chosen?.slice(0, 1));
    if (instr.length + evid.length === 0 && budgetTokens > 20) {
      // Nothing fits whole: cut the best card rather than hand back nothing.
      const framing = countTokens(render(destination, c.kind === 'instruction' ? ['x'] : [], c.kind === 'instruction' ? [] : ['x']));
      const cut = cutToTokens(line(c), budgetTokens - framing - 2);
      if (!cut) continue;
      const t2 = render(destination, c.kind === 'instruction' ? [cut] : [], c.kind === 'instruction' ? [] : [cut]);
      const n2 = countTokens(t2);
      if (n2 <= budgetTokens) {
        if (c.kind === 'instruction') instr.push(c);
        else evid.push(c);
        text = t2;
        tokens = n2;
        wasCut = true;
        break; // the cut card's full line is not in the text; adding more would re-render it whole
      }
    }
  }
  // The budget left: further passages of the packed long cards, most valuable first, each where it still fits.
  const further: { c: RankedCard; k: number; worth: number }[] = [];
  for (const c of wasCut || spend.sharpness === Infinity ? [] : evid) {
    const pc = c.passages;
    const has = partsOf.get(c);
    if (!pc || !has) continue;
    // Without each passage's relevance (a card made elsewhere), its chosen passages in their order, and no others.
    const rel = pc.relevance?.length === pc.of ? pc.relevance : Array.from({ length: pc.of }, (_, k) => (pc.passages.includes(k) ? 1 - pc.passages.indexOf(k) / pc.of : 0));
    const best = Math.max(...has.map((k) => rel[k] ?? 0));
    for (let k = 0; k < pc.of; k++)
      // A passage that matched nothing of the task, or much less than the best one did, is not packed.
      if (!has.includes(k) && rel[k] > 0 && best > 0 && rel[k] >= spend.floor * best) further.push({ c, k, worth: c.score * Math.min(1, rel[k] / best) ** spend.sharpness });
  }
  further.sort((a, b) => b.worth - a.worth);
  for (const { c, k } of further) {
    if (coreTokens(c.item, split(c.item.text), k) > budgetTokens - tokens) continue;
    const had = partsOf.get(c)!;
    partsOf.set(c, [...had, k]);
    const t = render(destination, instr.map(line), readerOrder(evid).map(line));
    const n = countTokens(t);
    if (n > budgetTokens) {
      partsOf.set(c, had);
      continue;
    }
    text = t;
    tokens = n;
  }
  const ids = [...instr, ...readerOrder(evid)].map((c) => c.item.id);
  return { text, tokens, ids };
}
