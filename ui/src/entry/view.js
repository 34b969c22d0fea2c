// The entry panel: one entry's raw JSON line and its diagnostics. textContent only.

import { elementMaker } from '../dom.js';

/**
 * Renders `detail` (an `entryDetail` result) into `root`.
 * @param {HTMLElement} root
 * @param {import('../generated/reports').EntryReport} detail
 */
export function renderEntry(root, detail) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);
  const head = el('div', 'entry-head', `${detail.entryType} · ${detail.id} · line ${detail.line}`);
  const parts = [head];
  if (detail.migrated) {
    parts.push(el('p', 'entry-note', 'Changed by migration: the agents see this entry differently.'));
  }
  if (detail.diagnostics.length > 0) {
    const list = el('ul', 'diagnostics');
    for (const d of detail.diagnostics) {
      list.append(el('li', `diag diag-${d.severity}`, `line ${d.line}: ${d.severity}: ${d.message}`));
    }
    parts.push(list);
  }
  const pre = el('pre', 'entry-json', detail.json);
  pre.id = 'entry-json';
  parts.push(pre);
  root.replaceChildren(...parts);
}

/** An empty panel with a hint. */
export function renderEntryHint(root, text) {
  const p = root.ownerDocument.createElement('p');
  p.className = 'hint';
  p.textContent = text;
  root.replaceChildren(p);
}
