// @vitest-environment happy-dom
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { describe, expect, it } from 'vitest';
import { VirtualList } from '../../lib/ui/memory/virtual-list';

function mount(props: { count: number; expanded?: number }) {
  const root = document.createElement('div');
  document.body.append(root);
  const asked: [number, number][] = [];
  const draw = (p: { count: number; expanded?: number }) =>
    act(() => {
      render(
        h(VirtualList, {
          count: p.count, rowHeight: 100, expanded: p.expanded, height: '600px', label: 'rows', resetKey: 'k',
          onRange: (a: number, b: number) => void asked.push([a, b]),
          row: (i: number) => h('div', { class: 'r', 'data-i': i, style: i === p.expanded ? { height: '300px' } : undefined }, `row ${i}`),
        }),
        root,
      );
    });
  draw(props);
  const rows = () => [...root.querySelectorAll<HTMLElement>('.vrow')];
  const scrollTo = (y: number) =>
    act(() => {
      const box = root.querySelector<HTMLElement>('.vlist')!;
      box.scrollTop = y;
      box.dispatchEvent(new Event('scroll'));
    });
  return { root, rows, asked, draw, scrollTo };
}

describe('VirtualList', () => {
  it('draws only the rows in view (and a few either side) of 100,000, and follows the scroll', () => {
    const l = mount({ count: 100_000 });
    expect(l.rows().length).toBeLessThan(25);
    expect(l.rows()[0].textContent).toBe('row 0');
    expect(l.root.querySelector<HTMLElement>('.memory-list')!.style.height).toBe(`${100_000 * 100}px`);
    l.scrollTo(5_000_000);
    const shown = l.rows().map((r) => Number(r.querySelector('.r')!.getAttribute('data-i')));
    expect(shown).toContain(50_000);
    expect(shown.length).toBeLessThan(25);
    expect(l.rows().find((r) => r.textContent === 'row 50000')!.style.top).toBe('5000000px');
    expect(l.asked.at(-1)![0]).toBeLessThanOrEqual(50_000);
    expect(l.asked.at(-1)![1]).toBeGreaterThanOrEqual(50_005);
  });
});
