import type { MemoryInput } from '../../memory/types';
import { ItemEditor } from '../item-editor';
import { firstName } from './status-text';

/** The offers to save a note about people the task names and memory knows nothing about. */
export function NewContactOffers(props: { people: string[]; except?: string; onAdd: (person: string) => void }) {
  return (
    <>
      {props.people.filter((p) => p !== props.except).map((p) => (
        <div class="new-contact" key={p} data-testid="new-contact" data-person={p}>
          <span>No notes about <strong>{firstName(p)}</strong> yet.</span>
          <button data-testid="new-contact-add" onClick={() => props.onAdd(p)}>Save a note about {firstName(p)}</button>
        </div>
      ))}
    </>
  );
}

/** The note form for one of those people. */
export function NewContactForm(props: { person: string; onCancel: () => void; onSave: (input: MemoryInput) => Promise<void> }) {
  const name = firstName(props.person);
  return (
    // Kept apart from the offers it came from: a ranking pushed while the note is written (the page's task read
    // again without that recipient, say) must not unmount the form and lose what was typed.
    <div class="new-contact" key={`note-${props.person}`} data-testid="new-contact-form">
      <p><strong>A note about {name}</strong></p>
      <ItemEditor
        showText
        autoFocus="text"
        saveLabel="Save note"
        initial={{ title: `About ${name}`, text: '', kind: 'evidence', people: [props.person], tags: ['person'], sites: [] }}
        onCancel={props.onCancel}
        onSave={props.onSave}
      />
    </div>
  );
}
