import type { PanelState } from '../../messaging/protocol';

/** Why the page is not read: Backstory may not read the site (with "Allow on …"), or it is switched off there. */
export function AccessNotes(props: { state: PanelState | undefined; onAllow: (host: string, pattern: string) => void; onTurnOn: (site: string) => void }) {
  const { state } = props;
  const access = state?.access;
  return (
    <>
      {access ? (
        <div class="empty" data-testid="no-access" data-state={access.state}>
          <p><strong>Backstory can’t read this page.</strong></p>
          {access.state === 'ask' ? (
            <>
              <p class="muted">It reads only the sites you allow, so nothing on {access.host} has been read. Search still works.</p>
              <button class="primary" data-testid="allow-site" data-pattern={access.pattern} onClick={() => props.onAllow(access.host, access.pattern)}>
                Allow on {access.host}
              </button>
            </>
          ) : (
            <p class="muted">{access.reason} Search still works.</p>
          )}
        </div>
      ) : null}
      {state?.paused ? (
        <div class="empty" data-testid="paused">
          <p>Backstory is switched off on {state.paused.site}: it does not read this page. Search still works.</p>
          <button data-testid="site-toggle" onClick={() => props.onTurnOn(state.paused!.site)}>Turn on for {state.paused.site}</button>
        </div>
      ) : null}
    </>
  );
}

/** Nothing in a memory that has something clears the relevance bar (an empty memory shows the welcome). */
export function EmptyState() {
  return (
    <div data-testid="empty-state" class="empty">
      <p><strong>Nothing in your memory is relevant to this yet.</strong></p>
      <p class="muted">Try different words in the search box above, or save what you know: select text on any page and choose “Remember this selection”.</p>
    </div>
  );
}
