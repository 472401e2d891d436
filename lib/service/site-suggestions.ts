import { browser } from 'wxt/browser';
import { allowedHosts, suggestionUnion, suggestionsToShow, validHosts } from '../sites/site-suggestions';
import { heldSyncOrigins } from '../sites/sync-host';

/** The hostnames other devices allowed, as synced here (a union), and the ones the user dismissed on this device. */
export const SUGGESTIONS_KEY = 'siteSuggestions';
export const DISMISSED_SUGGESTIONS_KEY = 'siteSuggestionsDismissed';

export interface SiteSuggestionsDeps {
  /** The origins this browser lets Backstory read now. */
  granted(): Promise<string[]>;
  /** Origins granted for sync's WebDAV server alone (never suggested). */
  reserved(): Promise<string[]>;
  storage: { get(key: string): Promise<Record<string, unknown>>; set(items: Record<string, unknown>): Promise<void> };
}

const browserDeps = (): SiteSuggestionsDeps => ({
  granted: async () => (await browser.permissions.getAll()).origins ?? [],
  reserved: heldSyncOrigins,
  storage: browser.storage.local,
});

/**
 * The sites allowed on the user's other devices, offered on this one: sync sends the hosts allowed here with those
 * known from elsewhere (`siteSuggestions`, a union), and the options page offers those this browser does not read yet.
 * Nothing is granted here: only the user's click on Allow asks the browser.
 */
export class SiteSuggestions {
  constructor(private readonly deps: SiteSuggestionsDeps = browserDeps()) {}

  private async list(key: string): Promise<string[]> {
    return validHosts((await this.deps.storage.get(key))[key]);
  }

  /** The synced value: hosts allowed here and those known from other devices. */
  async syncValue(): Promise<string[]> {
    return suggestionUnion(await this.list(SUGGESTIONS_KEY), allowedHosts(await this.deps.granted(), await this.deps.reserved()));
  }

  /** Every concurrent synced value (hostile until checked) joins what is known here. */
  async receive(values: readonly unknown[]): Promise<void> {
    const known = suggestionUnion(await this.list(SUGGESTIONS_KEY), ...values.map(validHosts));
    await this.deps.storage.set({ [SUGGESTIONS_KEY]: known });
  }

  /** What the options page suggests now. */
  async shown(): Promise<string[]> {
    return suggestionsToShow(await this.list(SUGGESTIONS_KEY), await this.deps.granted(), await this.list(DISMISSED_SUGGESTIONS_KEY), await this.deps.reserved());
  }

  /** Not suggested again on this device (other devices still suggest it). */
  async dismiss(host: string): Promise<string[]> {
    const dismissed = suggestionUnion(await this.list(DISMISSED_SUGGESTIONS_KEY), validHosts([host]));
    await this.deps.storage.set({ [DISMISSED_SUGGESTIONS_KEY]: dismissed });
    return this.shown();
  }
}
