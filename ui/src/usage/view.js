// The usage dialog: the recorded usage and cost per session, kind, model and branch, a chart
// of the context size each reply reported, compactions marked, and under it the shown leaf's
// context growth (growth-view.js). Owns `#usage-dialog`.

import { chartPoints, usageRows } from './format.js';
import { dialogHead, elementMaker } from '../dom.js';
import { formatCount } from '../entries/format.js';
import { growthSection } from './growth-view.js';

/**
 * Shows `report` (a `usageReport` result) in `dialog`.
 * @param {HTMLDialogElement} dialog
 * @param {import('../generated/reports').UsageReport} report
 * @param {() => void} onClose
 * @param {{ weight: import('../generated/reports').WeightReport, onJump: (entryId: string) => void } | null} [growth]
 *   the shown leaf's `weightReport` and what a click on its chart or lists does
 */
export function renderUsage(dialog, report, onClose, growth = null) {
  const el = elementMaker(dialog.ownerDocument);
  const head = dialogHead(dialog.ownerDocument, 'Usage and cost, as the agents recorded them', onClose);
  const table = el('table', 'usage-table');
  table.id = 'usage-table';
  const cols = ['name', 'records', 'input', 'output', 'cacheRead', 'cacheWrite', 'cost'];
  const titles = ['', 'records', 'input', 'output', 'cache read', 'cache write', 'cost'];
  const tr = el('tr');
  for (const t of titles) tr.append(el('th', null, t));
  table.append(tr);
  for (const row of usageRows(report)) {
    const line = el('tr');
    for (const c of cols) line.append(el('td', c === 'name' ? 'usage-name' : 'usage-num', row[c]));
    table.append(line);
  }
  const chart = chartPoints(report);
  const canvas = el('canvas', 'usage-chart');
  canvas.id = 'usage-chart';
  canvas.width = 900;
  canvas.height = 180;
  canvas.dataset.points = String(chart.points.length);
  canvas.dataset.marks = String(chart.marks.length);
  const caption = el('p', 'plan-note', `context size reported by ${formatCount(chart.points.length)} replies, in file order (max ${formatCount(chart.yMax)} tokens); compactions: ${formatCount(chart.marks.length)} (dashed)`);
  dialog.replaceChildren(head, table, caption, canvas);
  if (growth) dialog.append(growthSection(dialog.ownerDocument, growth.weight, growth.onJump));
  if (!dialog.open) dialog.showModal();
  const ctx = canvas.getContext('2d');
  if (!ctx || chart.points.length === 0) return;
  const css = dialog.ownerDocument.defaultView.getComputedStyle(dialog.ownerDocument.documentElement);
  const x = (v) => 4 + (v / Math.max(1, chart.xMax)) * (canvas.width - 8);
  const y = (v) => canvas.height - 4 - (v / Math.max(1, chart.yMax)) * (canvas.height - 8);
  ctx.strokeStyle = css.getPropertyValue('--compaction').trim() || '#7a3db8';
  ctx.setLineDash([4, 3]);
  for (const m of chart.marks) {
    ctx.beginPath();
    ctx.moveTo(x(m.x), 0);
    ctx.lineTo(x(m.x), canvas.height);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.strokeStyle = css.getPropertyValue('--assistant').trim() || '#3d64b8';
  ctx.beginPath();
  chart.points.forEach((p, i) => (i === 0 ? ctx.moveTo(x(p.x), y(p.y)) : ctx.lineTo(x(p.x), y(p.y))));
  ctx.stroke();
}
