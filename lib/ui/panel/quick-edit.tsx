import type { MemoryItem, MemoryPatch } from '../../memory/types';
import { DuplicateOffer } from '../duplicate-offer';
import { ItemEditor } from '../item-editor';

/** The popover after "Remember this": what was saved, its fields to adjust, and the hold on a possible secret. */
export function QuickEdit(props: {
  item: MemoryItem;
  onClose: () => void;
  onConfirmHeld: () => void;
  onDelete: () => void;
  onSave: (patch: MemoryPatch) => Promise<void>;
  /** The capture was merged into the item it nearly repeats. */
  onMerged: (kept: MemoryItem) => void;
  onError: (e: unknown) => void;
}) {
  const { item } = props;
  return (
    <div class="popover" role="dialog" aria-label="Saved to memory" data-testid="quick-edit" data-id={item.id}>
      <div class="popover-head">
        <strong>Saved to memory</strong>
        <button class="icon" data-testid="quick-edit-dismiss" aria-label="Dismiss" onClick={props.onClose}>×</button>
      </div>
      <p class="muted snippet-small">{item.text.slice(0, 140)}{item.text.length > 140 ? '…' : ''}</p>
      {item.needsReview ? (
        <p class="held" role="note" data-testid="quick-edit-held">
          Held back from suggestions: {item.needsReview}.{' '}
          <button data-testid="quick-edit-confirm" onClick={props.onConfirmHeld}>Use it anyway</button>{' '}
          <button class="danger" data-testid="quick-edit-delete" onClick={props.onDelete}>Delete it</button>
        </p>
      ) : null}
      <DuplicateOffer item={item} onError={props.onError} onMerged={props.onMerged} />
      <ItemEditor
        key={item.id}
        saveLabel="Save"
        cancelLabel="Done"
        initial={{ title: item.title, text: item.text, kind: item.kind, people: item.people, tags: item.tags, sites: item.sites, scope: item.scope }}
        onCancel={props.onClose}
        onSave={({ title, kind, people, tags, sites, scope }) => props.onSave({ title, kind, people, tags, sites, ...(scope ? { scope } : {}) })}
      />
    </div>
  );
}
