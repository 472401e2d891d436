import { env } from '@huggingface/transformers';
import { lengthKnownFetch } from './whole-file-fetch';

const transformersFetch = env.fetch;

/**
 * Points transformers.js (tokenizer and pipeline) at the bundled model files only: never the hub, no browser cache
 * (the files are the extension's own), and every file fetched with its length known (see lengthKnownFetch).
 * `modelRoot` is a folder path in Node, a URL in the extension.
 */
export function useLocalModels(modelRoot: string): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelRoot.endsWith('/') ? modelRoot : modelRoot + '/';
  env.useBrowserCache = false;
  env.fetch = lengthKnownFetch(transformersFetch);
}
