export type PackageView = { text: string; tokens: number; ids: string[]; budget: number };

/** What "Insert all" inserts, as it will be inserted, with its tokens against the budget. */
export function PackagePreview(props: { pkg: PackageView | undefined; count: number; canInsert: boolean; onInsert: () => void; open: boolean; setOpen: (o: boolean) => void }) {
  const pkg = props.pkg ?? { text: '', tokens: 0, ids: [], budget: 0 };
  const over = pkg.tokens > pkg.budget;
  return (
    <details class="package" data-testid="package" open={props.open} data-loading={props.pkg ? undefined : ''}
      onToggle={(e) => props.setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        Package: {pkg.ids.length} of {props.count} {props.count === 1 ? 'card' : 'cards'} ·{' '}
        <span data-testid="package-tokens">{pkg.tokens}</span> / {pkg.budget} tokens
      </summary>
      <meter data-testid="package-meter" min={0} max={pkg.budget} low={pkg.budget * 0.75} high={pkg.budget * 0.95} optimum={0}
        value={pkg.tokens} aria-label={`${pkg.tokens} of ${pkg.budget} tokens`} class={over ? 'over' : ''} />
      <pre class="package-text" data-testid="package-text" tabIndex={0} aria-label="Package as it will be inserted">{props.pkg ? pkg.text || 'Nothing selected.' : 'Building…'}</pre>
      <button class="primary" data-testid="package-insert" disabled={!props.canInsert || !pkg.text} onClick={props.onInsert}>
        Insert all
      </button>
    </details>
  );
}
