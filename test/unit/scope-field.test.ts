// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { guessScope } from '../../lib/memory/scope-guess';
import type { MemoryScope } from '../../lib/memory/types';
import { ScopeField } from '../../lib/ui/scope-field';

describe('the condition of a rule in the editor', () => {
  it('shows what the rule applies to and takes what the user types instead', async () => {
    const host = document.createElement('div');
    document.body.append(host);
    const initial = guessScope({ text: 'When writing about a vendor contract renewal, always copy Priya from procurement.' });
    let changed: MemoryScope | undefined;
    await act(() => render(h(ScopeField, { id: 't', initial, onChange: (s) => (changed = s) }), host));
    expect(host.querySelector<HTMLSelectElement>('[data-testid="edit-scope-kind"]')!.value).toBe('subject');
    expect(host.querySelector<HTMLInputElement>('[data-testid="edit-scope-values"]')!.value).toBe('vendor contract renewal');
    expect(host.querySelector('[data-testid="edit-scope-origin"]')!.textContent).toBe('Applies when the task is about “vendor contract renewal” · guessed from its words');
    const input = host.querySelector<HTMLInputElement>('[data-testid="edit-scope-values"]')!;
    await act(() => {
      input.value = 'vendor contract renewals, procurement';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(changed).toEqual({ kind: 'subject', values: ['vendor contract renewals', 'procurement'], set: 'user' });
    expect(host.querySelector('[data-testid="edit-scope-origin"]')!.textContent).toBe('Applies when the task is about “vendor contract renewals” or “procurement” · set by you');
    render(null, host);
  });
});
