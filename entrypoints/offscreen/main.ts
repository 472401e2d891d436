// Chrome's offscreen document (created on demand by lib/embed/offscreen-client.ts): runs the model on two threads.
import { serveOffscreenEngine } from '../../lib/embed/offscreen-engine';

serveOffscreenEngine();
