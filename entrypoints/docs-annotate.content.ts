import { DOCS_PATTERN, requestAnnotatedCanvas } from '../lib/sites/docs-annotate';

// In the manifest (not registered at run time): it must run in the page's world before Docs' own code starts.
export default defineContentScript({
  matches: [DOCS_PATTERN],
  world: 'MAIN',
  runAt: 'document_start',
  main() {
    requestAnnotatedCanvas(window);
  },
});
