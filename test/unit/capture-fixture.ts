import type { MemoryStore } from '../../lib/memory/store';
import { Capture } from '../../lib/service/capture';

type CaptureDeps = ConstructorParameters<typeof Capture>;

/** A worker's capture on `store` with sent-message capture on for chatgpt.com and every site allowed. */
export function captureSendingOnChatGPT(store: MemoryStore): Capture {
  const settings = { get: async () => ({ capture: { sent: true, sites: ['chatgpt.com'] }, ui: { excludedSites: [] } }) };
  return new Capture(
    store,
    {} as CaptureDeps[1],
    { broadcast: () => {}, refreshAll: () => {} },
    settings as unknown as CaptureDeps[3],
    { allows: async () => true } as unknown as CaptureDeps[4],
  );
}
