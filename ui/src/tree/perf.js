// Timing marks for scripts/bench-app.sh: `perfMark('tree-data')` stores `performance.now()` (ms
// since the page started) in `body[data-perf-tree-data]`. The bench reads them; nothing in the
// app depends on them.

/** Records mark `name` now. */
export function perfMark(name) {
  const body = globalThis.document?.body;
  if (!body) return;
  body.dataset[`perf${name.replace(/(^|-)(\w)/g, (_, __, c) => c.toUpperCase())}`] = performance.now().toFixed(1);
}

/**
 * Resolves once what the DOM holds now has been painted: an animation frame runs just before a
 * paint, and a task queued from it runs after that paint. A hidden window gets no frames: then
 * after `maxMs` anyway.
 */
export function afterPaint(maxMs = 100) {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, maxMs);
  });
}
