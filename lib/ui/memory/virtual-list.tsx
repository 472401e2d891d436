import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Rows drawn beyond the visible ones on each side, so a quick scroll does not show blanks. */
const OVERSCAN = 6;

/**
 * A scrolling list that puts only the rows on screen in the DOM: every row has the same height except at most one
 * (`expanded`, e.g. a row being edited), whose height is measured. `onRange` asks for the rows it is about to show.
 */
export function VirtualList(props: {
  count: number;
  rowHeight: number;
  expanded?: number;
  /** Height of the scrolling area (CSS length). */
  height: string;
  label: string;
  /** Changes when the list is a different one (a new filter): scrolls back to the top. */
  resetKey: string;
  onRange: (first: number, last: number) => void;
  row: (index: number) => ComponentChildren;
}) {
  const { count, rowHeight, expanded } = props;
  const box = useRef<HTMLDivElement>(null);
  const tall = useRef<HTMLLIElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [tallHeight, setTallHeight] = useState(rowHeight);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setViewport(el.clientHeight || 600);
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  useLayoutEffect(() => {
    if (box.current) box.current.scrollTop = 0;
    setScrollTop(0);
  }, [props.resetKey]);
  useLayoutEffect(() => {
    const el = tall.current;
    if (expanded === undefined || !el) return setTallHeight(rowHeight);
    const ro = new ResizeObserver(() => setTallHeight(Math.max(rowHeight, el.offsetHeight)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [expanded, rowHeight]);

  const has = expanded !== undefined && expanded < count;
  const extra = has ? tallHeight - rowHeight : 0;
  const top = (i: number) => i * rowHeight + (has && i > expanded! ? extra : 0);
  const indexAt = (y: number) => {
    if (has && y >= top(expanded!) + tallHeight) return Math.floor((y - extra) / rowHeight);
    if (has && y >= top(expanded!)) return expanded!;
    return Math.floor(y / rowHeight);
  };
  const first = Math.max(0, indexAt(scrollTop) - OVERSCAN);
  const last = Math.min(count - 1, indexAt(scrollTop + viewport) + OVERSCAN);

  const range = `${first}:${last}:${count}`;
  const asked = useRef('');
  useLayoutEffect(() => {
    if (asked.current === range || count === 0) return;
    asked.current = range;
    props.onRange(first, last);
  });

  const rows: ComponentChildren[] = [];
  for (let i = first; i <= last; i++) {
    const isTall = has && i === expanded;
    rows.push(
      <li key={i} ref={isTall ? tall : undefined} class="vrow" aria-posinset={i + 1} aria-setsize={count}
        style={{ top: `${top(i)}px`, height: isTall ? undefined : `${rowHeight}px` }}>
        {props.row(i)}
      </li>,
    );
  }
  return (
    <div class="vlist" ref={box} style={{ height: props.height }} onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}>
      <ul class="memory-list" aria-label={props.label} style={{ height: `${count * rowHeight + extra}px` }}>
        {rows}
      </ul>
    </div>
  );
}
