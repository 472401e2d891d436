import { DOCS_HOST, requestAnnotatedCanvas } from '../lib/sites/docs-annotate';

// In the manifest (not registered at run time): it must run in the page's world before Docs' own code starts.
export default defineContentScript({
  matches: [`https://${DOCS_HOST}/document/*`],
  world: 'MAIN',
  runAt: 'document_start',
  main() {
    requestAnnotatedCanvas(window);
  },
});
