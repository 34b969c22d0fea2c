import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrollToRow, visibleRange } from '../../ui/src/tree/window.js';

test('first screen renders one viewport plus overscan', () => {
  assert.deepEqual(
    visibleRange({ scrollTop: 0, viewportHeight: 200, rowHeight: 20, rowCount: 10_000, overscan: 2 }),
    { first: 0, last: 12, padTop: 0, padBottom: (10_000 - 12) * 20 },
  );
});

test('a scrolled window starts overscan rows above the first visible row', () => {
  assert.deepEqual(
    visibleRange({ scrollTop: 1000, viewportHeight: 200, rowHeight: 20, rowCount: 10_000, overscan: 2 }),
    { first: 48, last: 62, padTop: 960, padBottom: (10_000 - 62) * 20 },
  );
});

test('the window is clamped to the rows there are', () => {
  assert.deepEqual(
    visibleRange({ scrollTop: 0, viewportHeight: 500, rowHeight: 20, rowCount: 5 }),
    { first: 0, last: 5, padTop: 0, padBottom: 0 },
  );
  assert.deepEqual(
    visibleRange({ scrollTop: 0, viewportHeight: 500, rowHeight: 20, rowCount: 0 }),
    { first: 0, last: 0, padTop: 0, padBottom: 0 },
  );
  // Overscrolled (elastic scrolling, a shrunk list): never past the end, never negative.
  const past = visibleRange({ scrollTop: 99_999, viewportHeight: 200, rowHeight: 20, rowCount: 100, overscan: 2 });
  assert.equal(past.last, 100);
  assert.ok(past.first <= past.last);
  assert.equal(past.padBottom, 0);
  assert.equal(visibleRange({ scrollTop: -50, viewportHeight: 100, rowHeight: 20, rowCount: 100, overscan: 0 }).first, 0);
});

test('a 200,000-row tree renders a few dozen rows', () => {
  const r = visibleRange({ scrollTop: 2_000_000, viewportHeight: 700, rowHeight: 24, rowCount: 200_000 });
  assert.ok(r.last - r.first < 60, `${r.last - r.first} rows`);
  assert.equal(r.padTop + (r.last - r.first) * 24 + r.padBottom, 200_000 * 24);
});

test('scrolling to a row moves only when it is not fully visible', () => {
  const at = (index, scrollTop) => scrollToRow({ index, scrollTop, viewportHeight: 100, rowHeight: 20 });
  assert.equal(at(2, 0), null);
  assert.equal(at(4, 0), null);
  assert.equal(at(5, 0), 20);
  assert.equal(at(1, 40), 20);
  assert.equal(at(100, 0), 1920);
});
