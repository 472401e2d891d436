import { useEffect, useState } from 'preact/hooks';
import type { MemoryItem } from '../../memory/types';
import { callBackground } from '../../messaging/rpc';
import type { PhraseOffer } from '../../learn/phrase-tally';

/**
 * "You often write 'keep it short' — save as an instruction?": a phrase the user keeps typing into prompts, offered
 * as an instruction for chat assistants. Saved only on Save; Not now asks again later, Never does not.
 * `version` changes when the worker says an offer is due.
 */
export function PhraseOfferBar(props: { version: number; onSaved: (item: MemoryItem) => void; onError: (e: unknown) => void }) {
  const [offer, setOffer] = useState<PhraseOffer>();
  useEffect(() => {
    let live = true;
    callBackground('phrase:offer', {}).then((r) => live && setOffer(r.offer), () => {});
    return () => void (live = false);
  }, [props.version]);
  if (!offer) return null;
  const answer = (a: 'save' | 'later' | 'never') => {
    setOffer(undefined);
    callBackground('phrase:answer', { phrase: offer.phrase, answer: a }).then((r) => {
      if (r.item) props.onSaved(r.item);
      return callBackground('phrase:offer', {}).then((n) => setOffer(n.offer));
    }, props.onError);
  };
  return (
    <section class="new-contact phrase-offer" role="region" aria-label="Save a phrase you often write" data-testid="phrase-offer" data-phrase={offer.phrase}>
      <p>
        You often write <strong data-testid="phrase-offer-text">“{offer.text}”</strong> ({offer.prompts} prompts). Save it as an instruction for chat
        assistants?
      </p>
      <div class="row">
        <button data-testid="phrase-offer-save" onClick={() => answer('save')}>Save</button>
        <button data-testid="phrase-offer-later" onClick={() => answer('later')}>Not now</button>
        <button data-testid="phrase-offer-never" onClick={() => answer('never')}>Never</button>
      </div>
    </section>
  );
}
