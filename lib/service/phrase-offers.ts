import type { PhraseTally } from '../learn/phrase-tally';
import { promptPrint, type PhraseOffer } from '../learn/phrase-tally';
import { asInstruction, findPhrases, saysPhrase } from '../learn/phrases';
import type { MemoryStore } from '../memory/store';
import type { MemoryItem } from '../memory/types';
import type { PanelPush } from '../messaging/protocol';
import { ADAPTERS } from '../sites/index';
import { siteListed } from '../core/hosts';

/**
 * Phrases the user keeps typing into prompts on chat assistants, offered as a saved instruction ("You often write
 * 'keep it short' — save as an instruction?"), never saved without the user's yes. A prompt is read when the user
 * sends it on a site where Backstory may keep what is sent, and when the user inserts a card into it (the prompt
 * as written so far); a prompt counts once however often it is read.
 */
export class PhraseOffers {
  /** Per tab, the prompt being written as last read and the phrases already counted from it. */
  private drafts = new Map<number, { text: string; keys: Set<string> }>();

  constructor(
    private readonly store: MemoryStore,
    private readonly panels: { broadcast(p: PanelPush): void },
    private readonly tally: () => PhraseTally,
  ) {}

  /** A prompt the user wrote on a chat assistant: `sent` when it went off, otherwise a draft being written. */
  async prompt(tabId: number | undefined, text: string, sent: boolean): Promise<void> {
    const norm = text.trim().toLowerCase().replace(/\s+/g, ' ');
    if (!norm) return;
    const found = findPhrases(text);
    const prev = tabId === undefined ? undefined : this.drafts.get(tabId);
    // The draft read at an insert grew into this prompt: what was counted from it is not counted again.
    const same = !!prev && norm.startsWith(prev.text.slice(0, 60));
    const fresh = same ? found.filter((f) => !prev!.keys.has(f.key)) : found;
    await this.tally().note(fresh, promptPrint(norm));
    if (tabId !== undefined) {
      if (sent) this.drafts.delete(tabId);
      else this.drafts.set(tabId, { text: norm, keys: new Set([...(same ? prev!.keys : []), ...found.map((f) => f.key)]) });
    }
    if (fresh.length && (await this.offer()).offer) this.panels.broadcast({ type: 'phrase-offer' });
  }

  forgetTab(tabId: number): void {
    this.drafts.delete(tabId);
  }

  /** The phrase to offer now, if one is due and no instruction says it already. */
  async offer(): Promise<{ offer?: PhraseOffer }> {
    await this.store.load();
    // Every instruction's text is read only when a phrase is due (a panel asks at each opening).
    const row = await this.tally().due(async (keys) => {
      const ids = [...this.store.items()].filter((i) => i.kind === 'instruction').map((i) => i.id);
      const instructions = (await this.store.readMany(ids)).map((i) => i.text);
      return new Set(keys.filter((key) => instructions.some((t) => saysPhrase(t, key))));
    });
    return row ? { offer: { phrase: row.key, text: row.text, prompts: row.prompts } } : {};
  }

  /**
   * Save: an instruction for chat assistants, in the words the user writes; Not now: offered again after as many
   * more prompts; Never: not offered again.
   */
  async answer(phrase: string, answer: 'save' | 'later' | 'never'): Promise<{ item?: MemoryItem }> {
    const row = await this.tally().answer(phrase, answer);
    if (!row || answer !== 'save') return {};
    const [item] = await this.store.add([
      {
        text: asInstruction(row.text), kind: 'instruction', title: asInstruction(row.text).slice(0, -1), tags: ['from your prompts'],
        scope: { kind: 'destination', values: ['chat'], set: 'user' },
      },
    ], { from: 'user' });
    return { item };
  }
}

const CHAT_HOSTS: readonly string[] = ADAPTERS.filter((a) => a.destination === 'chat').flatMap((a) => a.hosts);

/** A chat assistant's site (where a sent message is a prompt). */
export function isChatSite(site: string): boolean {
  return siteListed(CHAT_HOSTS, site);
}
