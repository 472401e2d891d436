import { useEffect, useState } from 'preact/hooks';
import type { MemoryItem } from '../memory/types';
import { callBackground } from '../messaging/rpc';

/** In the quick edit: a capture that nearly repeats something saved is offered for merging, never merged silently. */
export function DuplicateOffer(props: { item: MemoryItem; onMerged: (kept: MemoryItem) => void; onError: (e: unknown) => void }) {
  const [dup, setDup] = useState<{ id: string; title: string }>();
  useEffect(() => {
    let live = true;
    callBackground('capture:duplicate', { id: props.item.id }).then((r) => live && setDup(r.duplicate), () => {});
    return () => void (live = false);
  }, [props.item.id]);
  if (!dup) return null;
  return (
    <p class="held" role="note" data-testid="quick-edit-duplicate" data-id={dup.id}>
      This nearly repeats “{dup.title}”, already in your memory.{' '}
      <button data-testid="quick-edit-merge" onClick={() => callBackground('capture:merge', { id: props.item.id, into: dup.id }).then((r) => props.onMerged(r.item), props.onError)}>
        Merge into it
      </button>
    </p>
  );
}
