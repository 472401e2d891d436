import type { EmbedBackendChoice } from '../embed/gpu-adapter';
import type { RankSettings } from '../rank/types';

/** What the panel and the content script do where the user is (the ranker never reads these). */
export interface UiSettings {
  /** Hostnames (and their subdomains) where Backstory stays off. */
  excludedSites: string[];
}

/** Saving the messages the user sends (lib/sites/capture-sent.ts); off by default. */
export interface CaptureSettings {
  sent: boolean;
  /** Hostnames where capture is on, when `sent` is. */
  sites: string[];
}

/** How imports are embedded (indexed). */
export interface EmbedSettings {
  /** WebGPU where the device has a GPU (`auto`), never (`wasm`), or also on a software adapter (`webgpu`). */
  backend: EmbedBackendChoice;
}

/** Every setting, as stored (one storage item) and as `settings:get` returns it. */
export interface Settings {
  rank: RankSettings;
  ui: UiSettings;
  capture: CaptureSettings;
  embed: EmbedSettings;
}

/** A change to some settings: only the groups and fields named are written, the rest stay as stored. */
export interface SettingsPatch {
  rank?: Partial<RankSettings>;
  ui?: Partial<UiSettings>;
  capture?: Partial<CaptureSettings>;
  embed?: Partial<EmbedSettings>;
}
