/**
 * Where the user is writing: each site adapter declares it (lib/sites), the task reading carries it, and the
 * instruction scope, the package's format, the reasons on a card and the phrase offers read it from there. The
 * names are stored (an instruction's destination scope, feedback events, memory files): keep them.
 */
export const DESTINATIONS = {
  chat: { label: 'Chat assistants', plural: 'chat assistants', thisIs: 'a chat assistant', onThis: 'in this conversation' },
  email: { label: 'Email', plural: 'email', thisIs: 'email', onThis: 'on this email' },
  // Every page that is neither mail nor a chat assistant: documents, notes, forms, any other field.
  documents: { label: 'Documents', plural: 'documents', thisIs: 'a document or page', onThis: 'on this page' },
} as const satisfies Record<string, DestinationWords>;

/** The words a destination is shown with. */
export interface DestinationWords {
  /** In a list of choices: "Chat assistants". */
  label: string;
  /** After "In" or "Instruction for": "chat assistants". */
  plural: string;
  /** After "this is": "a chat assistant". */
  thisIs: string;
  /** After "who is": "on this email". */
  onThis: string;
}

export type Destination = keyof typeof DESTINATIONS;

/** Every destination, in the order choices are shown. */
export const DESTINATION_NAMES = Object.keys(DESTINATIONS) as Destination[];

export function isDestination(v: unknown): v is Destination {
  return typeof v === 'string' && Object.hasOwn(DESTINATIONS, v);
}
