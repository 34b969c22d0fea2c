// Windowing of fixed-height rows: which rows to render for a scroll position. Pure.

/**
 * Rows `[first, last)` cover the viewport plus `overscan` rows on each side; `padTop` is the
 * offset of row `first`, `padBottom` the height below row `last`.
 */
export function visibleRange({ scrollTop, viewportHeight, rowHeight, rowCount, overscan = 8 }) {
  const top = Math.max(0, scrollTop);
  const first = Math.min(rowCount, Math.max(0, Math.floor(top / rowHeight) - overscan));
  const last = Math.min(rowCount, Math.ceil((top + viewportHeight) / rowHeight) + overscan);
  return { first, last: Math.max(first, last), padTop: first * rowHeight, padBottom: (rowCount - Math.max(first, last)) * rowHeight };
}

/** The `scrollTop` that brings row `index` into view, or `null` when it is already fully visible. */
export function scrollToRow({ index, scrollTop, viewportHeight, rowHeight }) {
  const top = index * rowHeight;
  if (top < scrollTop) return top;
  if (top + rowHeight > scrollTop + viewportHeight) return top + rowHeight - viewportHeight;
  return null;
}
