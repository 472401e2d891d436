import { startContentAgent } from '../lib/sites/content-agent';
import { serveContent } from '../lib/messaging/rpc';
import { FIRST_CLASS_PATTERNS } from '../lib/sites/site-access';

type Marked = { __backstoryAgent?: { isInvalid: boolean }; __backstoryActions?: () => void };

export default defineContentScript({
  // Not in the manifest: the service worker registers it for exactly the sites the user let Backstory read
  // (lib/service/content-registration.ts), and injects it into pages already open when a site is allowed.
  registration: 'runtime',
  matches: FIRST_CLASS_PATTERNS,
  allFrames: true,
  runAt: 'document_idle',
  main(ctx) {
    // Registration and a grant's injection can both reach a page: one live agent per frame, and it takes over from
    // a one-shot responder left by "Remember this" (two would answer, and insert, twice).
    const w = window as unknown as Marked;
    if (w.__backstoryAgent && !w.__backstoryAgent.isInvalid) return;
    try {
      w.__backstoryActions?.();
    } catch {
      // left by an earlier version of the extension: nothing to stop
    }
    w.__backstoryActions = undefined;
    w.__backstoryAgent = ctx;
    const stopAgent = startContentAgent();
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      stopAgent();
      stopListening();
      if (w.__backstoryAgent === ctx) w.__backstoryAgent = undefined;
    };
    const stopListening = serveContent({
      'page:stop': () => {
        stop();
        return { ok: true };
      },
    });
    ctx.onInvalidated(stop);
  },
});
