import { browser } from 'wxt/browser';
import { openMemoryDB } from '../memory/db';
import { MemoryStore } from '../memory/store';
import { HANDOVER_PORT, PANEL_PORT } from '../messaging/protocol';
import { isExtensionPage, serveBackground } from '../messaging/rpc';
import { installMenus, installToolbarButton, openPanel } from './browser-ui';
import { Capture } from './capture';
import { ContentRegistration } from './content-registration';
import { backgroundHandlers } from './handlers';
import { BackgroundEmbedding } from './background-embedding';
import { Imports } from './imports';
import { Insertion } from './insertion';
import { LearningActions } from './learning-actions';
import { Learning } from '../learn/learning';
import { MemoryActions } from './memory-actions';
import { RemovedImports } from '../memory-browse/import-removal';
import { ModelHolder } from './model';
import { ModelStatusReport } from './model-status';
import { PageBridge } from './page-bridge';
import { heldSyncOrigins, setSyncOrigins } from '../sites/sync-host';
import { PanelHub } from './panel-hub';
import { PhraseOffers } from './phrase-offers';
import { SettingsCache } from './settings-cache';
import { SiteSuggestions } from './site-suggestions';
import { TabRanker } from './tab-ranker';
import { ReadingUpdates } from './reading-updates';
import { TabReadingStore } from './tab-reading-store';
import { SYNC_ALARM, SyncService } from './sync-service';
import { LISTENING_MARK, MEMORY_LOADED_MARK } from './start-marks';

/** The service worker's parts, wired to each other. */
export class Service {
  readonly model: ModelHolder = new ModelHolder(
    (status) => {
      this.hub.broadcast({ type: 'model', status });
      this.hub.refreshAll();
    },
    async () => (await this.settings.get()).embed.backend,
  );
  readonly db = openMemoryDB();
  readonly store = new MemoryStore(this.db, () => this.model.get(), () => this.model.indexer());
  /** Which sites Backstory may read, and the content script registered for exactly those. */
  readonly access = new ContentRegistration();
  readonly tasks = new TabReadingStore();
  readonly settings = new SettingsCache(() => {
    this.hub.refreshAll();
    this.sync.changed();
  });
  readonly bridge = new PageBridge(this.access, this.tasks);
  readonly hub: PanelHub;
  readonly indexing: BackgroundEmbedding;
  readonly ranker: TabRanker;
  readonly readings: ReadingUpdates;
  readonly insertion: Insertion;
  readonly memory: MemoryActions;
  readonly capture: Capture;
  readonly imports: Imports;
  readonly learning: LearningActions;
  readonly modelStatus: ModelStatusReport;
  readonly phrases: PhraseOffers;
  readonly sync: SyncService;
  /** Sites allowed on the user's other devices, suggested here. */
  readonly suggestions = new SiteSuggestions();

  constructor() {
    // The hub and the ranker need each other: the ranker reports through the hub, the hub asks it for rankings.
    const panels = { broadcast: (p: Parameters<PanelHub['broadcast']>[0]) => this.hub.broadcast(p), refreshAll: () => this.hub.refreshAll() };
    // What learning keeps (the feedback on the device, the cards each tab was shown), handed to whoever needs it.
    const learning = new Learning();
    this.indexing = new BackgroundEmbedding(this.store, panels);
    this.ranker = new TabRanker(this.store, this.model, this.tasks, this.settings, this.access, this.bridge, this.indexing, learning);
    this.hub = new PanelHub(this.ranker);
    this.readings = new ReadingUpdates(this.tasks, this.access, this.hub);
    this.learning = new LearningActions(learning, this.settings, panels, () => this.sync.changed());
    this.phrases = new PhraseOffers(this.store, panels, () => learning.phrases());
    this.insertion = new Insertion(this.store, this.bridge, this.tasks, this.hub, this.ranker, this.learning, this.phrases);
    this.memory = new MemoryActions(this.store, this.hub, this.indexing, learning, new RemovedImports(this.db));
    this.modelStatus = new ModelStatusReport(this.store, this.model, this.indexing);
    this.capture = new Capture(this.store, this.bridge, this.hub, this.settings, this.access, this.phrases);
    this.sync = new SyncService({
      db: this.db, store: this.store, settings: this.settings, broadcast: (p) => this.hub.broadcast(p), refresh: () => this.hub.refreshAll(),
      index: () => void this.indexing.run(), learning: this.learning, sites: this.suggestions, sitesChanged: (c) => this.sitesChanged(c),
    });
    this.store.watch(() => this.sync.changed());
    this.imports = new Imports(this.db, {
      store: this.store, index: () => this.indexing.run(), broadcast: (p) => this.hub.broadcast(p), refresh: () => this.hub.refreshAll(),
      indexing: () => this.indexing.progress, feedback: (block, trusted) => this.learning.importFeedback(block, trusted),
    });
  }

