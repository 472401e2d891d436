import { insertText, type InsertOutcome } from '../insert/index';
import { pickAdapter } from './index';

/** Inserts a card on this page: a site whose editor the generic technique loop would get wrong (Google Docs) inserts its own way. */
export function insertOnPage(doc: Document, target: HTMLElement | null, text: string): Promise<InsertOutcome> {
  return pickAdapter(doc.location).insert?.(doc, target, text) ?? insertText(target, text);
}
