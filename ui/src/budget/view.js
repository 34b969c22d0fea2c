// The budget bar at the top of the window. Owns its DOM; text only; positions through the
// CSSOM (`style.left` / `style.width`), which the CSP allows, never style attributes.

import { barGeometry, budgetTexts } from './bar.js';

/**
 * Renders `b` (a `budget` result) into the bar's elements under `root`.
 * @param {HTMLElement} root
 * @param {import('../generated/reports').BudgetReport} b
 */
export function renderBudget(root, b) {
  const doc = root.ownerDocument;
  const bar = root.querySelector('#budget-bar');
  const g = barGeometry(b);
  const t = budgetTexts(b);
  const part = (className, left, width, title) => {
    const node = doc.createElement('div');
    node.className = className;
    node.style.left = `${left}%`;
    if (width != null) node.style.width = `${Math.max(0, width)}%`;
    if (title) node.title = title;
    return node;
  };
  const parts = [
    part('zone-reserve', g.reserveStart, g.windowEnd - g.reserveStart, `reserve ${b.reserve}`),
    part('fill-older', 0, g.summarizable, 'older than the keep-recent budget: summarized on compaction'),
    part('fill-kept', g.summarizable, g.used - g.summarizable, 'kept verbatim on compaction (keepRecentTokens)'),
    part('mark-keep', g.keepRecent, null, `keep recent ${b.keepRecent}`),
  ];
  if (g.threshold != null) parts.push(part('mark-threshold', g.threshold, null, `auto-compaction threshold ${b.threshold}`));
  if (g.overflow) parts.push(part('mark-window', g.windowEnd, null, `window ${b.window}`));
  bar.replaceChildren(...parts);
  bar.classList.toggle('overflow', g.overflow);
  const amount = /** @type {HTMLElement} */ (root.querySelector('#budget-amount'));
  amount.textContent = `${t.amount} · ${t.percent}`;
  amount.title = t.note;
  amount.classList.toggle('misleading', Boolean(t.note));
  root.querySelector('#budget-source').textContent = t.window;
  root.querySelector('#budget-detail').textContent = t.detail;
  const alert = /** @type {HTMLElement} */ (root.querySelector('#budget-alert'));
  alert.textContent = t.alert;
  alert.title = t.reason;
  root.querySelector('#budget-reason').textContent = t.reason;
  root.dataset.wouldCompact = String(Boolean(b.wouldCompact));
  root.hidden = false;
}
