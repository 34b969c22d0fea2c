// The PLAN panel: a compaction preview's cut, numbers, warnings and exact prompts. textContent
// only: prompts quote session text.

import { callTitle, planLines } from './format.js';
import { elementMaker } from '../dom.js';

/** Renders `plan` (a `compactionPreview` result) into `root`. */
export function renderPlan(root, plan) {
  const doc = root.ownerDocument;
  const el = elementMaker(doc);
  const parts = [el('p', 'plan-note', 'Preview only: nothing is called or written. Esc closes.')];
  for (const { key, text } of planLines(plan)) {
    const line = el('p', `plan-line plan-${key}`, text);
    line.dataset.key = key;
    parts.push(line);
  }
  plan.calls.forEach((call, i) => {
    const details = el('details', 'plan-call');
    details.append(el('summary', null, callTitle(call, i)));
    details.append(el('div', 'plan-call-label', 'system prompt'));
    details.append(el('pre', 'plan-prompt', call.systemPrompt));
    details.append(el('div', 'plan-call-label', 'prompt'));
    details.append(el('pre', 'plan-prompt', call.prompt));
    parts.push(details);
  });
  root.replaceChildren(...parts);
}
