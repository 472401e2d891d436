import type { Settings, SettingsPatch } from '../../settings/types';
import { HostList } from './host-list';

/** Optional capture of sent messages (off by default) and the sites it applies to. */
export function CaptureSection(props: { settings: Settings; save: (patch: SettingsPatch) => void }) {
  const { settings, save } = props;
  return (
    <section aria-labelledby="h-capture">
      <h2 id="h-capture">Capture</h2>
      <label class="check">
        <input type="checkbox" data-testid="capture-sent" checked={settings.capture.sent}
          onChange={(e) => save({ capture: { sent: (e.target as HTMLInputElement).checked } })} />
        Remember the messages I send on these sites (off by default)
      </label>
      <HostList id="capture-sites" label="Add a site for message capture" placeholder="e.g. chatgpt.com" hosts={settings.capture.sites}
        onChange={(sites) => save({ capture: { sites } })} />
    </section>
  );
}
