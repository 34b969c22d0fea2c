// The usage dialog's growth section: the context after each turn of the shown leaf's path as an
// SVG line (a point per turn, compactions and prunes marked), the largest messages still in the
// context and the files read more than once. Every point, mark and line jumps to its entry.
// SVG built with DOM calls: the titles hold tool names and paths from the session.

import { elementMaker, makeButton } from '../dom.js';
import { formatCount } from '../entries/format.js';
import { growthLayout, repeatLines, topLines } from './growth.js';

const SVG = 'http://www.w3.org/2000/svg';
const BOX = { width: 900, height: 200, pad: 8 };

/**
 * The section for `report` (a `weightReport` result); `onJump(entryId)` goes to an entry.
 * @param {Document} doc
 * @param {import('../generated/reports').WeightReport} report
 * @param {(entryId: string) => void} onJump
 */
export function growthSection(doc, report, onJump) {
  const el = elementMaker(doc);
  const section = el('section', 'growth');
  section.id = 'growth';
  const layout = growthLayout(report, BOX);
  const compactions = layout.marks.filter((m) => m.kind === 'compaction').length;
  section.append(el('h3', null, `Context growth of leaf ${report.leafId ?? '(none)'}: ${formatCount(report.contextTokens)} tokens now, ${formatCount(report.turns.length)} turns (max ${formatCount(layout.yMax)}), ${formatCount(compactions)} compactions (dashed), prunes dotted`));
  section.append(chart(doc, layout, onJump));
  section.append(el('h4', null, 'Largest messages in the context'));
  section.append(jumpList(doc, 'growth-top', topLines(report), onJump));
  if (report.repeatedReads.length) {
    section.append(el('h4', null, 'Files read more than once'));
    section.append(jumpList(doc, 'growth-repeats', repeatLines(report), onJump));
  }
  return section;
}

/** The SVG: the marks under the line, the points over it. */
function chart(doc, layout, onJump) {
  const svg = doc.createElementNS(SVG, 'svg');
  svg.id = 'growth-chart';
  svg.setAttribute('class', 'growth-chart');
  svg.setAttribute('viewBox', `0 0 ${BOX.width} ${BOX.height}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.dataset.points = String(layout.points.length);
  svg.dataset.marks = String(layout.marks.length);
  const node = (tag, attrs, title, entryId) => {
    const n = doc.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
    if (title) {
      const t = doc.createElementNS(SVG, 'title');
      t.textContent = title;
      n.append(t);
    }
    if (entryId) {
      n.dataset.entryId = entryId;
      n.addEventListener('click', () => onJump(entryId));
    }
    return n;
  };
  for (const m of layout.marks) {
    svg.append(node('line', { class: `growth-mark growth-${m.kind}`, x1: m.x, x2: m.x, y1: 0, y2: BOX.height }, m.title, m.entryId));
  }
  if (layout.points.length) {
    const d = layout.points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
    svg.append(node('path', { class: 'growth-line', d }, null, null));
  }
  for (const p of layout.points) {
    svg.append(node('circle', { class: 'growth-point', cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: 3 }, p.title, p.entryId));
  }
  return svg;
}

/** A list of buttons, one per `{ entryId, text }` line. */
function jumpList(doc, id, lines, onJump) {
  const list = elementMaker(doc)('ol', 'growth-list');
  list.id = id;
  for (const line of lines) {
    const item = doc.createElement('li');
    const button = makeButton(doc, 'link-button', line.text, line.entryId ? { onClick: () => onJump(line.entryId) } : {});
    if (line.entryId) button.dataset.entryId = line.entryId;
    else button.disabled = true;
    item.append(button);
    list.append(item);
  }
  return list;
}
