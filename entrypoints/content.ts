import { startContentAgent } from '../lib/sites/content-agent';

export default defineContentScript({
  matches: ['<all_urls>'],
  allFrames: true,
  runAt: 'document_idle',
  main(ctx) {
    const stop = startContentAgent();
    ctx.onInvalidated(stop);
  },
});
