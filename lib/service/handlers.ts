import type { BackgroundProtocol } from '../messaging/protocol';
import type { Handlers } from '../messaging/rpc';
import type { Service } from './index';
import { diagnoseSite } from './site-diagnosis';

/** The worker's message table: each message is answered by one module. */
export function backgroundHandlers(s: Service): Handlers<BackgroundProtocol> {
  return {
    'task:update': ({ reading }, sender) => s.readings.update(reading, sender),
    'panel:get': ({ tabId, search }) => s.hub.rank(tabId, search),
    'card:insert': ({ tabId, id, passages }) => s.insertion.card(tabId, id, passages),
    'card:dismiss': ({ tabId, id }) => s.learning.record(tabId, id, 'dismiss').then(() => s.readings.dismiss(tabId, id)),
    'memory:add': ({ items, restore }) => s.memory.add(items, restore === true),
    'memory:update': ({ id, patch }) => s.memory.update(id, patch),
    'memory:delete': ({ ids }) => s.memory.remove(ids),
    'memory:list': () => s.memory.list(),
    'memory:query': (q) => s.memory.query(q),
    'memory:removeImport': ({ importId }) => s.memory.removeImport(importId),
    'memory:restoreImport': ({ importId }) => s.memory.restoreImport(importId),
    'memory:import': ({ content }) => s.memory.importMemoryFile(content),
    'memory:export-feedback': () => s.memory.exportFeedback(),
    'memory:clear': () => s.memory.clear(),
    'settings:get': () => s.settings.get(),
    'settings:set': ({ patch }) => s.settings.set(patch),
    'site:pause': ({ site, paused }) => s.settings.pauseSite(site, paused),
    'trace:words': ({ items }) => s.ranker.traceWords(items),
    'trace:titles': ({ ids }) => s.ranker.traceTitles(ids),
    'trace:find': ({ tabId, text }) => s.ranker.traceFind(tabId, text),
    'package:build': ({ tabId, ids, search }) => s.ranker.packageFor(tabId, ids, search),
    'package:insert': ({ tabId, ids, search }) => s.insertion.package(tabId, ids, search),
    'rank:preview': ({ text, settings, people, site }) => s.ranker.preview(text, settings, people, site),
    'site:diagnose': ({ tabId }) => diagnoseSite(s.tasks, s.bridge, tabId),
    'model:status': () => s.modelStatus.get(),
    'capture:recent': () => s.capture.recent(),
    'capture:dismiss': ({ id }) => s.capture.dismissRecent(id),
    'capture:sent': (payload, sender) => s.capture.sent(payload, sender),
    'feedback:record': ({ tabId, id, action }) => s.learning.record(tabId, id, action),
    'learning:status': () => s.learning.status(),
    'learning:set': (change) => s.learning.set(change),
    'capture:duplicate': ({ id }) => s.capture.duplicateOf(id),
    'capture:merge': ({ id, into }) => s.capture.merge(id, into),
    'phrase:offer': () => s.phrases.offer(),
    'phrase:answer': ({ phrase, answer }) => s.phrases.answer(phrase, answer).then((r) => (s.hub.refreshAll(), r)),
    'import:start': ({ jobId }) => s.imports.start(jobId),
    'import:status': () => s.imports.status(),
    'import:cancel': ({ jobId }) => s.imports.cancel(jobId),
    'import:dismiss': ({ jobId }) => s.imports.dismiss(jobId),
    'import:trust': ({ jobId, keep }) => s.imports.trust(jobId, keep === true),
    'import:offer': ({ jobId, index, save }) => s.imports.offer(jobId, index, save),
  };
}
