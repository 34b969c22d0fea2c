// The state legend under the tree header: owns its DOM.

import { STATES, stateClass } from './format.js';

/** Fills `root` with one swatch and name per state. */
export function renderLegend(root) {
  const doc = root.ownerDocument;
  const items = STATES.map(({ state, label, help }) => {
    const item = doc.createElement('span');
    item.className = `legend-item ${stateClass(state)}`;
    item.title = help;
    const swatch = doc.createElement('span');
    swatch.className = 'bar';
    const text = doc.createElement('span');
    text.textContent = label;
    item.append(swatch, text);
    return item;
  });
  root.replaceChildren(...items);
}