  async sitesChanged(change: { added?: string[]; removed?: string[] }): Promise<void> {
    await this.bridge.sitesChanged(change);
    this.hub.refreshAll();
    this.sync.changed(); // the sites allowed here are suggested on the other devices
  }

  /**
   * The user allowed reading `pattern` in the panel. The browser says nothing when the origin was granted already, as
   * sync's WebDAV server's is: held for sync alone until now, its pages are read from here on.
   */
  async siteAllowed(pattern: string): Promise<void> {
    const held = await heldSyncOrigins();
    if (!held.includes(pattern)) return;
    await setSyncOrigins(held.filter((p) => p !== pattern));
    await this.sitesChanged({ added: [pattern] });
  }
}

/** Starts the service worker: messages, ports, menus, commands, site access, then memory and the model. */
export function startService(): Service {
  const s = new Service();
  serveBackground(backgroundHandlers(s));
  installMenus();
  installToolbarButton();
  browser.runtime.onConnect.addListener((port) => {
    if (port.name === PANEL_PORT && port.sender && isExtensionPage(port.sender)) s.hub.connect(port);
    else if (port.name.startsWith(HANDOVER_PORT) && port.sender && isExtensionPage(port.sender)) s.imports.handover(port);
  });
  browser.contextMenus.onClicked.addListener((info, tab) => {
    if (info.menuItemId === 'remember-selection') void s.capture.reportFailure(s.capture.rememberSelection(info, tab));
    if (info.menuItemId === 'remember-page') void s.capture.reportFailure(s.capture.rememberPage(info, tab));
    if (info.menuItemId === 'remember-link') void s.capture.reportFailure(s.capture.rememberLink(info, tab));
  });
  browser.commands.onCommand.addListener((command, tab) => {
    if (command === 'insert-top-card') void s.insertion.topCard(tab);
    if (command === 'open-side-panel') void openPanel(tab);
  });
  browser.tabs.onRemoved.addListener((tabId) => {
    s.readings.closed(tabId);
    s.ranker.forgetTab(tabId);
    s.learning.forgetTab(tabId);
    s.phrases.forgetTab(tabId);
  });
  // Site access: the content script follows the sites the user allows (and takes back), across restarts too.
  browser.permissions.onAdded.addListener((p) => void s.sitesChanged({ added: p.origins ?? [] }));
  browser.permissions.onRemoved.addListener((p) => void s.sitesChanged({ removed: p.origins ?? [] }));
  void s.access.sync().catch(() => {});
  void s.imports.resume(); // an import a stopped worker left unfinished goes on
  void s.memory.expireUndo().catch(() => {});
  // Memory first, then the model: panels get cards ranked by words as soon as memory is in, and semantic ones when
  // the model is ready (a second push); the model's set-up on this same thread would hold up the memory load.
  void s.store
    .load()
    .then(() => performance.mark(MEMORY_LOADED_MARK))
    .then(() => s.model.get())
    .then(() => s.indexing.run());
  // Sync: on its alarm while the browser runs, and at start to finish what a stopped worker left.
  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === SYNC_ALARM) void s.sync.now();
  });
  void s.store.load().then(() => s.sync.start()).catch(() => {});
  performance.mark(LISTENING_MARK);
  return s;
}
